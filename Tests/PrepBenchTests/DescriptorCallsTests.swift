import Foundation
import Testing

@testable import prep_bench

/// The platform layer's descriptor calls that the spawn helper and the commands' terminal use,
/// on real pipes and children.
@Suite struct DescriptorCallsTests {
    /// Whether `descriptor` is closed in a command this process starts.
    func isCloseOnExec(_ descriptor: Int32) -> Bool { fcntl(descriptor, F_GETFD) & FD_CLOEXEC != 0 }

    /// Reads until the end of the pipe.
    func readAll(_ descriptor: Int32) throws -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 256)
        while true {
            let count = try chunk.withUnsafeMutableBytes { try FileCalls.readSome(descriptor, into: $0, path: "pipe") }
            if count == 0 { return bytes }
            bytes += chunk[..<count]
        }
    }

    @Test func aPipeCarriesBytesAndNeitherEndOutlivesAnExec() throws {
        let pipe = try DescriptorCalls.makePipe()
        defer { _ = Platform.close(pipe.reading) }
        #expect(isCloseOnExec(pipe.reading) && isCloseOnExec(pipe.writing))
        #expect(!DescriptorCalls.isTerminal(pipe.writing))
        try Array("line\n".utf8).withUnsafeBytes { try FileCalls.writeAll($0, to: pipe.writing, path: "pipe") }
        _ = Platform.close(pipe.writing)
        #expect(try readAll(pipe.reading) == Array("line\n".utf8))
    }

    @Test func aChildWritesIntoThePipeItWasGivenAsStdout() throws {
        let pipe = try DescriptorCalls.makePipe()
        defer { _ = Platform.close(pipe.reading) }
        let child = try ChildProcess.start(
            ["/bin/sh", "-c", "echo from the child"], searchesPath: false,
            environment: ProcessInfo.processInfo.environment, streams: [1: .descriptor(pipe.writing)])
        _ = Platform.close(pipe.writing)
        #expect(try readAll(pipe.reading) == Array("from the child\n".utf8), "and no other writer held the pipe open")
        let ending = try child.wait(command: "sh")
        #expect(ending.exitedNormally && ending.exitCode == 0)
    }

    @Test func aCopyIsNumberedAtLeastAsAskedAndCloseOnExec() throws {
        let pipe = try DescriptorCalls.makePipe()
        defer { for end in [pipe.reading, pipe.writing] { _ = Platform.close(end) } }
        let copy = try #require(DescriptorCalls.copy(of: pipe.writing, atLeast: 40))
        defer { _ = Platform.close(copy) }
        #expect(copy >= 40)
        #expect(isCloseOnExec(copy))
        #expect(DescriptorCalls.copy(of: -1, atLeast: 3) == nil)
    }

    @Test func aDescriptorPointedAtNullNoLongerWritesIntoItsPipe() throws {
        let pipe = try DescriptorCalls.makePipe()
        defer { _ = Platform.close(pipe.reading) }
        let copy = try #require(DescriptorCalls.copy(of: pipe.writing, atLeast: 40))
        _ = Platform.close(pipe.writing)
        DescriptorCalls.pointAtNull([copy])
        try Array("gone".utf8).withUnsafeBytes { try FileCalls.writeAll($0, to: copy, path: "null") }
        _ = Platform.close(copy)
        #expect(try readAll(pipe.reading) == [], "the pipe's last writer was replaced by /dev/null")
    }

    @Test func createOrEmptyEmptiesALeftoverAndCreatesAMissingFile() throws {
        let path = NSTemporaryDirectory() + "DescriptorCallsTests-\(UUID().uuidString).tmp"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(repeating: 7, count: 5000).write(to: URL(fileURLWithPath: path))
        let descriptor = try FileCalls.createOrEmpty(path, permissions: 0o644)
        try Array("ab".utf8).withUnsafeBytes { try FileCalls.writeAll($0, to: descriptor, path: path) }
        try FileCalls.close(descriptor, path: path)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data("ab".utf8))

        let missingFolder = path + ".missing/file"
        #expect(throws: SystemError(operation: "open", path: missingFolder, code: ENOENT)) {
            try FileCalls.createOrEmpty(missingFolder, permissions: 0o644)
        }
    }
}
