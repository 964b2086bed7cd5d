import Foundation
import Testing

/// The reference engine's own tests (engine/test_reference_engine.py: its EXIF walker against
/// exiftool's readings of every fixture, and the contract over HTTP), run with the rest.
@Suite("Reference engine")
struct ReferenceEngineTests {
    @Test func itsOwnPythonTestsPass() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-m", "unittest", "discover", "-s", Fixtures.engineFolder.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(text)")
        #expect(text.contains("\nOK"), "\(text)")
    }
}
