import Foundation
import Testing

@testable import ImagePrep

/// One rule for what the direct HEVC decode accepts: whatever libheif refuses to decode, the
/// photo is refused too (docs/heif.md). Each HEIF fixture, hostile ones included, is decoded by
/// libheif alone (the file as ImagePrep hands it to libheif) and prepared by ImagePrep.
@Suite("HEIF: what libheif refuses, ImagePrep refuses")
struct LibheifAgreementTests {
    /// Every HEIF file of the fixtures, by content.
    static let files: [String] = {
        let root = Fixtures.url("")
        let found = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)?.compactMap {
            $0 as? URL
        }
        return (found ?? []).filter { ["heic", "avif", "heif"].contains($0.pathExtension.lowercased()) }
            .map { String($0.path.dropFirst(root.path.count)).trimmingPrefix("/") }.map(String.init).sorted()
    }()

    /// Whether libheif decodes the primary of `data` as ImagePrep hands the file to it (with a
    /// refused gain map hidden); nil when our walk refuses the file before libheif sees it, or
    /// when it is too large to decode whole here.
    static func libheifDecodes(_ data: Data) throws -> Bool? {
        try data.withUnsafeBytes { bytes -> Bool? in
            guard let container = try? HEIFContainer(bytes), let plan = try? container.decodePlan() else { return nil }
            guard plan.decodedPixels <= 20_000_000 else { return nil }
            let source = HEIFSource(
                context: PreparationContext(
                    configuration: .init(), workspace: WorkspaceBuffers(keepsBuffersBetweenPhotos: false),
                    file: "judge"))
            var hidden: Set<HEIFContainer.ItemID> = []
            if case .failure = source.checkedGainMap(in: container, photo: plan) {
                hidden = container.gainMapOnlyItems()
            }
            let readable = container.bytesForLibheif(hiding: hidden) ?? Array(bytes)
            return try readable.withUnsafeBytes { readable in
                let libheif = try Libheif.shared(for: "judge")
                do {
                    let context = try HEIFContext(readable, libheif: libheif, decodingThreads: 0, file: "judge")
                    let handle = try context.primaryImage(file: "judge")
                    let image = WorkspaceBuffers(keepsBuffersBetweenPhotos: false).decoded
                    _ = try HEIFDecoder.decode(
                        handle, plan: plan, nclx: handle.nclx, reduction: 1, into: image, file: "judge")
                    return true
                } catch {
                    return false
                }
            }
        }
    }

    @Test("every HEIF fixture that libheif refuses is refused by ImagePrep, the direct decode included")
    func refusedAlike() throws {
        #expect(Self.files.count > 60, "the fixtures are found")
        #expect(Self.files.contains("heic/hostile/grid-references-in-two-iref.heic"))
        var judged = 0
        for path in Self.files {
            let data = try Fixtures.data(path)
            guard let decodes = try Self.libheifDecodes(data) else { continue }
            judged += 1
            let prepared = Result { try PhotoPreparer().prepareBlocking(data, name: "photo.heic") }
            if !decodes {
                #expect(throws: ImagePrepError.self, "\(path): libheif refuses it") { try prepared.get() }
            }
        }
        #expect(judged > 50)
    }

    @Test(
        "a grid whose tiles are listed over two iref boxes is refused, as libheif refuses it, and never decoded directly"
    )
    func referencesOverTwoBoxes() throws {
        let path = "heic/hostile/grid-references-in-two-iref.heic"
        let data = try Fixtures.data(path)
        #expect(try Self.libheifDecodes(data) == false)
        try data.withUnsafeBytes { bytes in
            let container = try HEIFContainer(bytes)
            #expect(container.hevcTileLayout(plan: try container.decodePlan()) == nil)
        }
        #expect(throws: ImagePrepError.corruptHEIF(file: "photo.heic", detail: "its grid lacks tiles")) {
            try PhotoPreparer().prepareBlocking(data, name: "photo.heic")
        }
    }
}
