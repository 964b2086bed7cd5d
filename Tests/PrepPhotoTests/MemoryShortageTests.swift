import Foundation
import Testing

/// A photo the process has no memory for fails alone, with the system's reason, and the batch goes
/// on; before, an allocation that failed stopped the process with a trap.
@Suite("prep-photo without the memory a photo needs")
struct PrepPhotoMemoryShortageTests {
    @Test("under a 700 MB address-space limit, a 1000 MB file fails with its reason and the other photo is prepared")
    func photoWithoutMemoryFailsAlone() throws {
        try TemporaryFolder.with { folder in
            // Sparse: it takes no disk, but reading it needs 1000 MB of memory, below the 1 GiB a photo may be.
            try #require(FileManager.default.createFile(atPath: folder.path("big.jpg"), contents: nil))
            let handle = try FileHandle(forWritingTo: folder.url.appendingPathComponent("big.jpg"))
            try handle.truncate(atOffset: 1000 << 20)
            try handle.close()
            try folder.copy("corpus/phone-orientation6-samsung-j3.jpg", to: "phone.jpg")
            let result = try PrepPhotoRunner.run(
                ["--out", folder.path("out"), "-j", "1", folder.path("big.jpg"), folder.path("phone.jpg")],
                launch: .memoryLimit(700 << 20), timeLimit: .seconds(120))
            #expect(result.status == 1, "\(result.standardError)")
            #expect(
                result.standardError.contains(
                    "error: '\(folder.path("big.jpg"))' could not be read: Cannot allocate memory."),
                "\(result.standardError)")
            #expect(FileManager.default.fileExists(atPath: folder.path("out/phone.jpg")))
            #expect(!FileManager.default.fileExists(atPath: folder.path("out/big.jpg")))
        }
    }
}
