import Foundation

/// The one small interface the outbox's cryptography goes through, so that the rest of the module
/// names no library: OpenSSL's libcrypto on Linux (`OpenSSLCryptography`), CryptoKit on Apple
/// platforms (`CryptoKitCryptography`). Nothing behind it is written by hand.
///
/// Every buffer is lent for the length of the call only. A failure of the library on valid
/// arguments (lengths are checked by the callers) cannot happen short of a broken build, so it
/// traps rather than throws; a ciphertext that fails authentication is a result (`false`).
protocol CryptographyBackend {
    /// SHA-256 (FIPS 180-4) of `bytes`: 32 bytes.
    static func sha256(_ bytes: UnsafeRawBufferPointer) -> [UInt8]

    /// Fills `buffer` from the system's cryptographically secure random generator.
    static func fillRandom(_ buffer: UnsafeMutableRawBufferPointer)

    /// AES-256-GCM encryption (NIST SP 800-38D) with a 96-bit nonce and a 128-bit tag.
    ///
    /// - Parameters:
    ///   - key: 32 bytes.
    ///   - nonce: 12 bytes, never used twice with one key.
    ///   - associatedData: Bytes the tag covers without encrypting them.
    ///   - plaintext: The bytes to encrypt.
    ///   - ciphertext: Exactly as many bytes as `plaintext`, written.
    ///   - tag: 16 bytes, written.
    static func sealAES256GCM(
        key: UnsafeRawBufferPointer, nonce: UnsafeRawBufferPointer, associatedData: UnsafeRawBufferPointer,
        plaintext: UnsafeRawBufferPointer, ciphertext: UnsafeMutableRawBufferPointer,
        tag: UnsafeMutableRawBufferPointer)

    /// AES-256-GCM decryption and authentication: the inverse of `sealAES256GCM`.
    ///
    /// - Parameter plaintext: Exactly as many bytes as `ciphertext`; written, and zeroed again
    ///   when authentication fails, so that no unauthenticated byte is ever left in it.
    /// - Returns: Whether the tag matched: the key, nonce, associated data and ciphertext are all
    ///   the ones it was made with.
    static func openAES256GCM(
        key: UnsafeRawBufferPointer, nonce: UnsafeRawBufferPointer, associatedData: UnsafeRawBufferPointer,
        ciphertext: UnsafeRawBufferPointer, tag: UnsafeRawBufferPointer, plaintext: UnsafeMutableRawBufferPointer
    ) -> Bool
}

#if canImport(CryptoKit)
typealias Cryptography = CryptoKitCryptography
#else
typealias Cryptography = OpenSSLCryptography
#endif

/// The sizes AES-256-GCM works with, as the outbox uses it.
enum AESGCM {
    /// A key: 256 bits.
    static let keyByteCount = 32
    /// A nonce: 96 bits, the size GCM is specified for (longer ones are hashed down).
    static let nonceByteCount = 12
    /// A tag: 128 bits, the full size.
    static let tagByteCount = 16
}

extension CryptographyBackend {
    /// SHA-256 of `data`, as 64 lowercase hexadecimal digits: what the engine checks an upload by.
    static func sha256Hex(of data: some ContiguousBytes) -> String {
        data.withUnsafeBytes { sha256($0) }.map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }

    /// `count` bytes from the system's cryptographically secure random generator.
    static func randomBytes(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        bytes.withUnsafeMutableBytes { fillRandom($0) }
        return bytes
    }
}
