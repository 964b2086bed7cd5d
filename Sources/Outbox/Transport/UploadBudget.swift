import Foundation

/// What one pass may put on the wire for one upload, whatever the engine answers: at most twice
/// the file's bytes in bodies (appends and the contract's `PUT`), plus the headers of a bounded
/// number of requests. The sends of one upload in one pass (its uploads sent again after the
/// engine lost them) share it (`PassSpending`).
///
/// Every body is charged in full when it starts, because the client cannot tell an engine that
/// reads an append and then says it holds one byte more from a link that drops after one byte:
/// both are charged what was handed to the connection, and so is a body repeated with fresh
/// credentials after a 401. So the first append of a send, which carries the rest of the file,
/// is charged all of it. After a cut, an append carries no more than the link was seen to carry
/// (what the engine's offset moved), or what the budget can spare beyond the rest of the file, a
/// sixteenth less so that headers a few digits longer do not cut it again: a link that drops
/// every few kilobytes still gets the file through in one send, while an engine that lies about
/// its offset gets at most twice the file.
struct UploadBudget {
    /// The file's size.
    let fileSize: Int64
    /// The body bytes charged so far.
    private(set) var spent: Int64 = 0

    /// - Parameter spent: What earlier sends of the upload in the same pass charged.
    init(fileSize: Int64, spent: Int64 = 0) {
        self.fileSize = max(0, fileSize)
        self.spent = min(max(0, spent), limit)
    }

    /// Twice the file.
    var limit: Int64 { fileSize.multipliedReportingOverflow(by: 2).overflow ? .max : fileSize * 2 }

    /// Whether a body of `count` bytes fits in what is left.
    func allows(_ count: Int64) -> Bool { count >= 0 && count <= limit - spent }

    /// Charges a body of `count` bytes, which `allows(_:)` said fits.
    mutating func spend(_ count: Int64) { spent += count }

    /// How many bytes the next append carries from `offset`: the rest of the file, or after a cut
    /// (`carried`: the bytes the link was last seen to carry) the larger of that and what the
    /// budget can spare beyond the rest, less a sixteenth; never more than the rest.
    func appendLength(from offset: Int64, carried: Int64?) -> Int64 {
        let rest = max(0, fileSize - offset)
        guard let carried, rest > 0 else { return rest }
        let room = max(carried, limit - spent - rest)
        return max(1, min(rest, room - room / 16))
    }

    /// Whether an engine's offset that moved `advance` bytes while an append carried `sent` is
    /// progress worth resuming from: a sixty-fourth of the append, or 64 KiB of a large one. An
    /// engine that moves its offset a byte a time makes none.
    static func isRealProgress(_ advance: Int64, of sent: Int64) -> Bool {
        advance > 0 && advance >= min(sent / 64, 64 * 1024)
    }
}

/// What each upload charged to its budget (`UploadBudget`) in the pass in flight, so that the
/// sends of one upload in one pass share one budget; a new pass starts them all afresh. Only the
/// latest pass is kept: a transport that two outboxes share may start afresh early, which
/// bounds each send, as before, rather than each pass.
struct PassSpending: Sendable {
    private var pass: UUID?
    private var charged: [UploadKey: Int64] = [:]

    /// What the upload charged so far in `pass`.
    func spent(by key: UploadKey, in pass: UUID) -> Int64 {
        self.pass == pass ? charged[key] ?? 0 : 0
    }

    /// Keeps what the upload charged so far in `pass`.
    mutating func record(_ amount: Int64, by key: UploadKey, in pass: UUID) {
        if self.pass != pass { (self.pass, charged) = (pass, [:]) }
        charged[key] = amount
    }
}
