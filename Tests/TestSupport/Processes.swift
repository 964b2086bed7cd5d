import Foundation

/// Runs a command to its end: its status, and its output with both streams together.
///
/// - Parameter environment: The command's environment; the test process's own when nil.
public func runToEnd(
    _ executable: String, _ arguments: [String], in folder: URL? = nil, environment: [String: String]? = nil
) throws -> (Int32, String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.currentDirectoryURL = folder
    if let environment { process.environment = environment }
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    try process.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return (process.terminationStatus, text)
}
