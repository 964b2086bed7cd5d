import Foundation
import Testing

@testable import ImagePrep

/// exiftool, run on bytes through its standard input.
enum Exiftool {
    static func run(_ arguments: [String], input: Data) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["exiftool"] + arguments
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Written from another thread, so that a large output cannot block both sides.
        let writer = Thread {
            stdin.fileHandleForWriting.write(input)
            try? stdin.fileHandleForWriting.close()
        }
        writer.start()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ImagePrepError.unreadable(file: "exiftool", reason: "exit status \(process.terminationStatus)")
        }
        return output
    }

    /// Every tag, as `Group1:Name` with raw values (`-n`).
    static func tags(of file: Data) throws -> [String: Any] {
        let json = try run(["-j", "-n", "-a", "-G1", "-"], input: file)
        let objects = try #require(try JSONSerialization.jsonObject(with: json) as? [[String: Any]])
        return try #require(objects.first)
    }
}
