#if canImport(Network)
import Foundation
import Network

/// Tells an outbox when the network comes and goes, and whether it is expensive or constrained,
/// from `NWPathMonitor`, so that its scheduler sends as soon as the network is back, holds its
/// automatic passes while it is gone, and holds what may not use a metered or Low Data Mode
/// network (`OperationType.network`) until the device is on another. Keep it for as long as the
/// outbox should hear of it; it stops when released.
///
/// Only on Apple's platforms (the Network framework); elsewhere the app, or the command, calls
/// `Outbox.connectivityChanged(isReachable:network:)` itself. Not verified on a device (see `docs/apple.md`).
///
/// Sendable by hand: after `init` nothing in it changes, `NWPathMonitor` calls its handler on
/// the monitor's own queue and may be cancelled from any thread, and the changes reach the
/// outbox through a stream.
public final class ConnectivityMonitor: @unchecked Sendable {
    private let monitor: NWPathMonitor
    private let forwarding: Task<Void, Never>

    /// Starts watching the network for `outbox`.
    ///
    /// - Parameter outbox: The outbox to tell.
    public init(outbox: Outbox) {
        let (paths, continuation) = AsyncStream.makeStream(
            of: (isReachable: Bool, network: NetworkPath).self, bufferingPolicy: .bufferingNewest(1))
        monitor = NWPathMonitor()
        monitor.pathUpdateHandler = { path in
            continuation.yield(
                (
                    path.status == .satisfied,
                    NetworkPath(isExpensive: path.isExpensive, isConstrained: path.isConstrained)
                ))
        }
        // One task hands the changes over in the order they came.
        forwarding = Task {
            for await path in paths {
                await outbox.connectivityChanged(isReachable: path.isReachable, network: path.network)
            }
        }
        monitor.start(queue: DispatchQueue(label: "Outbox.ConnectivityMonitor"))
    }

    deinit {
        monitor.cancel()
        forwarding.cancel()
    }
}
#endif
