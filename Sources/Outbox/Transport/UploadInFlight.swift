import Foundation

/// One upload of a send, and what its requests need.
struct UploadInFlight {
    let upload: PendingUpload
    let key: UploadKey
    let bytes: Data
    /// What the engine's answer must confirm for it to have landed.
    let landed: EngineConfirmation
    let network: NetworkRequirement
    /// The engine's URL, in the normal form.
    let engine: URL
    let reporter: DeliveryReporter
    /// Called with the bytes of the file that are at the engine, or on their way.
    let progress: @Sendable (Int64) -> Void

    var size: Int64 { Int64(bytes.count) }
}
