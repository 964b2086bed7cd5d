import CommandSupport
import ImagePrep

/// A JSON value whose objects keep their keys in the order written, so that reports read the
/// same every time.
indirect enum JSONValue {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    var serialized: String {
        switch self {
        case .null: return "null"
        case .bool(let value): return value ? "true" : "false"
        case .int(let value): return String(value)
        case .double(let value): return value.isFinite ? "\(value)" : "null"
        case .string(let value): return Self.quote(value)
        case .array(let values): return "[" + values.map(\.serialized).joined(separator: ",") + "]"
        case .object(let members):
            return "{" + members.map { Self.quote($0.0) + ":" + $0.1.serialized }.joined(separator: ",") + "}"
        }
    }

    private static func quote(_ text: String) -> String {
        var quoted = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": quoted += "\\\""
            case "\\": quoted += "\\\\"
            case "\n": quoted += "\\n"
            case "\r": quoted += "\\r"
            case "\t": quoted += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                quoted += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: quoted.unicodeScalars.append(scalar)
            }
        }
        return quoted + "\""
    }
}

/// The `--json` line for one input: the same keys for every input, null where a value is absent.
///
/// `ok` is true when the photo's copies are there (made now, or kept by `--skip-existing`);
/// `skipped` is true when this run wrote nothing for it (kept, left out by cause, or not reached
/// before a signal stopped the run); `code` is the stable reason of a line that is not a photo
/// prepared now, and `error` its sentence. A kept photo's line carries what its copies and the
/// photo say, read again without a decode.
enum JSONReport {
    static func line(for input: BytePath, outcome: PhotoOutcome) -> String {
        let (ok, skipped, code, message): (Bool, Bool, String?, String?)
        switch outcome {
        case .prepared(let prepared): return line(for: input, prepared: prepared, isKept: false)
        case .alreadyPrepared(let kept): return line(for: input, prepared: kept, isKept: true)
        case .skipped(let leftOut):
            (ok, skipped, code, message) = (false, true, leftOut.cause.code, leftOut.message(about: input))
        case .failed(let failure, let text): (ok, skipped, code, message) = (false, false, failure, text)
        case .notStarted(let signal):
            (ok, skipped, code, message) = (
                false, true, "not_started",
                "'\(input)' was not prepared: the run was stopped by \(StopSignals.name(of: signal)) before it started."
            )
        case .interrupted(let signal):
            (ok, skipped, code, message) = (
                false, true, "interrupted",
                "'\(input)' was not prepared: the run was stopped at once by \(StopSignals.name(of: signal))"
                    + " while it was being prepared, and none of its copies was written."
            )
        }
        return JSONValue.object([
            ("input", .string(input.description)), ("ok", .bool(ok)), ("skipped", .bool(skipped)),
            ("code", code.map { .string($0) } ?? .null), ("error", message.map { .string($0) } ?? .null),
            ("upload", .null), ("display", .null), ("thumbnail", .null), ("gainMap", .null), ("original", .null),
            ("orientation", .null), ("capturedAt", .null), ("location", .null), ("comment", .null),
            ("warnings", .array([])), ("rawPixels", .null),
        ]).serialized
    }

    private static func line(for input: BytePath, prepared: PhotoOutcome.Prepared, isKept: Bool) -> String {
        let metadata = prepared.metadata
        func copy(_ written: WrittenCopy?) -> JSONValue {
            guard let written else { return .null }
            return .object([
                ("path", .string(written.path.description)), ("width", written.size.map { .int($0.width) } ?? .null),
                ("height", written.size.map { .int($0.height) } ?? .null),
                ("bytes", written.byteCount.map { .int($0) } ?? .null),
            ])
        }
        let capturedAt: JSONValue =
            metadata?.captureTime.map { time in
                .object([
                    ("local", .string(time.local.iso8601)),
                    ("offset", time.utcOffset.map { .string($0.description) } ?? .null),
                    ("inferred", .bool(time.isOffsetInferred)),
                    ("source", .string(time.source.rawValue)),
                ])
            } ?? .null
        let location: JSONValue =
            metadata?.location.map { point in
                .object([
                    ("latitude", .double(point.latitude)), ("longitude", .double(point.longitude)),
                    ("altitude", point.altitude.map { .double($0) } ?? .null),
                ])
            } ?? .null
        return JSONValue.object([
            ("input", .string(input.description)), ("ok", .bool(true)), ("skipped", .bool(isKept)),
            ("code", .null), ("error", .null),
            ("upload", copy(prepared.upload)), ("display", copy(prepared.display)),
            ("thumbnail", copy(prepared.thumbnail)),
            (
                "gainMap",
                prepared.uploadGainMap.map { gainMap in
                    .object([
                        ("width", .int(gainMap.size.width)), ("height", .int(gainMap.size.height)),
                        ("bytes", .int(gainMap.byteCount)),
                    ])
                } ?? .null
            ),
            (
                "original",
                metadata.map { metadata in
                    .object([
                        ("width", .int(metadata.originalSize.width)),
                        ("height", .int(metadata.originalSize.height)),
                    ])
                } ?? .null
            ),
            ("orientation", metadata?.orientation.map { .int($0.rawValue) } ?? .null),
            ("capturedAt", capturedAt), ("location", location),
            ("comment", metadata?.comment.map { .string($0) } ?? .null),
            ("warnings", .array(prepared.warnings.map { .string($0.message) })),
            ("rawPixels", prepared.cameraRawPixels.map { .string($0.rawValue) } ?? .null),
        ]).serialized
    }
}
