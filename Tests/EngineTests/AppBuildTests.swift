import Foundation
import Testing

/// The package as an app depends on it: a scratch package that depends on this one by path,
/// Swift 6 mode, built in one `swift build` with
/// - `capture-app`: the README's first ```swift block, a whole program;
/// - `view-model-app`: a main-actor view model (`Tests/Fixtures/app`), warnings as errors;
/// - `doc-blocks`: every other ```swift block of the README and docs/, each compiled as the
///   comment above it says (`DocBlock.Form`).
/// Then both programs run against the reference engine.
@Suite("The package as an app builds it")
struct AppBuildTests {
    /// How a ```swift block of the docs is compiled, from the HTML comment on the line above it.
    enum DocBlockForm: Equatable {
        /// The README's first block: the `capture-app` program itself.
        case program
        /// `<!-- swift: function(NAME: TYPE, …) -->`: the body of a main-actor async throwing
        /// function with those parameters, for a fragment that uses values of the app's own.
        case function(parameters: String)
        /// `<!-- swift: SwiftUI -->`: declarations beside the README program (its `QueueModel`),
        /// compiled where SwiftUI exists; Linux has none.
        case swiftUI
    }

    struct DocBlock {
        let file: String
        let line: Int
        let form: DocBlockForm
        let code: String
    }

    /// Every ```swift block of README.md and docs/*.md; a block without a form is an error.
    static func docBlocks() throws -> [DocBlock] {
        var blocks: [DocBlock] = []
        for page in try DocPages.all() {
            for block in try DocPages.blocks(of: page) where block.info == "swift" {
                let form: DocBlockForm
                if page == "README.md" && blocks.isEmpty {
                    form = .program
                } else if block.above == "<!-- swift: SwiftUI -->" {
                    form = .swiftUI
                } else if block.above.hasPrefix("<!-- swift: function("), block.above.hasSuffix(") -->") {
                    form = .function(parameters: String(block.above.dropFirst(21).dropLast(5)))
                } else {
                    Issue.record(
                        "\(page):\(block.line): a swift block needs `<!-- swift: function(…) -->` or `<!-- swift: SwiftUI -->` above it"
                    )
                    continue
                }
                blocks.append(
                    DocBlock(file: page, line: block.line, form: form, code: block.lines.joined(separator: "\n")))
            }
        }
        return blocks
    }

    /// One fragment as a file: its imports first, then its lines as a function's body.
    static func functionFile(_ block: DocBlock, parameters: String, number: Int) -> String {
        let lines = block.code.components(separatedBy: "\n")
        let imports = Set(
            lines.filter { $0.hasPrefix("import ") } + [
                "import Foundation", "import ImagePrep", "import Outbox", "import PhotoCapture",
            ])
        let body = lines.filter { !$0.hasPrefix("import ") }.map { "    " + $0 }.joined(separator: "\n")
        return imports.sorted().joined(separator: "\n") + """


            // \(block.file):\(block.line)
            @MainActor func docBlock\(number)(\(parameters)) async throws {
            \(body)
            }

            """
    }

