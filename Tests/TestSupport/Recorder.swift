/// A list that many tasks can append to.
public final class Recorder<Element: Sendable>: Sendable {
    private let storage = Locked<[Element]>([])

    public init() {}

    public func append(_ element: Element) { storage.withLock { $0.append(element) } }

    public func removeAll() { storage.withLock { $0.removeAll() } }

    public var elements: [Element] { storage.withLock { $0 } }
}
