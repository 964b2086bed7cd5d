import Foundation
import Testing

/// The rule that keeps the package buildable on Apple's platforms: the one file that names the C
/// library (`Glibc`, `Darwin`) is the platform layer's `Sources/PlatformLayer/Platform.swift`,
/// with a branch for each; no other source file imports it or calls through it by name, so
/// nothing Linux-only hides in a file nobody compiles on a Mac, and no module keeps a copy.
@Suite("Platform files")
struct PlatformFileTests {
    /// The repository, from this file's own path (`Tests/EngineTests/…`).
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Every Swift file under `Sources`, by its path below the repository.
    static func sourceFiles() throws -> [String] {
        let sources = repository.appendingPathComponent("Sources")
        let walker = try #require(FileManager.default.enumerator(atPath: sources.path))
        return walker.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.map { "Sources/" + $0 }.sorted()
    }

    /// The lines of `text` that name a C library module: an import, a `canImport` or a call through it.
    static func libraryLines(in text: String) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).filter { line in
            let code = line.trimmingCharacters(in: .whitespaces)
            guard !code.hasPrefix("//") else { return false }
            return ["Glibc", "Darwin", "Musl"].contains { library in
                code.contains("import \(library)") || code.contains("canImport(\(library))")
                    || code.contains("\(library).")
            }
        }
    }

    @Test func noFileButAModulesPlatformFileNamesTheCLibrary() throws {
        let files = try Self.sourceFiles()
        #expect(files.count > 50, "the walk found the sources")
        var offenders: [String] = []
        for file in files where file != Self.platformFile {
            let text = try String(contentsOf: Self.repository.appendingPathComponent(file), encoding: .utf8)
            offenders += Self.libraryLines(in: text).map { "\(file): \($0.trimmingCharacters(in: .whitespaces))" }
        }
        #expect(offenders == [], "move these into \(Self.platformFile)")
    }

    static let platformFile = "Sources/PlatformLayer/Platform.swift"

    /// The lines of `text` that make a system call or read `errno` themselves: `open`, `fstat`,
    /// `lstat`, `stat`, `strerror`, `mmap`, `munmap`, `getenv`, `dup2`, `pipe`, `fcntl`,
    /// `isatty`, `posix_spawn`, `wait4` called by their bare names, or `errno`.
    static func systemCallLines(in text: String) -> [String] {
        let call =
            /(^|[^\w.])(open|fstat|lstat|stat|strerror|mmap|munmap|getenv|dup2|pipe|fcntl|isatty|posix_spawnp?|wait4)\(|(^|[^\w.])errno([^\w]|$)/
        return text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).filter { line in
            // A declaration (`func open(_ sealed:…)`) is not a call.
            let code = line.trimmingCharacters(in: .whitespaces).replacing(/func \w+\(/, with: "")
            return !code.hasPrefix("//") && code.contains(call)
        }
    }

    @Test func theFileCallsGoThroughThePlatformLayer() throws {
        var offenders: Set<String> = []
        for file in try Self.sourceFiles() where !file.hasPrefix("Sources/PlatformLayer/") {
            let text = try String(contentsOf: Self.repository.appendingPathComponent(file), encoding: .utf8)
            if !Self.systemCallLines(in: text).isEmpty { offenders.insert(file) }
        }
        #expect(
            offenders == [], "move their calls into Sources/PlatformLayer (FileCalls, DescriptorCalls, ChildProcess)")
    }

    @Test func theFileCallRuleCatchesACallAndErrnoButNotAMethod() {
        #expect(Self.systemCallLines(in: "let fd = open(path, O_RDONLY)\nif errno == EINTR {}").count == 2)
        #expect(Self.systemCallLines(in: "guard fstat(fd, &info) == 0 else { throw .current }").count == 1)
        #expect(Self.systemCallLines(in: "try store.open()\ncgif_open(&memory)\nspng_strerror(code)").isEmpty)
        #expect(Self.systemCallLines(in: "// open(2) is wrapped in the platform layer").isEmpty)
        #expect(Self.systemCallLines(in: "func open(_ sealed: Data) -> Data?").isEmpty)
    }

    @Test func thePlatformLayerIsTheOnlyPlatformFileAndHasBothBranches() throws {
        #expect(try Self.sourceFiles().filter { $0.hasSuffix("/Platform.swift") } == [Self.platformFile])
        let text = try String(contentsOf: Self.repository.appendingPathComponent(Self.platformFile), encoding: .utf8)
        #expect(text.contains("#if canImport(Darwin)"))
        #expect(text.contains("canImport(Glibc)"))
    }

    @Test func theRuleCatchesAnImportAndAQualifiedCall() {
        #expect(Self.libraryLines(in: "import Foundation\n#if canImport(Glibc)\nimport Glibc\n#endif").count == 2)
        #expect(Self.libraryLines(in: "let n = Glibc.read(fd, p, 1)") == ["let n = Glibc.read(fd, p, 1)"])
        #expect(Self.libraryLines(in: "// Glibc.read is wrapped in the platform layer").isEmpty)
    }
}
