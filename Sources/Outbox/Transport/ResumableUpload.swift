import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The engine's resumable uploads (docs/engine-protocol.md), after the IETF draft
/// draft-ietf-httpbis-resumable-upload at interop version 6, the one URLSession speaks from
/// iOS 18.1 and macOS 15.1 (the draft's `Upload-Complete`, and `application/partial-upload` for
/// an append): the requests, and how their answers are read, each field as untrusted as a body.
///
/// An upload resource is created with an empty `POST` rather than by the `PUT` that carries the
/// bytes, because FoundationNetworking does not hand a `104 Upload Resumption Supported` to its
/// delegate: the `Location` of the creation's final answer is the only one the Linux transport
/// can read. And a `POST`, because an engine that knows only the contract answers it 405 and
/// stores nothing, where an empty `PUT` would be held as an empty upload under the key.
enum ResumableUpload {
    /// `Upload-Draft-Interop-Version`.
    static let interopVersion = "6"

    /// `POST /v1/uploads/{request_id}/{index}` with `Upload-Complete: ?0` and no body: asks the
    /// engine for an upload resource, whose `Location` its `201` names.
    static func creation(_ upload: PendingUpload, of id: String, engine: URL, timeout: TimeInterval) -> URLRequest {
        var request = EngineRequest.upload(upload, of: id, engine: engine, timeout: timeout)
        request.httpMethod = "POST"
        request.setValue(interopVersion, forHTTPHeaderField: "Upload-Draft-Interop-Version")
        request.setValue("?0", forHTTPHeaderField: "Upload-Complete")
        request.setValue("0", forHTTPHeaderField: "Content-Length")
        return request
    }

    /// `HEAD {resource}`: how many bytes the engine holds, and whether the upload is complete.
    static func offsetRetrieval(at resource: URL, timeout: TimeInterval) -> URLRequest {
        var request = URLRequest(url: resource, timeoutInterval: timeout)
        request.httpMethod = "HEAD"
        request.setValue(interopVersion, forHTTPHeaderField: "Upload-Draft-Interop-Version")
        return request
    }

    /// `PATCH {resource}` with the file's bytes from `offset`, `isComplete` when they run to the
    /// end of the file: the engine answers the completing append as the contract's `PUT` (the
    /// upload's body, with its SHA-256 of the whole file), and any other with the offset reached.
    static func append(at resource: URL, offset: Int64, isComplete: Bool, timeout: TimeInterval) -> URLRequest {
        var request = URLRequest(url: resource, timeoutInterval: timeout)
        request.httpMethod = "PATCH"
        request.setValue(interopVersion, forHTTPHeaderField: "Upload-Draft-Interop-Version")
        request.setValue(isComplete ? "?1" : "?0", forHTTPHeaderField: "Upload-Complete")
        request.setValue(String(offset), forHTTPHeaderField: "Upload-Offset")
        request.setValue("application/partial-upload", forHTTPHeaderField: "Content-Type")
        return request
    }

    /// `DELETE {resource}` (upload cancellation): gives back a resource the client will not use
    /// again, and the bytes the engine holds of it.
    static func cancellation(at resource: URL, timeout: TimeInterval) -> URLRequest {
        var request = URLRequest(url: resource, timeoutInterval: timeout)
        request.httpMethod = "DELETE"
        request.setValue(interopVersion, forHTTPHeaderField: "Upload-Draft-Interop-Version")
        return request
    }

    /// The upload resource a `Location` names, in the normal form (`EngineURL`), when it is one
    /// of this upload on this engine: the engine's scheme, host and port, the path
    /// `{engine}/v1/uploads/{id}/{index}/{token}` with a token of 1 to 128 letters, digits, `-`
    /// or `_`, and nothing else. A Location to another host, or to another entry's upload, would
    /// send the user's bytes where the engine did not ask for them: it is not followed.
    ///
    /// - Parameter engine: The engine's URL in the normal form.
    static func resource(at location: String?, of id: String, index: Int, engine: URL) -> URL? {
        guard let location, location.utf8.count <= 2048, let resolved = URL(string: location, relativeTo: engine),
            let url = EngineURL.normalized(resolved), EngineURL.isSameOrigin(url, engine),
            let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        else { return nil }
        guard components.user == nil, components.password == nil, components.query == nil, components.fragment == nil
        else { return nil }
        let prefix = engine.appendingPathComponent("v1/uploads/\(id)/\(index)").path + "/"
        guard components.percentEncodedPath.hasPrefix(prefix) else { return nil }
        let token = components.percentEncodedPath.dropFirst(prefix.count)
        guard (1...128).contains(token.utf8.count), token.utf8.allSatisfy(isTokenByte) else { return nil }
        return url
    }

    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
            return true
        default: return false
        }
    }

    /// An `Upload-Offset` (a structured field integer, RFC 8941: at most 15 digits) that an
    /// upload of `byteCount` bytes can have; nil for a missing, negative, malformed or larger one.
    static func offset(_ field: String?, within byteCount: Int64) -> Int64? {
        guard let digits = field?.trimmingCharacters(in: .whitespaces), (1...15).contains(digits.utf8.count),
            digits.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
            let offset = Int64(digits), offset <= byteCount
        else { return nil }
        return offset
    }

    /// An `Upload-Complete` (a structured field boolean): true for `?1`, false for `?0`, nil for anything else.
    static func isComplete(_ field: String?) -> Bool? {
        switch field?.trimmingCharacters(in: .whitespaces) {
        case "?1": return true
        case "?0": return false
        default: return nil
        }
    }
}

/// Which upload of which entry an upload resource is for.
struct UploadKey: Hashable, Sendable {
    let id: String
    let index: Int
}
