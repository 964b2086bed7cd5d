import Dispatch

/// Runs two pieces of one photo's work at once on libdispatch's threads.
///
/// The closures share no mutable state: each works on its own `CopyLane` and its own bands of
/// the planes, and reads only what neither writes. Swift cannot see that disjointness, so the
/// closures travel in an `@unchecked Sendable` box; this is the only place in the module that
/// steps around the compiler's checks.
enum Parallel {
    private struct Unchecked<Value>: @unchecked Sendable {
        var value: Value
    }

    /// Calls `body` for every index, at once when there is more than one.
    static func forEach(_ indices: Range<Int>, _ body: (Int) -> Void) {
        guard indices.count > 1 else {
            indices.forEach(body)
            return
        }
        withoutActuallyEscaping(body) { body in
            let boxed = Unchecked(value: body)
            DispatchQueue.concurrentPerform(iterations: indices.count) { offset in
                boxed.value(indices.lowerBound + offset)
            }
        }
    }

    /// Runs `first` and `second`, at once when `concurrently`, and returns both results.
    static func run<A, B, Failure: Error>(
        _ first: () throws(Failure) -> A, _ second: () throws(Failure) -> B, concurrently: Bool
    ) -> (Result<A, Failure>, Result<B, Failure>) {
        guard concurrently else { return (Result(catching: first), Result(catching: second)) }
        var results = Unchecked(value: (Result<A, Failure>?.none, Result<B, Failure>?.none))
        withUnsafeMutablePointer(to: &results) { pointer in
            let shared = Unchecked(value: pointer)
            forEach(0..<2) { index in
                if index == 0 {
                    shared.value.pointee.value.0 = Result(catching: first)
                } else {
                    shared.value.pointee.value.1 = Result(catching: second)
                }
            }
        }
        return (results.value.0!, results.value.1!)
    }
}
