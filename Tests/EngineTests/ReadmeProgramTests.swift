import Foundation
import Testing

/// The README's first ```swift block is a whole program, as an app developer would write one:
/// this builds it in a scratch package that depends on this package by path, as a dependent
/// app's would (Swift 6 mode, no warnings allowed), and runs it against the reference engine.
@Suite("README program")
struct ReadmeProgramTests {
    /// The README's first ```swift block.
    static func program() throws -> String {
        let readme = try String(
            contentsOf: PlatformFileTests.repository.appendingPathComponent("README.md"), encoding: .utf8)
        let start = try #require(readme.range(of: "```swift\n"), "the README has a swift block")
        let end = try #require(readme.range(of: "\n```", range: start.upperBound..<readme.endIndex))
        return String(readme[start.upperBound..<end.lowerBound]) + "\n"
    }

    /// A package with one executable, `capture-app`, whose only file is the README's program.
    static func makeScratchPackage(in folder: URL) throws {
        let repository = PlatformFileTests.repository
        // A path dependency's identity is its folder's name.
        let identity = repository.lastPathComponent.lowercased()
        let manifest = """
            // swift-tools-version: 6.2
            import PackageDescription

            let package = Package(
                name: "capture-app",
                platforms: [.macOS(.v15), .iOS(.v18)],
                dependencies: [.package(path: \(String(reflecting: repository.path)))],
                targets: [
                    .executableTarget(
                        name: "capture-app",
                        dependencies: [
                            .product(name: "ImagePrep", package: "\(identity)"),
                            .product(name: "Outbox", package: "\(identity)"),
                            .product(name: "PhotoCapture", package: "\(identity)"),
                        ])
                ],
                swiftLanguageModes: [.v6]
            )

            """
        let sources = folder.appendingPathComponent("Sources/capture-app")
        try FileManager.default.createDirectory(at: sources, withIntermediateDirectories: true)
        try Data(manifest.utf8).write(to: folder.appendingPathComponent("Package.swift"))
        try Data(try program().utf8).write(to: sources.appendingPathComponent("CaptureApp.swift"))
    }

    @Test(.timeLimit(.minutes(20)))
    func theFirstSwiftBlockBuildsAsAWholeProgramAndRuns() async throws {
        try await withTemporaryFolder { folder in
            let package = folder.appendingPathComponent("capture-app")
            try Self.makeScratchPackage(in: package)
            // A debug build, as `swift run` and Xcode build a dependency; at the lowest priority,
            // so that a minute of compiling does not starve the suite's timing-sensitive tests.
            let (status, log) = try runToEnd("/usr/bin/env", ["nice", "-n", "19", "swift", "build"], in: package)
            #expect(status == 0, "\(log)")
            let warnings = log.split(separator: "\n").filter { $0.contains("warning:") }
            #expect(warnings.isEmpty, "\(warnings.joined(separator: "\n"))")
            guard status == 0 else { return }

            let engine = try ReferenceEngine(dataFolder: folder.appendingPathComponent("engine"))
            let app = package.appendingPathComponent(".build/debug/capture-app").path
            let photo = Fixtures.corpus.appendingPathComponent("gps-south-east-australia.jpg").path
            let (ran, output) = try runToEnd(
                app, [photo, engine.url.absoluteString, folder.appendingPathComponent("outbox").path], in: package)
            #expect(ran == 0, "\(output)")
            let lines = output.split(separator: "\n").map(String.init)
            #expect(lines.first?.hasPrefix("Taken ") == true, "\(output)")
            #expect(lines.contains { $0.hasPrefix("At -38.40519") }, "\(output)")
            #expect(
                lines.contains { $0.hasSuffix("is at the engine; its photo is gone from this device") }, "\(output)")
            let state = try await engine.state()
            #expect(state.records.count == 1)
            #expect(state.records.first?.note == "gate left open")

            let (_, refused) = try runToEnd(app, ["/no/such/photo.jpg"], in: package)
            #expect(refused == "Not prepared: '/no/such/photo.jpg' could not be read: No such file or directory.\n")
        }
    }
}
