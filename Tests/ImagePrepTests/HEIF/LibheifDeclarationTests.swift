import Foundation
import Testing

/// `Sources/CHeif/include/Libheif.h` declares the part of libheif's API that ImagePrep uses, so that
/// building needs no libheif header. A wrong value or layout there would read the wrong field or
/// take one error for another, silently; these tests hold it to libheif 1.15's own header
/// (libheif-dev), which only the tests need.
@Suite("Our libheif declarations are libheif's")
struct LibheifDeclarationTests {
    static let repository = Repository.root
    static let ourHeader = repository.appendingPathComponent("Sources/CHeif/include/Libheif.h")

    /// libheif's header, where Debian puts it.
    static func realHeaderFolder() throws -> String {
        let candidates = ["/usr/include/x86_64-linux-gnu", "/usr/include/aarch64-linux-gnu", "/usr/include"]
        return try #require(
            candidates.first { FileManager.default.fileExists(atPath: $0 + "/libheif/heif.h") },
            "libheif's header (apt-get install libheif-dev) is needed to check our declarations")
    }

    /// Compiles `source` with the system's C compiler and runs it; its output, or nil and the log.
    static func compileAndRun(_ source: String, in folder: URL, name: String, flags: [String] = []) throws -> String {
        let file = folder.appendingPathComponent(name + ".c")
        try Data(source.utf8).write(to: file)
        let program = folder.appendingPathComponent(name).path
        let (built, log) = try runToEnd(
            "/usr/bin/env", ["cc", "-std=c11", "-Wall", "-Werror", "-o", program, file.path] + flags)
        try #require(built == 0, "\(name).c did not compile:\n\(log)")
        let (ran, output) = try runToEnd(program, [])
        try #require(ran == 0, "\(output)")
        return output
    }

    @Test("every prototype agrees with libheif's: the compiler refuses a conflicting redeclaration")
    func prototypesAgree() async throws {
        let real = try Self.realHeaderFolder()
        try await withTemporaryFolder(label: "libheif-declarations") { folder in
            let source = """
                #include <libheif/heif.h>
                #define CHEIF_PROTOTYPES_ONLY
                #include "\(Self.ourHeader.path)"
                int main(void) { return 0; }

                """
            _ = try Self.compileAndRun(source, in: folder, name: "prototypes", flags: ["-I", real])
        }
    }

    @Test("every enumerator has libheif's value, and every field its offset and size")
    func valuesAndLayoutsAgree() async throws {
        let real = try Self.realHeaderFolder()
        let header = try String(contentsOf: Self.ourHeader, encoding: .utf8)
        // Every enumerator we declare, by its name: `    heif_… = VALUE,`.
        let enumerators =
            header.split(separator: "\n").compactMap { line -> String? in
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                guard trimmed.hasPrefix("heif_"), let equals = trimmed.firstIndex(of: "=") else { return nil }
                return trimmed[..<equals].trimmingCharacters(in: .whitespaces)
            }
        try #require(enumerators.count > 100, "\(enumerators.count) enumerators read from Libheif.h")
        let fields: [(type: String, names: [String])] = [
            ("struct heif_error", ["code", "subcode", "message"]),
            (
                "struct heif_color_profile_nclx",
                [
                    "version", "color_primaries", "transfer_characteristics", "matrix_coefficients",
                    "full_range_flag", "color_primary_red_x", "color_primary_red_y", "color_primary_green_x",
                    "color_primary_green_y", "color_primary_blue_x", "color_primary_blue_y",
                    "color_primary_white_x", "color_primary_white_y",
                ]
            ),
            (
                "struct heif_decoding_options",
                [
                    "version", "ignore_transformations", "start_progress", "on_progress", "end_progress",
                    "progress_user_data", "convert_hdr_to_8bit", "strict_decoding", "decoder_id",
                ]
            ),
            ("struct heif_reader", ["reader_api_version", "get_position", "read", "seek", "wait_for_file_size"]),
        ]
        var lines = enumerators.map { #"    printf("%s %lld\n", "\#($0)", (long long)\#($0));"# }
        for (type, names) in fields {
            for name in names {
                lines.append(
                    #"    printf("%s.%s at %zu, %zu bytes\n", "\#(type)", "\#(name)", offsetof(\#(type), \#(name)), sizeof(((\#(type) *)0)->\#(name)));"#
                )
            }
        }
        lines.append(#"    printf("sizeof(heif_item_id) %zu\n", sizeof(heif_item_id));"#)
        func program(including header: String) -> String {
            "#include <stddef.h>\n#include <stdio.h>\n#include \(header)\nint main(void) {\n"
                + lines.joined(separator: "\n") + "\n    return 0;\n}\n"
        }
        try await withTemporaryFolder(label: "libheif-declarations") { folder in
            let theirs = try Self.compileAndRun(
                program(including: "<libheif/heif.h>"), in: folder, name: "theirs", flags: ["-I", real])
            let ours = try Self.compileAndRun(
                program(including: "\"\(Self.ourHeader.path)\""), in: folder, name: "ours")
            let differences = zip(theirs.split(separator: "\n"), ours.split(separator: "\n")).filter { $0 != $1 }
            #expect(differences.isEmpty, "libheif's, then ours: \(differences)")
            #expect(theirs.split(separator: "\n").count == lines.count)
        }
    }
}

/// `Sources/CHeif/include/Libde265.h` declares the part of libde265's API that the direct HEVC
/// decode uses, as `Libheif.h` does libheif's; these tests hold it to libde265 1.0's own header
/// (libde265-dev), which only the tests need.
@Suite("Our libde265 declarations are libde265's")
struct Libde265DeclarationTests {
    static let ourHeader = LibheifDeclarationTests.repository.appendingPathComponent("Sources/CHeif/include/Libde265.h")

    /// libde265's header folder, where Debian puts it.
    static func realHeaderFolder() throws -> String {
        try #require(
            ["/usr/include", "/usr/local/include"].first {
                FileManager.default.fileExists(atPath: $0 + "/libde265/de265.h")
            }, "libde265's header (apt-get install libde265-dev) is needed to check our declarations")
    }

    @Test("every prototype agrees with libde265's: the compiler refuses a conflicting redeclaration")
    func prototypesAgree() async throws {
        let real = try Self.realHeaderFolder()
        try await withTemporaryFolder(label: "libde265-declarations") { folder in
            let source = """
                #include <libde265/de265.h>
                #define CDE265_PROTOTYPES_ONLY
                #include "\(Self.ourHeader.path)"
                int main(void) { return 0; }

                """
            _ = try LibheifDeclarationTests.compileAndRun(source, in: folder, name: "prototypes", flags: ["-I", real])
        }
    }

    @Test("every enumerator has libde265's value")
    func valuesAgree() async throws {
        let real = try Self.realHeaderFolder()
        let header = try String(contentsOf: Self.ourHeader, encoding: .utf8)
        let enumerators = header.split(separator: "\n").compactMap { line -> String? in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.lowercased().hasPrefix("de265_"), let equals = trimmed.firstIndex(of: "=") else { return nil }
            return trimmed[..<equals].trimmingCharacters(in: .whitespaces)
        }
        try #require(enumerators.count == 6, "\(enumerators) read from Libde265.h")
        let lines = enumerators.map { #"    printf("%s %lld\n", "\#($0)", (long long)\#($0));"# }
        func program(including header: String) -> String {
            "#include <stdio.h>\n#include \(header)\nint main(void) {\n" + lines.joined(separator: "\n")
                + "\n    return 0;\n}\n"
        }
        try await withTemporaryFolder(label: "libde265-declarations") { folder in
            let theirs = try LibheifDeclarationTests.compileAndRun(
                program(including: "<libde265/de265.h>"), in: folder, name: "theirs", flags: ["-I", real])
            let ours = try LibheifDeclarationTests.compileAndRun(
                program(including: "\"\(Self.ourHeader.path)\""), in: folder, name: "ours")
            #expect(theirs == ours, "libde265's, then ours")
            #expect(theirs.split(separator: "\n").count == lines.count)
        }
    }
}
