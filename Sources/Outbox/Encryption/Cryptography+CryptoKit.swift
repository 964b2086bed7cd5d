#if canImport(CryptoKit)
import CryptoKit
import Foundation
import Security

/// The outbox's cryptography on Apple platforms: CryptoKit's AES-GCM and SHA-256, and the
/// Security framework's random generator.
enum CryptoKitCryptography: CryptographyBackend {
    static func sha256(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        Array(SHA256.hash(data: bytes))
    }

    static func fillRandom(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        precondition(
            SecRandomCopyBytes(kSecRandomDefault, buffer.count, base) == errSecSuccess, "SecRandomCopyBytes failed")
    }

    static func sealAES256GCM(
        key: UnsafeRawBufferPointer, nonce: UnsafeRawBufferPointer, associatedData: UnsafeRawBufferPointer,
        plaintext: UnsafeRawBufferPointer, ciphertext: UnsafeMutableRawBufferPointer,
        tag: UnsafeMutableRawBufferPointer
    ) {
        precondition(ciphertext.count == plaintext.count && tag.count == AESGCM.tagByteCount)
        do {
            let box = try AES.GCM.seal(
                plaintext, using: SymmetricKey(data: key), nonce: try AES.GCM.Nonce(data: nonce),
                authenticating: associatedData)
            precondition(box.ciphertext.count == ciphertext.count && box.tag.count == tag.count)
            box.ciphertext.copyBytes(to: ciphertext)
            box.tag.copyBytes(to: tag)
        } catch {
            preconditionFailure("AES-256-GCM encryption failed in CryptoKit: \(error)")
        }
    }

    static func openAES256GCM(
        key: UnsafeRawBufferPointer, nonce: UnsafeRawBufferPointer, associatedData: UnsafeRawBufferPointer,
        ciphertext: UnsafeRawBufferPointer, tag: UnsafeRawBufferPointer, plaintext: UnsafeMutableRawBufferPointer
    ) -> Bool {
        precondition(ciphertext.count == plaintext.count && tag.count == AESGCM.tagByteCount)
        let box: AES.GCM.SealedBox
        do {
            box = try AES.GCM.SealedBox(nonce: try AES.GCM.Nonce(data: nonce), ciphertext: ciphertext, tag: tag)
        } catch {
            preconditionFailure("an AES-GCM sealed box of valid sizes could not be made: \(error)")
        }
        // CryptoKit returns no byte of a message whose tag does not match.
        guard let opened = try? AES.GCM.open(box, using: SymmetricKey(data: key), authenticating: associatedData)
        else { return false }
        precondition(opened.count == plaintext.count)
        opened.copyBytes(to: plaintext)
        return true
    }
}
#endif
