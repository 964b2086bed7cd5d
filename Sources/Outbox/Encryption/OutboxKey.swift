import Foundation
internal import PlatformLayer

/// The 256-bit key that opens an encrypted outbox (AES-256-GCM). Its bytes appear in no
/// description, log or error.
public struct OutboxKey: Sendable, CustomStringConvertible {
    /// The key's bytes, lent to the cipher only.
    let bytes: [UInt8]

    /// A key from 32 bytes the app keeps somewhere of its own.
    ///
    /// - Throws: `.encryption(.invalidKey)` when there are not exactly 32 bytes.
    public init(bytes: some Collection<UInt8>) throws(OutboxError) {
        guard bytes.count == AESGCM.keyByteCount else {
            throw .encryption(
                .invalidKey(reason: "a key has \(AESGCM.keyByteCount) bytes (256 bits), not \(bytes.count)"))
        }
        self.bytes = Array(bytes)
    }

    /// A new key from the system's cryptographically secure random generator: for an app that
    /// keeps its key itself, with `rawRepresentation` to store it and `init(bytes:)` to read it
    /// back.
    ///
    /// ```swift
    /// let key = OutboxKey.generate()
    /// try myVault.store(key.rawRepresentation, as: "outbox-key")  // the app's own secure storage
    /// // Later, in the app's `KeyProvider`:
    /// let again = try OutboxKey(bytes: myVault.load("outbox-key"))
    /// ```
    public static func generate() -> OutboxKey {
        // 32 bytes always make a key.
        try! OutboxKey(bytes: Cryptography.randomBytes(AESGCM.keyByteCount))
    }

    /// The key's 32 bytes, to keep in the app's own secure storage (the Keychain, a hardware
    /// store, a server): whoever holds them can read the outbox, so they belong in no log, file
    /// beside the store, or backup that travels with it. `init(bytes:)` makes the key again.
    public var rawRepresentation: Data { Data(bytes) }

    /// "a 256-bit outbox key", never its bytes.
    public var description: String { "a 256-bit outbox key" }
}

/// Where an encrypted outbox's key comes from. The key lives outside the store, so that whoever
/// copies the store's folder (or a backup of it) cannot read it.
///
/// The package brings two: `KeyFile` (a file readable only by its owner, for Linux and the
/// `outbox` command) and, on Apple platforms, `KeychainKeyProvider`. Give one in
/// `Outbox.Configuration.keyProvider`.
///
/// An app that keeps its key itself writes its own, throwing its own errors:
///
/// ```swift
/// struct VaultKeyProvider: KeyProvider {
///     let vault: MyVault
///     func key(forStoreIn folder: URL) throws -> OutboxKey {
///         try OutboxKey(bytes: vault.load("outbox-key"))  // throws MyVault.Error
///     }
/// }
/// ```
///
/// Opening the outbox then throws `OutboxError.encryption(.keyProviderFailed(path:cause:))` with the app's
/// error as the cause (an `OutboxError` comes through unwrapped).
public protocol KeyProvider: Sendable {
    /// The key of the outbox in `folder`.
    ///
    /// - Parameter folder: The store's folder, so that a provider can refuse a key kept inside it.
    /// - Throws: Any error naming why there is no key to give; the outbox wraps one that is not
    ///   an `OutboxError` in `OutboxError.encryption(.keyProviderFailed(path:cause:))`.
    func key(forStoreIn folder: URL) throws -> OutboxKey
}

extension KeyProvider {
    /// The key, with what the provider threw as an `OutboxError`.
    func outboxKey(forStoreIn folder: URL) throws(OutboxError) -> OutboxKey {
        do {
            return try key(forStoreIn: folder)
        } catch let error as OutboxError {
            throw error
        } catch {
            throw .encryption(.keyProviderFailed(path: folder.path, cause: UnderlyingError(error)))
        }
    }
}

/// A key kept in a file of its own, outside the store: 64 hexadecimal digits and a newline,
/// readable and writable by its owner only (mode 0600). `outbox keygen` makes one.
///
/// Reading it refuses a file that others may read or that another user owns (as ssh refuses such
/// a private key), one that is not a regular file, and one inside the store's own folder, where a
/// copy of the folder would carry the key along with what it locks.
public struct KeyFile: KeyProvider {
    /// Where the key file is.
    public let url: URL

    /// A key file at `url`, read when a store opens.
    public init(url: URL) { self.url = url }

    /// Makes a new key file at `url` holding a fresh random key: owner-only (0600), flushed to
    /// disk with its folder. It never overwrites anything.
    ///
    /// - Returns: The key file.
    /// - Throws: `.encryption(.keyFileNotCreated)` when something is there already or the file cannot be written.
    @discardableResult
    public static func create(at url: URL) throws(OutboxError) -> KeyFile {
        let text = hex(OutboxKey.generate().bytes) + "\n"
        if let cause = MediaFolder.createOwnerOnlyFile(atPath: url.path, contents: Data(text.utf8)) {
            throw .encryption(.keyFileNotCreated(path: url.path, cause: cause))
        }
        return KeyFile(url: url)
    }

    public func key(forStoreIn folder: URL) throws(OutboxError) -> OutboxKey {
        func refuse(_ reason: String) -> OutboxError { .encryption(.keyFile(path: url.path, cause: .found(reason))) }
        if let keyPath = FileCalls.resolvedPath(url.path), let storePath = FileCalls.resolvedPath(folder.path),
            keyPath == storePath || keyPath.hasPrefix(storePath.hasSuffix("/") ? storePath : storePath + "/")
        {
            throw refuse(
                "it is inside the outbox folder '\(folder.path)', so whoever copies the folder has the key too:"
                    + " keep it elsewhere")
        }
        let contents: Data
        switch MediaFolder.ownerOnlyFileContents(atPath: url.path, atMost: 256) {
        case .success(let data): contents = data
        case .failure(let problem): throw .encryption(.keyFile(path: url.path, cause: problem.cause))
        }
        var text = String(decoding: contents, as: UTF8.self)
        if text.hasSuffix("\n") { text.removeLast() }
        guard let bytes = Self.bytes(fromHex: text), bytes.count == AESGCM.keyByteCount else {
            throw refuse("it does not hold a 256-bit key (64 hexadecimal digits); 'outbox keygen' makes one")
        }
        return try OutboxKey(bytes: bytes)
    }

    private static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    private static func bytes(fromHex text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        for pair in stride(from: 0, to: digits.count, by: 2) {
            guard let high = hexValue(digits[pair]), let low = hexValue(digits[pair + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