    /// The scratch package: the three targets, with the app's files and the docs' blocks.
    static func makeScratchPackage(in folder: URL) throws {
        let repository = PlatformFileTests.repository
        // A path dependency's identity is its folder's name.
        let identity = repository.lastPathComponent.lowercased()
        let products = ["ImagePrep", "Outbox", "PhotoCapture"].map {
            ".product(name: \"\($0)\", package: \"\(identity)\")"
        }.joined(separator: ", ")
        let manifest = """
            // swift-tools-version: 6.2
            import PackageDescription

            let package = Package(
                name: "capture-app",
                // The README program's `@Observable` needs macOS 14 / iOS 17; the package needs less.
                platforms: [.macOS(.v14), .iOS(.v17)],
                dependencies: [.package(path: \(String(reflecting: repository.path)))],
                targets: [
                    .executableTarget(name: "capture-app", dependencies: [\(products)]),
                    .executableTarget(
                        name: "view-model-app", dependencies: [\(products)],
                        swiftSettings: [.unsafeFlags(["-warnings-as-errors"])]),
                    .target(name: "doc-blocks", dependencies: [\(products)]),
                ],
                swiftLanguageModes: [.v6]
            )

            """
        try Data(manifest.utf8).write(to: folder.appendingPathComponent("Package.swift"))
        func write(_ text: String, to path: String) throws {
            let url = folder.appendingPathComponent("Sources/" + path)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        for name in ["CaptureViewModel.swift", "main.swift"] {
            try write(
                String(contentsOf: Fixtures.root.appendingPathComponent("app/" + name), encoding: .utf8),
                to: "view-model-app/" + name)
        }
        // What fragments name without declaring: the app's own types.
        try write(
            """
            /// A note edit, as the docs' fragments queue it.
            struct NoteEdit: Codable, Sendable { var text: String }

            """, to: "doc-blocks/AppTypes.swift")
        for (number, block) in try docBlocks().enumerated() {
            switch block.form {
            case .program:
                try write(block.code + "\n", to: "capture-app/CaptureApp.swift")
            case .swiftUI:
                try write(
                    "#if canImport(SwiftUI)\nimport SwiftUI\nimport Outbox\n\n// \(block.file):\(block.line)\n\(block.code)\n#endif\n",
                    to: "capture-app/DocBlock\(number).swift")
            case .function(let parameters):
                try write(
                    functionFile(block, parameters: parameters, number: number),
                    to: "doc-blocks/DocBlock\(number).swift")
            }
        }
    }

    @Test(.timeLimit(.minutes(20)))
    func theReadmeProgramTheViewModelAndEveryDocBlockBuildAndTheProgramsRun() async throws {
        try await withTemporaryFolder { folder in
            let package = folder.appendingPathComponent("capture-app")
            try FileManager.default.createDirectory(at: package, withIntermediateDirectories: true)
            try Self.makeScratchPackage(in: package)
            // A debug build, as `swift run` and Xcode build a dependency; at the lowest priority,
            // so that a minute of compiling does not starve the suite's timing-sensitive tests.
            let (status, log) = try runToEnd("/usr/bin/env", ["nice", "-n", "19", "swift", "build"], in: package)
            #expect(status == 0, "\(log)")
            // A fragment shows values it does not use (`photo.display?.data`): the docs' blocks may
            // warn of that (`#no-usage`), and of nothing else. The compiler's lines that start
            // with a file's path are the diagnostics; the others quote the source.
            let warnings = log.split(separator: "\n").filter { line in
                line.hasPrefix("/") && line.contains(": warning: ")
                    && !(line.contains("/Sources/doc-blocks/") && line.hasSuffix("[#no-usage]"))
            }
            #expect(warnings.isEmpty, "\(warnings.joined(separator: "\n"))")
            guard status == 0 else { return }

            try await Self.runCaptureApp(package: package, folder: folder)
            try await Self.runViewModelApp(package: package, folder: folder)
        }
    }

    /// The README program against the reference engine: time, place, and the capture retired.
    static func runCaptureApp(package: URL, folder: URL) async throws {
        let engine = try ReferenceEngine(dataFolder: folder.appendingPathComponent("engine"))
        let app = package.appendingPathComponent(".build/debug/capture-app").path
        let photo = Fixtures.corpus.appendingPathComponent("gps-south-east-australia.jpg").path
        let (ran, output) = try runToEnd(
            app, [photo, engine.url.absoluteString, folder.appendingPathComponent("outbox").path], in: package)
        #expect(ran == 0, "\(output)")
        let lines = output.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("Taken ") == true, "\(output)")
        #expect(lines.contains { $0.hasPrefix("At -38.40519") }, "\(output)")
        #expect(lines.contains { $0.hasSuffix("is at the engine; its photo is gone from this device") }, "\(output)")
        let state = try await engine.state()
        #expect(state.records.count == 1)
        #expect(state.records.first?.note == "gate left open")

        let (_, refused) = try runToEnd(app, ["/no/such/photo.jpg"], in: package)
        #expect(refused == "Not prepared: '/no/such/photo.jpg' could not be read: No such file or directory.\n")
    }

    /// The view model against the reference engine: its row and its edit committed together, two
    /// photos from camera bytes through one workspace, and all three retired as events tell.
    static func runViewModelApp(package: URL, folder: URL) async throws {
        let engine = try ReferenceEngine(dataFolder: folder.appendingPathComponent("engine-2"))
        let app = package.appendingPathComponent(".build/debug/view-model-app").path
        let photo = Fixtures.corpus.appendingPathComponent("gps-south-east-australia.jpg").path
        let (ran, output) = try runToEnd(
            app, [engine.url.absoluteString, folder.appendingPathComponent("outbox-2").path, photo], in: package)
        #expect(ran == 0, "\(output)")
        let lines = output.split(separator: "\n").map(String.init)
        #expect(lines.contains("notes: gate left open"), "\(output)")
        #expect(lines.contains("retired: 3"), "\(output)")
        #expect(lines.contains("snapshot items: 0"), "\(output)")
        let ids = try #require(lines.first { $0.hasPrefix("ids: ") }, "\(output)").split(separator: " ").dropFirst()
            .map(String.init)
        try #require(ids.count == 3)
        let state = try await engine.state()
        #expect(state.operation(ids[0])?.payload == .object(["text": .string("gate left open")]))
        #expect(Set(state.records.map(\.requestId)) == Set(ids[1...]))
        #expect(state.records.allSatisfy { $0.note == "gate left open" })
    }
}
