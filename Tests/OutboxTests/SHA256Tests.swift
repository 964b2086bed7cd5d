import Foundation
import Testing

@testable import Outbox

@Suite("SHA-256")
struct SHA256Tests {
    /// The FIPS 180-4 examples, which cover the empty message, one block, and a message whose
    /// padding spills into a second block.
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
    ])
    func matchesTheStandardsExamples(message: String, digest: String) {
        #expect(SHA256.hexDigest(of: Data(message.utf8)) == digest)
    }

    @Test(arguments: ["orientation-landscape-1.jpg", "offset-plus0200-pixel8pro-8x8.jpg", "progressive.jpg"])
    func matchesTheCorpusManifest(file: String) throws {
        #expect(SHA256.hexDigest(of: try Fixtures.data(file)) == (try Fixtures.manifestSHA256(file)))
    }
}
