import Foundation
import Testing

@testable import Outbox

/// The outbox's cryptography, through its one interface (`Cryptography`: libcrypto on Linux,
/// CryptoKit on Apple platforms), against published known answers.
@Suite("Cryptography")
struct CryptographyTests {
    /// The FIPS 180-4 examples (NIST's "SHA-256 examples"): the empty message, one block, a
    /// message whose padding spills into a second block, and a million 'a's.
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
        (String(repeating: "a", count: 1_000_000), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"),
    ])
    func sha256MatchesTheStandardsExamples(message: String, digest: String) {
        #expect(Cryptography.sha256Hex(of: Data(message.utf8)) == digest)
    }

    @Test(arguments: ["orientation-landscape-1.jpg", "offset-plus0200-pixel8pro-8x8.jpg", "progressive.jpg"])
    func sha256MatchesTheCorpusManifest(file: String) throws {
        #expect(Cryptography.sha256Hex(of: try Fixtures.data("corpus/" + file)) == (try Fixtures.manifestSHA256(file)))
    }

    /// One AES-256-GCM known answer: key, nonce, associated data, plaintext, ciphertext and tag in hex.
    struct GCMVector: Sendable, CustomTestStringConvertible {
        var name: String
        var key: String
        var nonce: String
        var associatedData: String
        var plaintext: String
        var ciphertext: String
        var tag: String
        var testDescription: String { name }
    }

    /// The AES-256 test cases 13 to 16 of McGrew and Viega's "The Galois/Counter Mode of
    /// Operation (GCM)", the specification NIST SP 800-38D adopted (the vectors NIST publishes
    /// with it): no data at all, one zero block, four blocks, and a partial block with
    /// associated data.
    static let gcmVectors = [
        GCMVector(
            name: "test case 13", key: String(repeating: "00", count: 32), nonce: String(repeating: "00", count: 12),
            associatedData: "", plaintext: "", ciphertext: "", tag: "530f8afbc74536b9a963b4f1c4cb738b"),
        GCMVector(
            name: "test case 14", key: String(repeating: "00", count: 32), nonce: String(repeating: "00", count: 12),
            associatedData: "", plaintext: String(repeating: "00", count: 16),
            ciphertext: "cea7403d4d606b6e074ec5d3baf39d18", tag: "d0d1c8a799996bf0265b98b5d48ab919"),
        GCMVector(
            name: "test case 15", key: "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308",
            nonce: "cafebabefacedbaddecaf888", associatedData: "",
            plaintext:
                "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255",
            ciphertext:
                "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662898015ad",
            tag: "b094dac5d93471bdec1a502270e3cc6c"),
        GCMVector(
            name: "test case 16", key: "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308",
            nonce: "cafebabefacedbaddecaf888", associatedData: "feedfacedeadbeeffeedfacedeadbeefabaddad2",
            plaintext:
                "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39",
            ciphertext:
                "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662",
            tag: "76fc6ece0f4e1768cddf8853bb2d551b"),
    ]

    @Test(arguments: gcmVectors)
    func aes256GCMSealsToTheKnownAnswer(vector: GCMVector) {
        let (ciphertext, tag) = seal(vector)
        #expect(hex(ciphertext) == vector.ciphertext)
        #expect(hex(tag) == vector.tag)
    }

    @Test(arguments: gcmVectors)
    func aes256GCMOpensTheKnownAnswer(vector: GCMVector) {
        #expect(open(vector).map(hex) == vector.plaintext)
    }

    /// Any change to what the tag covers fails authentication, and the output holds no byte of
    /// the unauthenticated plaintext afterwards.
    @Test(arguments: ["key", "nonce", "associated data", "ciphertext", "tag"])
    func aes256GCMRefusesAnyChangeAndLeavesNothingDecrypted(changed part: String) throws {
        var vector = try #require(Self.gcmVectors.last)
        let field: WritableKeyPath<GCMVector, String> =
            switch part {
            case "key": \.key
            case "nonce": \.nonce
            case "associated data": \.associatedData
            case "ciphertext": \.ciphertext
            default: \.tag
            }
        let original = bytes(vector[keyPath: field])
        vector[keyPath: field] = hex([original[0] ^ 0x01] + original.dropFirst())
        var output = [UInt8](repeating: 0xAA, count: bytes(vector.ciphertext).count)
        let opened = openInto(vector, &output)
        #expect(!opened)
        #expect(output.allSatisfy { $0 == 0 }, "a failed open leaves zeros, not unauthenticated plaintext")
    }

    @Test func randomBytesAreNotRepeated() {
        let draws = (0..<64).map { _ in Cryptography.randomBytes(12) }
        #expect(Set(draws).count == draws.count)
        #expect(draws.allSatisfy { $0.count == 12 })
    }

    // MARK: Helpers

    private func seal(_ vector: GCMVector) -> (ciphertext: [UInt8], tag: [UInt8]) {
        let plaintext = bytes(vector.plaintext)
        var ciphertext = [UInt8](repeating: 0, count: plaintext.count)
        var tag = [UInt8](repeating: 0, count: 16)
        bytes(vector.key).withUnsafeBytes { key in
            bytes(vector.nonce).withUnsafeBytes { nonce in
                bytes(vector.associatedData).withUnsafeBytes { associatedData in
                    plaintext.withUnsafeBytes { plain in
                        ciphertext.withUnsafeMutableBytes { output in
                            tag.withUnsafeMutableBytes { tagOutput in
                                Cryptography.sealAES256GCM(
                                    key: key, nonce: nonce, associatedData: associatedData, plaintext: plain,
                                    ciphertext: output, tag: tagOutput)
                            }
                        }
                    }
                }
            }
        }
        return (ciphertext, tag)
    }

    private func open(_ vector: GCMVector) -> [UInt8]? {
        var output = [UInt8](repeating: 0, count: bytes(vector.ciphertext).count)
        return openInto(vector, &output) ? output : nil
    }

    private func openInto(_ vector: GCMVector, _ output: inout [UInt8]) -> Bool {
        bytes(vector.key).withUnsafeBytes { key in
            bytes(vector.nonce).withUnsafeBytes { nonce in
                bytes(vector.associatedData).withUnsafeBytes { associatedData in
                    bytes(vector.ciphertext).withUnsafeBytes { ciphertext in
                        bytes(vector.tag).withUnsafeBytes { tag in
                            output.withUnsafeMutableBytes { plaintext in
                                Cryptography.openAES256GCM(
                                    key: key, nonce: nonce, associatedData: associatedData, ciphertext: ciphertext,
                                    tag: tag, plaintext: plaintext)
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The bytes hexadecimal digits stand for.
func bytes(_ hex: String) -> [UInt8] {
    let digits = Array(hex.utf8)
    return stride(from: 0, to: digits.count, by: 2).map {
        UInt8(String(decoding: digits[$0..<($0 + 2)], as: UTF8.self), radix: 16)!
    }
}

/// Bytes as lowercase hexadecimal digits.
func hex(_ bytes: some Sequence<UInt8>) -> String {
    bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
}
