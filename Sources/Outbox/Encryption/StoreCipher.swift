import Foundation

/// How an encrypted outbox seals what it stores: AES-256-GCM with the store's key, a fresh random
/// 96-bit nonce for every value, and associated data that binds each ciphertext to its record's
/// id and its role in it (the intent, or attachment N). A value moved to another record, or to
/// another role, fails to open, and so does any change to any byte of it.
///
/// A sealed value is `OBXSEAL1`, then the nonce, the ciphertext and the 16-byte tag. A sealed
/// media file is `OBXSEAL1` and then one such record per 64 KiB of the file (nonce, ciphertext,
/// tag), each sealed on its own with its position and whether it is the last in its associated
/// data: so a file is sealed and opened a chunk at a time, without a second copy of it in memory,
/// and no chunk can be dropped, repeated, reordered or cut off without the file failing to open.
/// Random nonces stay far from GCM's bound of 2^32 messages per key: a photo is a few dozen chunks.
struct StoreCipher: Sendable, Hashable {
    /// What every sealed value and file starts with: the format and its version.
    static let magic = Array("OBXSEAL1".utf8)
    /// The plaintext bytes in each chunk of a sealed file but the last.
    static let chunkByteCount = 64 * 1024
    /// The bytes one chunk adds: its nonce and its tag.
    static let chunkOverhead = AESGCM.nonceByteCount + AESGCM.tagByteCount
    /// A whole chunk as it is on disk.
    static let sealedChunkByteCount = chunkByteCount + chunkOverhead

    let key: OutboxKey
    /// The store's format (`EncryptionRecord.format`): from 2 on, an intent is bound to its
    /// record's list of files too; a store of format 1 is read the old way until it is upgraded.
    let format: Int64

    init(key: OutboxKey, format: Int64 = EncryptionRecord.format) {
        self.key = key
        self.format = format
    }

    /// What a sealed value is for, which its associated data says.
    enum Role {
        /// The intent column of the record with this id and this `owned_media` list (format 2): a
        /// list changed by hand, to reach a file of another entry or to drop one, fails to open it.
        case intent(id: String, ownedMedia: [MediaFile])
        /// The intent column of the record with this id, as format 1 sealed it (without its list).
        case formatOneIntent(id: String)
        /// The `last_error` column of the record with this id: an engine's answer may quote
        /// anything the request held.
        case lastError(id: String)
        /// The `upload_resources` column of the record with this id: each resource's URL holds
        /// the engine's token for appending to that upload.
        case uploadResources(id: String)
        /// The value whose opening proves the key is the store's (`outbox_encryption`).
        case keyCheck
    }

    /// The role of the intent of record `id` owning `ownedMedia`, in this store's format.
    func intentRole(id: String, ownedMedia: [MediaFile]) -> Role {
        format >= 2 ? .intent(id: id, ownedMedia: ownedMedia) : .formatOneIntent(id: id)
    }

    static func == (lhs: StoreCipher, rhs: StoreCipher) -> Bool { lhs.key.bytes == rhs.key.bytes }
    /// Hashes nothing of the key: equal ciphers hash alike, and no key reaches a hash table.
    func hash(into hasher: inout Hasher) {}

    /// Whether `bytes` start as a sealed value or file does.
    static func isSealed(_ bytes: Data) -> Bool { bytes.starts(with: magic) }

    // MARK: Values

    /// `plaintext` sealed for `role`.
    func seal(_ plaintext: Data, for role: Role) -> Data {
        var sealed = Data(Self.magic)
        sealed.append(contentsOf: sealChunk(plaintext, associatedData: Self.associatedData(role)))
        return sealed
    }

    /// The plaintext of a value sealed for `role`, or nil when it does not open: another key,
    /// another record or role, or any byte changed.
    func open(_ sealed: Data, for role: Role) -> Data? {
        guard Self.isSealed(sealed), sealed.count >= Self.magic.count + Self.chunkOverhead else { return nil }
        return openChunk(sealed.dropFirst(Self.magic.count), associatedData: Self.associatedData(role))
    }

    // MARK: Files

    /// The size of the sealed file of `plaintextCount` bytes.
    static func sealedFileSize(plaintextCount: Int) -> Int {
        let chunks = max(1, (plaintextCount + chunkByteCount - 1) / chunkByteCount)
        return magic.count + plaintextCount + chunks * chunkOverhead
    }

    /// The size of the plaintext a sealed file of `sealedCount` bytes holds; nil when no sealed
    /// file has that size.
    static func plaintextSize(ofSealedFileSize sealedCount: Int) -> Int? {
        let body = sealedCount - magic.count
        guard body >= chunkOverhead else { return nil }
        let chunks = (body + sealedChunkByteCount - 1) / sealedChunkByteCount
        let last = body - (chunks - 1) * sealedChunkByteCount
        guard last >= chunkOverhead else { return nil }
        return body - chunks * chunkOverhead
    }

    /// Seals `plaintext` as the file of attachment `index` of record `id`, handing `write` the
    /// file's bytes a chunk at a time (the magic first); stops at the first failure `write` returns.
    func sealFile<Failure>(
        _ plaintext: Data, id: String, index: Int, write: (UnsafeRawBufferPointer) -> Failure?
    ) -> Failure? {
        if let failure = Self.magic.withUnsafeBytes(write) { return failure }
        let chunks = max(1, (plaintext.count + Self.chunkByteCount - 1) / Self.chunkByteCount)
        for chunk in 0..<chunks {
            let start = plaintext.startIndex + chunk * Self.chunkByteCount
            let piece = plaintext[start..<min(start + Self.chunkByteCount, plaintext.endIndex)]
            let associatedData = Self.mediaAssociatedData(
                id: id, index: index, chunk: chunk, isLast: chunk == chunks - 1)
            if let failure = sealChunk(piece, associatedData: associatedData).withUnsafeBytes(write) { return failure }
        }
        return nil
    }

