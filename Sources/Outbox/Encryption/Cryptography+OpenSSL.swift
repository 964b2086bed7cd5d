#if !canImport(CryptoKit)
internal import CCrypto

/// The outbox's cryptography on Linux: OpenSSL's libcrypto (Debian's `libssl-dev`), through its
/// EVP interface, which picks the AES-NI and SHA extensions of the processor when it has them.
enum OpenSSLCryptography: CryptographyBackend {
    static func sha256(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let succeeded = digest.withUnsafeMutableBufferPointer { output in
            EVP_Digest(bytes.baseAddress, bytes.count, output.baseAddress, &length, EVP_sha256(), nil) == 1
        }
        precondition(succeeded && length == 32, "EVP_Digest(SHA-256) failed")
        return Array(digest.prefix(32))
    }

    static func fillRandom(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        // RAND_bytes fails only when the system's generator cannot be seeded; then no key or
        // nonce may be made at all.
        precondition(
            RAND_bytes(base.assumingMemoryBound(to: UInt8.self), Int32(buffer.count)) == 1, "RAND_bytes failed")
    }

    static func sealAES256GCM(
        key: UnsafeRawBufferPointer, nonce: UnsafeRawBufferPointer, associatedData: UnsafeRawBufferPointer,
        plaintext: UnsafeRawBufferPointer, ciphertext: UnsafeMutableRawBufferPointer,
        tag: UnsafeMutableRawBufferPointer
    ) {
        checkSizes(key: key, nonce: nonce, tag: tag.count, text: plaintext.count, otherText: ciphertext.count)
        let context = CipherContext()
        context.withHandle { handle in
            var written: Int32 = 0
            let succeeded =
                EVP_EncryptInit_ex(handle, EVP_aes_256_gcm(), nil, nil, nil) == 1
                && EVP_CIPHER_CTX_ctrl(handle, EVP_CTRL_GCM_SET_IVLEN, Int32(nonce.count), nil) == 1
                && EVP_EncryptInit_ex(handle, nil, nil, bytes(key), bytes(nonce)) == 1
                && (associatedData.isEmpty
                    || EVP_EncryptUpdate(handle, nil, &written, bytes(associatedData), Int32(associatedData.count))
                        == 1)
                && (plaintext.isEmpty
                    || EVP_EncryptUpdate(
                        handle, mutableBytes(ciphertext), &written, bytes(plaintext), Int32(plaintext.count)) == 1)
                && finalBlock { EVP_EncryptFinal_ex(handle, $0, &written) }
                && EVP_CIPHER_CTX_ctrl(handle, EVP_CTRL_GCM_GET_TAG, Int32(tag.count), tag.baseAddress) == 1
            precondition(succeeded, "AES-256-GCM encryption failed in libcrypto")
        }
    }

    static func openAES256GCM(
        key: UnsafeRawBufferPointer, nonce: UnsafeRawBufferPointer, associatedData: UnsafeRawBufferPointer,
        ciphertext: UnsafeRawBufferPointer, tag: UnsafeRawBufferPointer, plaintext: UnsafeMutableRawBufferPointer
    ) -> Bool {
        checkSizes(key: key, nonce: nonce, tag: tag.count, text: ciphertext.count, otherText: plaintext.count)
        let context = CipherContext()
        let isAuthentic = context.withHandle { handle -> Bool in
            var written: Int32 = 0
            let isSetUp =
                EVP_DecryptInit_ex(handle, EVP_aes_256_gcm(), nil, nil, nil) == 1
                && EVP_CIPHER_CTX_ctrl(handle, EVP_CTRL_GCM_SET_IVLEN, Int32(nonce.count), nil) == 1
                && EVP_DecryptInit_ex(handle, nil, nil, bytes(key), bytes(nonce)) == 1
                && (associatedData.isEmpty
                    || EVP_DecryptUpdate(handle, nil, &written, bytes(associatedData), Int32(associatedData.count))
                        == 1)
                && (ciphertext.isEmpty
                    || EVP_DecryptUpdate(
                        handle, mutableBytes(plaintext), &written, bytes(ciphertext), Int32(ciphertext.count)) == 1)
                // The tag is only read by the library, whatever the signature says.
                && EVP_CIPHER_CTX_ctrl(
                    handle, EVP_CTRL_GCM_SET_TAG, Int32(tag.count), UnsafeMutableRawPointer(mutating: tag.baseAddress))
                    == 1
            precondition(isSetUp, "AES-256-GCM decryption could not be set up in libcrypto")
            // Final is where the tag is checked: it fails for any change to what it covers.
            return finalBlock { EVP_DecryptFinal_ex(handle, $0, &written) }
        }
        if !isAuthentic, plaintext.count > 0 { plaintext.initializeMemory(as: UInt8.self, repeating: 0) }
        return isAuthentic
    }

    private static func checkSizes(
        key: UnsafeRawBufferPointer, nonce: UnsafeRawBufferPointer, tag: Int, text: Int, otherText: Int
    ) {
        precondition(key.count == AESGCM.keyByteCount && nonce.count == AESGCM.nonceByteCount)
        precondition(tag == AESGCM.tagByteCount && text == otherText && text <= Int(Int32.max))
    }

    /// A buffer's start as libcrypto takes it; a zero-length buffer may have no address, and the
    /// callers never pass one where it would be read.
    private static func bytes(_ buffer: UnsafeRawBufferPointer) -> UnsafePointer<UInt8>? {
        buffer.baseAddress?.assumingMemoryBound(to: UInt8.self)
    }

    /// A non-empty buffer's start as libcrypto writes to it.
    private static func mutableBytes(_ buffer: UnsafeMutableRawBufferPointer) -> UnsafeMutablePointer<UInt8>? {
        buffer.baseAddress?.assumingMemoryBound(to: UInt8.self)
    }

    /// Runs EVP_*Final_ex, which writes no byte for GCM (a stream mode) but wants an address to
    /// write to: one block of scratch space, for the length of the call.
    private static func finalBlock(_ call: (UnsafeMutablePointer<UInt8>) -> Int32) -> Bool {
        var scratch = [UInt8](repeating: 0, count: 16)
        return scratch.withUnsafeMutableBufferPointer { call($0.baseAddress!) } == 1
    }
}

/// The one owner of an `EVP_CIPHER_CTX`: made for one message, freed (and wiped by libcrypto,
/// key schedule included) when it goes out of scope; the handle is lent only inside a closure.
private struct CipherContext: ~Copyable {
    private let handle: OpaquePointer

    init() {
        guard let handle = EVP_CIPHER_CTX_new() else { preconditionFailure("EVP_CIPHER_CTX_new failed: out of memory") }
        self.handle = handle
    }

    deinit { EVP_CIPHER_CTX_free(handle) }

    func withHandle<R>(_ body: (OpaquePointer) -> R) -> R { body(handle) }
}
#endif
