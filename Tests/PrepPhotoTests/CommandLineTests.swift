import Foundation
import Testing

@Suite("prep-photo on the command line")
struct CommandLineTests {
    @Test("--version names the tool and exits 0")
    func version() throws {
        let result = try PrepPhotoRunner.run(["--version"])
        #expect(result.status == 0)
        #expect(result.standardOutput.hasPrefix("prep-photo "))
    }
}
