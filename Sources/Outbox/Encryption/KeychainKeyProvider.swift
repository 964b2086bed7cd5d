#if canImport(Security)
import Foundation
import Security

/// An outbox key kept in the Keychain of an Apple device, as a generic password item made on
/// first use.
///
/// The item is `kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly`:
/// - after first unlock, because a background upload must be able to open the store while the
///   phone is locked again (the same reason the store's files are
///   `completeUntilFirstUserAuthentication`);
/// - this device only, so that the key never leaves it in an iCloud Keychain sync or a backup:
///   a backup of the store is then unreadable anywhere else, which is the point. A restored
///   device starts with a new key, and entries queued before the restore cannot be read there.
public struct KeychainKeyProvider: KeyProvider {
    /// The item's service (`kSecAttrService`), for example the app's bundle identifier.
    public let service: String
    /// The item's account (`kSecAttrAccount`), for example "outbox".
    public let account: String

    /// A key in the Keychain under `service` and `account`.
    public init(service: String, account: String = "outbox") {
        self.service = service
        self.account = account
    }

    public func key(forStoreIn folder: URL) throws(OutboxError) -> OutboxKey {
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecAttrAccount as String: account, kSecReturnData as String: true,
            kSecMatchLimit as String: kSecMatchLimitOne,
        ]
        var found: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &found)
        if status == errSecSuccess, let data = found as? Data { return try OutboxKey(bytes: data) }
        guard status == errSecItemNotFound else { throw Self.failure(status, doing: "reading the outbox key") }
        let key = OutboxKey.generate()
        let item: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecAttrAccount as String: account, kSecValueData as String: Data(key.bytes),
            kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly,
        ]
        let added = SecItemAdd(item as CFDictionary, nil)
        // Another process (an app extension) may have made it meanwhile: take that one.
        if added == errSecDuplicateItem { return try key(forStoreIn: folder) }
        guard added == errSecSuccess else { throw Self.failure(added, doing: "storing a new outbox key") }
        return key
    }

    private static func failure(_ status: OSStatus, doing action: String) -> OutboxError {
        let message = SecCopyErrorMessageString(status, nil) as String? ?? "OSStatus \(status)"
        return .encryption(.keychain(reason: "\(action) failed: \(message)"))
    }
}
#endif
