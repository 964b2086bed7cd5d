import Foundation
import Testing

/// The reference engine's own tests (engine/test_reference_engine.py: its EXIF walker against
/// exiftool's readings of every fixture, and the contract over HTTP), run with the rest.
@Suite("Reference engine")
struct ReferenceEngineTests {
    @Test func itsOwnPythonTestsPass() throws {
        let (status, text) = try runToEnd(
            "/usr/bin/env", ["python3", "-m", "unittest", "discover", "-s", Fixtures.engineFolder.path])
        #expect(status == 0, "\(text)")
        #expect(text.contains("\nOK"), "\(text)")
    }
}
