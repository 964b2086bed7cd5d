import CommandSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How prep-photo stops: SIGINT (Ctrl-C), SIGTERM and SIGHUP ask it to, and the photos in flight
/// get a grace period to finish with all their copies.
extension StopSignals {
    /// SIGINT, SIGTERM and SIGHUP, less those the parent had ignored: a signal that was ignored
    /// when the process started (SIGHUP under `nohup`, SIGINT for a background job of a script)
    /// stays ignored, as coreutils and make leave it.
    static let prepPhotoSignals: [Int32] = [SIGINT, SIGTERM, SIGHUP].filter { !Platform.isIgnored($0) }

    /// How long the photos in flight may take to finish after the first signal, in milliseconds,
    /// before the run stops without them: a photo takes well under a second, so only a decode
    /// that does not come back is cut short. `PREP_PHOTO_STOP_GRACE_MS` sets another (the tests
    /// use 0, to stop a photo in flight).
    static let gracePeriodMilliseconds: Int = {
        let given = ProcessInfo.processInfo.environment["PREP_PHOTO_STOP_GRACE_MS"].flatMap { Int($0) }
        return min(max(given ?? 5000, 0), 3_600_000)
    }()

    /// "5 s", "250 ms".
    static var gracePeriodDescription: String {
        let milliseconds = gracePeriodMilliseconds
        return milliseconds % 1000 == 0 ? "\(milliseconds / 1000) s" : "\(milliseconds) ms"
    }
}