    /// Opens chunk `chunk` of the sealed file of attachment `index` of record `id` into
    /// `plaintext` (exactly its size); false when it does not open.
    func openFileChunk(
        _ sealedChunk: UnsafeRawBufferPointer, id: String, index: Int, chunk: Int, isLast: Bool,
        into plaintext: UnsafeMutableRawBufferPointer
    ) -> Bool {
        guard sealedChunk.count == plaintext.count + Self.chunkOverhead else { return false }
        let associatedData = Self.mediaAssociatedData(id: id, index: index, chunk: chunk, isLast: isLast)
        return Self.open(sealedChunk, key: key, associatedData: associatedData, into: plaintext)
    }

    // MARK: Chunks

    /// A fresh nonce, then `plaintext` encrypted, then the tag.
    private func sealChunk(_ plaintext: some ContiguousBytes, associatedData: [UInt8]) -> [UInt8] {
        let nonce = Cryptography.randomBytes(AESGCM.nonceByteCount)
        return plaintext.withUnsafeBytes { plain in
            var sealed = [UInt8](repeating: 0, count: plain.count + Self.chunkOverhead)
            sealed.withUnsafeMutableBytes { output in
                nonce.withUnsafeBytes { output.copyMemory(from: $0) }
                key.bytes.withUnsafeBytes { key in
                    nonce.withUnsafeBytes { nonce in
                        associatedData.withUnsafeBytes { associatedData in
                            let body = UnsafeMutableRawBufferPointer(
                                rebasing: output[AESGCM.nonceByteCount..<(AESGCM.nonceByteCount + plain.count)])
                            let tag = UnsafeMutableRawBufferPointer(
                                rebasing: output[(output.count - AESGCM.tagByteCount)...])
                            Cryptography.sealAES256GCM(
                                key: key, nonce: nonce, associatedData: associatedData, plaintext: plain,
                                ciphertext: body, tag: tag)
                        }
                    }
                }
            }
            return sealed
        }
    }

    private func openChunk(_ sealed: Data, associatedData: [UInt8]) -> Data? {
        var plaintext = Data(count: sealed.count - Self.chunkOverhead)
        let isAuthentic = sealed.withUnsafeBytes { input in
            plaintext.withUnsafeMutableBytes { output in
                Self.open(input, key: key, associatedData: associatedData, into: output)
            }
        }
        return isAuthentic ? plaintext : nil
    }

    /// Opens one nonce-ciphertext-tag record whose plaintext is `plaintext`'s size.
    private static func open(
        _ sealed: UnsafeRawBufferPointer, key: OutboxKey, associatedData: [UInt8],
        into plaintext: UnsafeMutableRawBufferPointer
    ) -> Bool {
        let nonce = UnsafeRawBufferPointer(rebasing: sealed[..<AESGCM.nonceByteCount])
        let body = UnsafeRawBufferPointer(
            rebasing: sealed[AESGCM.nonceByteCount..<(sealed.count - AESGCM.tagByteCount)])
        let tag = UnsafeRawBufferPointer(rebasing: sealed[(sealed.count - AESGCM.tagByteCount)...])
        return key.bytes.withUnsafeBytes { key in
            associatedData.withUnsafeBytes { associatedData in
                Cryptography.openAES256GCM(
                    key: key, nonce: nonce, associatedData: associatedData, ciphertext: body, tag: tag,
                    plaintext: plaintext)
            }
        }
    }

    // MARK: Associated data

    /// The magic, the role's name and what it is about, NUL-separated (no id holds a NUL, and a
    /// media list is JSON, which holds none either).
    private static func associatedData(_ role: Role) -> [UInt8] {
        switch role {
        case .intent(let id, let ownedMedia):
            magic + Array("intent-and-media\0\(id)\0\(StoredRecord.encodeMediaList(ownedMedia))".utf8)
        case .formatOneIntent(let id): magic + Array("intent\0\(id)".utf8)
        case .lastError(let id): magic + Array("last-error\0\(id)".utf8)
        case .uploadResources(let id): magic + Array("upload-resources\0\(id)".utf8)
        case .keyCheck: magic + Array("key-check".utf8)
        }
    }

    /// The magic, "media", the record's id, the attachment's index, then the chunk's position as
    /// eight bytes big-endian and 1 for the last chunk (0 otherwise).
    private static func mediaAssociatedData(id: String, index: Int, chunk: Int, isLast: Bool) -> [UInt8] {
        var bytes = magic + Array("media\0\(id)\0\(index)\0".utf8)
        bytes += withUnsafeBytes(of: UInt64(chunk).bigEndian, Array.init)
        bytes.append(isLast ? 1 : 0)
        return bytes
    }
}

/// What opens one media file of an encrypted outbox: the store's cipher, and the record and
/// attachment the file belongs to.
struct MediaSeal: Sendable, Hashable {
    let cipher: StoreCipher
    /// The record's id.
    let id: String
    /// The attachment's index.
    let index: Int
}
