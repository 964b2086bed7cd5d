import Foundation

/// URLs to the engine in the one form in which they are compared, stored and requested: the
/// scheme and host in lower case, a port only where it is not the scheme's default, and nothing
/// but `http` and `https`.
///
/// Schemes and host names are case-insensitive, so `HTTP://Engine.example.com:80/…` names the
/// same resource as `http://engine.example.com/…`; but FoundationNetworking takes only a
/// lower-case scheme, and refuses `HTTP://…` as an unsupported URL. A URL compared in one form and
/// requested in another would pass every check and then fail every request.
enum EngineURL {
    /// `url` in the normal form; nil when it is not an `http` or `https` URL with a host and a
    /// port in 1...65535 (or none).
    static func normalized(_ url: URL) -> URL? {
        guard var components = URLComponents(url: url.absoluteURL, resolvingAgainstBaseURL: false),
            let scheme = components.scheme?.lowercased(), let port = defaultPort(of: scheme),
            let host = components.percentEncodedHost, !host.isEmpty
        else { return nil }
        if let given = components.port, !(1...65_535).contains(given) { return nil }
        components.scheme = scheme
        components.percentEncodedHost = host.lowercased()
        if components.port == port { components.port = nil }
        return components.url
    }

    /// Whether two normal URLs are on the same origin: scheme, host and port.
    static func isSameOrigin(_ first: URL, _ second: URL) -> Bool {
        guard let first = URLComponents(url: first, resolvingAgainstBaseURL: false),
            let second = URLComponents(url: second, resolvingAgainstBaseURL: false)
        else { return false }
        return first.scheme == second.scheme && first.percentEncodedHost == second.percentEncodedHost
            && first.port == second.port
    }

    /// The port a scheme the engine may use has when none is given; nil for every other scheme.
    private static func defaultPort(of scheme: String) -> Int? {
        switch scheme {
        case "http": 80
        case "https": 443
        default: nil
        }
    }

    /// `url` without its user name and password, which go in a header instead
    /// (`basicAuthorization(of:)`): a URL compared, kept or shown in a message carries none.
    static func withoutCredentials(_ url: URL) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            components.user != nil || components.password != nil
        else { return url }
        components.user = nil
        components.password = nil
        return components.url ?? url
    }

    /// The `Authorization` value for the user name and password of `url` (HTTP Basic, RFC 7617:
    /// both percent-decoded, joined by a colon, in Base64); nil when it has neither.
    static func basicAuthorization(of url: URL) -> String? {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            components.user != nil || components.password != nil
        else { return nil }
        return "Basic " + Data(((components.user ?? "") + ":" + (components.password ?? "")).utf8).base64EncodedString()
    }
}
