import Foundation
import Testing

@testable import Outbox

/// The sealed formats of `StoreCipher`: values bound to their record and role, and media files
/// sealed and opened a 64 KiB chunk at a time, which fail to open after any change.
@Suite("Sealed values and files")
struct SealedFileTests {
    let cipher = StoreCipher(key: .generate())

    @Test func aValueOpensOnlyForItsOwnRecordAndRole() throws {
        let intent = Data(#"{"note":"front gate"}"#.utf8)
        let files = [MediaFile(index: 0, name: "plate-1.0.abc.sealed")]
        let sealed = cipher.seal(intent, for: .intent(id: "plate-1", ownedMedia: files))
        #expect(StoreCipher.isSealed(sealed))
        #expect(sealed.range(of: Data("front gate".utf8)) == nil)
        #expect(cipher.open(sealed, for: .intent(id: "plate-1", ownedMedia: files)) == intent)
        #expect(cipher.open(sealed, for: .intent(id: "plate-2", ownedMedia: files)) == nil, "moved to another record")
        #expect(cipher.open(sealed, for: .keyCheck) == nil, "used in another role")
        #expect(cipher.open(sealed, for: .lastError(id: "plate-1")) == nil, "used in another role")
        let otherFiles = files + [MediaFile(index: 1, name: "plate-1.1.def.sealed")]
        #expect(cipher.open(sealed, for: .intent(id: "plate-1", ownedMedia: otherFiles)) == nil, "another list")
        #expect(cipher.open(sealed, for: .intent(id: "plate-1", ownedMedia: [])) == nil, "a list emptied")
        #expect(
            StoreCipher(key: .generate()).open(sealed, for: .intent(id: "plate-1", ownedMedia: files)) == nil,
            "another key")
        for position in [0, 8, 20, sealed.count - 1] {
            var changed = sealed
            changed[position] ^= 0x40
            #expect(
                cipher.open(changed, for: .intent(id: "plate-1", ownedMedia: files)) == nil, "byte \(position) flipped")
        }
    }

    @Test func everySealGetsAFreshNonce() {
        let first = cipher.seal(Data("same".utf8), for: .intent(id: "a", ownedMedia: []))
        let second = cipher.seal(Data("same".utf8), for: .intent(id: "a", ownedMedia: []))
        #expect(first != second)
        #expect(first.prefix(20) != second.prefix(20))
    }

    /// Around every chunk boundary, and empty: the file opens to the same bytes, and its size is
    /// what the arithmetic says.
    @Test(arguments: [0, 1, 65_535, 65_536, 65_537, 3 * 65_536, 200_001])
    func aFileOpensToTheBytesItWasSealedFrom(size: Int) async throws {
        try await withTemporaryFolder { folder in
            let media = try MediaFolder(url: folder)
            let bytes = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
            let seal = MediaSeal(cipher: cipher, id: "plate-1", index: 0)
            try media.write(bytes, named: "f.sealed", sealedWith: seal)
            let sealedSize = try Data(contentsOf: media.fileURL("f.sealed")).count
            #expect(sealedSize == StoreCipher.sealedFileSize(plaintextCount: size))
            #expect(StoreCipher.plaintextSize(ofSealedFileSize: sealedSize) == size)
            #expect(try media.contents(of: "f.sealed", atMost: .max, openedWith: seal).get() == bytes)
        }
    }

    @Test func aFileOpensOnlyAsItsOwnRecordsAttachment() async throws {
        try await withTemporaryFolder { folder in
            let media = try MediaFolder(url: folder)
            try media.write(Data(count: 1000), named: "f", sealedWith: MediaSeal(cipher: cipher, id: "a", index: 0))
            for other in [
                MediaSeal(cipher: cipher, id: "b", index: 0), MediaSeal(cipher: cipher, id: "a", index: 1),
                MediaSeal(cipher: StoreCipher(key: .generate()), id: "a", index: 0),
            ] {
                #expect(media.contents(of: "f", atMost: .max, openedWith: other) == .failure(.failsAuthentication))
            }
        }
    }

    /// A flipped byte anywhere, a chunk cut off at a boundary (so that the one before looks last),
    /// two chunks swapped, a chunk repeated, the end cut short: none opens, and nothing is returned.
    @Test(arguments: [
        "flip header", "flip nonce", "flip body", "flip tag", "cut last chunk", "swap chunks", "repeat chunk",
        "cut short",
    ])
    func aChangedFileDoesNotOpen(change: String) async throws {
        try await withTemporaryFolder { folder in
            let media = try MediaFolder(url: folder)
            let seal = MediaSeal(cipher: cipher, id: "plate-1", index: 0)
            try media.write(Data(count: 3 * 65_536), named: "f", sealedWith: seal)
            var file = try Data(contentsOf: media.fileURL("f"))
            let header = StoreCipher.magic.count
            let chunk = StoreCipher.sealedChunkByteCount
            switch change {
            case "flip header": file[2] ^= 1
            case "flip nonce": file[header + 3] ^= 1
            case "flip body": file[header + chunk + 500] ^= 1
            case "flip tag": file[file.count - 1] ^= 1
            case "cut last chunk": file = file.prefix(header + 2 * chunk)
            case "swap chunks":
                let first = file[header..<(header + chunk)]
                let second = file[(header + chunk)..<(header + 2 * chunk)]
                file.replaceSubrange(header..<(header + 2 * chunk), with: second + first)
            case "repeat chunk":
                file.replaceSubrange((header + chunk)..<(header + 2 * chunk), with: file[header..<(header + chunk)])
            default: file = file.dropLast(5)
            }
            try file.write(to: media.fileURL("f"))
            #expect(media.contents(of: "f", atMost: .max, openedWith: seal) == .failure(.failsAuthentication))
        }
    }

    @Test func theSizesOfNoSealedFileAreRefused() {
        #expect(StoreCipher.plaintextSize(ofSealedFileSize: 0) == nil)
        #expect(StoreCipher.plaintextSize(ofSealedFileSize: StoreCipher.magic.count + 27) == nil)
        #expect(StoreCipher.plaintextSize(ofSealedFileSize: StoreCipher.magic.count + 28) == 0)
        // One whole chunk and then fewer bytes than a chunk's nonce and tag.
        #expect(
            StoreCipher.plaintextSize(ofSealedFileSize: StoreCipher.magic.count + StoreCipher.sealedChunkByteCount + 10)
                == nil)
    }
}
