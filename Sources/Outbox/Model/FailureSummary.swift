/// The few words a person reads for why an entry's last send failed ("Can't reach the
/// server"), beside `lastError`, which has the detail for a log (the URL, the status, the
/// engine's message). Decided from `lastError` alone, so that entries of every version of the
/// store read alike; never names a note, a place or a photo's bytes.
enum FailureSummary {
    /// The summary of `reason`, a `lastError`.
    static func of(_ reason: String) -> String {
        if reason.hasPrefix("network error: ") { return "Can't reach the server" }
        if reason == "the engine did not answer in time" { return "The server did not answer in time" }
        if reason.hasPrefix("the system would not send it over") { return "Waiting for a network it may use" }
        if reason.hasPrefix("the engine no longer holds its uploads") { return "Sending its files again" }
        if reason.hasPrefix("the engine answered"), reason.contains("does not keep") {
            return "The server keeps losing its files"
        }
        if reason.hasPrefix("its photo file") || reason.hasPrefix("the file of its photo") {
            return "The photo's file is gone or changed"
        }
        if reason.hasPrefix("its attachment") || reason.hasPrefix("the file of its attachment")
            || reason.hasPrefix("the record of")
        {
            return "Its file is gone or changed"
        }
        guard reason.hasPrefix("HTTP "), let status = Int(reason.dropFirst(5).prefix(3)) else {
            return "Not sent: the server's answer was not understood"
        }
        switch status {
        case 401, 403, 407: return "The server refused the sign-in"
        case 408, 504: return "The server did not answer in time"
        case 409: return "The server holds something else under its name"
        case 429: return "The server asked to wait"
        case 500...599: return "The server has a problem"
        default: return "The server refused it"
        }
    }
}

extension OutboxEntry {
    /// Why the last send failed, in a few words for a person ("Can't reach the server");
    /// nil when `lastError` is. `lastError` keeps the detail, for a log.
    public var lastErrorSummary: String? { lastError.map(FailureSummary.of) }
}

extension OutboxSnapshot.Item {
    /// Why the last send failed, in a few words for a person ("Can't reach the server");
    /// nil when `lastError` is. `lastError` keeps the detail, for a log.
    public var lastErrorSummary: String? { lastError.map(FailureSummary.of) }
}
