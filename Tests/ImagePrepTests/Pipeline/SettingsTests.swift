import Foundation
import Testing

@testable import ImagePrep

/// Bad settings are an error the caller handles, never a crash; every error reads well as
/// `localizedDescription`; and the async form of `prepare` gives what the other does.
@Suite("Settings, error words, async prepare")
struct SettingsTests {
    static let badSettings: [(String, @Sendable (inout PhotoPreparer.Configuration) -> Void, String)] = [
        ("quality", { $0.quality = 0 }, "The photo setting quality cannot be 0: it must be 1 to 100."),
        ("quality", { $0.quality = 101 }, "The photo setting quality cannot be 101: it must be 1 to 100."),
        ("maxEdge", { $0.maxEdge = 0 }, "The photo setting maxEdge cannot be 0: it must be at least 1."),
        (
            "displayEdge", { $0.displayEdge = -3 },
            "The photo setting displayEdge cannot be -3: it must be at least 1, or nil for none."
        ),
        (
            "thumbnailEdge", { $0.thumbnailEdge = 0 },
            "The photo setting thumbnailEdge cannot be 0: it must be at least 1, or nil for none."
        ),
        ("maxPixels", { $0.maxPixels = 0 }, "The photo setting maxPixels cannot be 0: it must be at least 1."),
        (
            "dctScaleTolerance", { $0.dctScaleTolerance = .nan },
            "The photo setting dctScaleTolerance cannot be nan: it must be at least 0 and below 1."
        ),
    ]

    @Test(arguments: badSettings.indices)
    func aBadSettingIsThrownAtTheInitializerNotFatal(index: Int) throws {
        let (setting, change, message) = Self.badSettings[index]
        var configuration = PhotoPreparer.Configuration()
        change(&configuration)
        let error = try #require(throws: ImagePrepError.self) { try PhotoPreparer(configuration: configuration) }
        guard case .invalidSetting(let named, _, _) = error else {
            Issue.record("\(error)")
            return
        }
        #expect(named == setting)
        #expect(error.description == message)
        #expect(error.code == "invalid_setting")
    }

    @Test func aSettingChangedAfterwardsIsThrownByPrepare() async throws {
        var preparer = PhotoPreparer()
        preparer.configuration.quality = 0
        let data = try Fixtures.data("corpus/orientation-landscape-1.jpg")
        #expect(throws: ImagePrepError.invalidSetting(setting: "quality", value: "0", allowed: "1 to 100")) {
            try preparer.prepareBlocking(data, name: "a.jpg")
        }
        await #expect(throws: ImagePrepError.invalidSetting(setting: "quality", value: "0", allowed: "1 to 100")) {
            try await preparer.prepare(contentsOf: Fixtures.url("corpus/orientation-landscape-1.jpg"))
        }
    }

    @Test func localizedDescriptionIsTheErrorsOwnSentence() {
        let errors: [ImagePrepError] = [
            .unrecognizedFormat(file: "a.txt", detected: "text"), .empty(file: "b.jpg"),
            .invalidSetting(setting: "quality", value: "0", allowed: "1 to 100"),
        ]
        for error in errors {
            #expect((error as any Error).localizedDescription == error.description)
            #expect(!error.localizedDescription.contains("could not be completed"))
        }
    }

    /// The synchronous form, called from a synchronous function: in an async one the async
    /// overload is chosen.
    static func prepareBlocking(_ preparer: PhotoPreparer, _ url: URL) throws -> PreparedPhoto {
        try preparer.prepareBlocking(contentsOf: url)
    }

    @Test func theAsyncFormGivesWhatTheOtherDoes() async throws {
        let url = Fixtures.url("corpus/gps-south-east-australia.jpg")
        let preparer = PhotoPreparer()
        let awaited = try await preparer.prepare(contentsOf: url)
        let direct = try Self.prepareBlocking(preparer, url)
        #expect(awaited.upload.data == direct.upload.data)
        #expect(awaited.metadata == direct.metadata)
        do {
            _ = try await preparer.prepare(contentsOf: Fixtures.url("decode/not-a-jpeg.txt"))
            Issue.record("a text file was prepared")
        } catch {
            // Untyped, since a cancelled task's call throws CancellationError; the rest are ImagePrepError.
            #expect((error as? ImagePrepError)?.code == "unrecognized_format")
        }
    }
}
