import Foundation
import ImagePrep
import Outbox
import PhotoCapture
@_exported import TestSupport
import Testing

/// Photos as the pipeline would hand them over: real JPEG bytes from the corpus, with the size and
/// metadata that `Fixtures/corpus/expected.json` records for each file.
enum Photos {
    /// A landscape photo with no date and no GPS.
    static func landscape() throws -> PreparedPhoto {
        try photo("orientation-landscape-1.jpg", size: PixelSize(width: 1800, height: 1200))
    }

    /// A portrait photo with no date and no GPS.
    static func portrait() throws -> PreparedPhoto {
        try photo("orientation-portrait-1.jpg", size: PixelSize(width: 1200, height: 1800))
    }

    /// A Pixel 8 Pro photo: taken 2023-10-06 22:53:51.724 at +02:00, near Madrid.
    static func pixel8Pro() throws -> PreparedPhoto {
        let time = CaptureTime(
            local: LocalDateTime(
                year: 2023, month: 10, day: 6, hour: 22, minute: 53, second: 51, fractionDigits: "724"),
            utcOffset: UTCOffset(minutes: 120), source: .dateTimeOriginal, offsetSource: .offsetTimeOriginal)
        return try photo(
            "offset-plus0200-pixel8pro-8x8.jpg", size: PixelSize(width: 8, height: 8), captureTime: time,
            location: GeoPoint(latitude: 40.4000694444444, longitude: -3.71464722222222, altitude: 634))
    }

    /// An iPhone photo taken 2025-09-07 14:16:43.472 at -04:00, without GPS.
    static func iPhone() throws -> PreparedPhoto {
        let time = CaptureTime(
            local: LocalDateTime(year: 2025, month: 9, day: 7, hour: 14, minute: 16, second: 43, fractionDigits: "472"),
            utcOffset: UTCOffset(minutes: -240), source: .dateTimeOriginal, offsetSource: .offsetTimeOriginal)
        return try photo(
            "offset-minus0400-iphone14promax-p3-mpf.jpg", size: PixelSize(width: 56, height: 70), captureTime: time)
    }

    /// A photo with GPS (south-east Australia) and no date.
    static func australia() throws -> PreparedPhoto {
        try photo(
            "gps-south-east-australia.jpg", size: PixelSize(width: 494, height: 327),
            location: GeoPoint(latitude: -38.4051947833333, longitude: 144.188958))
    }

    private static func photo(
        _ name: String, size: PixelSize, captureTime: CaptureTime? = nil, location: GeoPoint? = nil
    ) throws -> PreparedPhoto {
        let upload = EncodedJPEG(data: try Fixtures.data("corpus/" + name), size: size)
        return PreparedPhoto(
            upload: upload, display: nil, thumbnail: nil,
            metadata: PhotoMetadata(originalSize: size, captureTime: captureTime, location: location))
    }
}

/// A clock that moves only when a test moves it.
final class TestClock: Sendable {
    private let current: Locked<Date>

    init(_ start: Date = Date(timeIntervalSince1970: 1_714_478_525)) { current = Locked(start) }

    var now: Date { current.withLock { $0 } }

    func advance(by seconds: TimeInterval) { current.withLock { $0 += seconds } }

    /// A configuration that reads this clock, in a fixed time zone.
    var configuration: Outbox.Configuration { configuration() }

    /// A configuration that reads this clock, in a fixed time zone, with a fixed "random" jitter.
    func configuration(backoff: Backoff = Backoff(), randomUnit: Double = 0.5) -> Outbox.Configuration {
        Outbox.Configuration(
            now: { self.now }, timeZone: TimeZone(identifier: "Europe/Berlin")!, backoff: backoff,
            randomUnit: { randomUnit })
    }
}

/// The files in an outbox's media folder, sorted.
func mediaFileNames(in folder: URL) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("media").path).sorted()
}

/// A transport for which the engine takes everything at once (the outbox tests try the others).
struct AcceptingTransport: Transport {
    func send(_ delivery: Delivery, reporter: DeliveryReporter) async throws -> TransportResponse {
        .http(status: 200)
    }
}
