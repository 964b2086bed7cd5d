internal import CHeif

/// libde265's functions, from the library the first directly decoded HEVC image loads, called as
/// libde265's own are: `libde265.de265_new_decoder()`.
///
/// libheif links libde265, so by the time a HEIF file reaches the direct decode the library is
/// already mapped: loading it costs a lookup, and a process that prepares only JPEGs maps neither.
typealias Libde265 = LoadedLibrary<cde265_functions>

extension LoadedLibrary where Functions == cde265_functions {
    /// The process's libde265, loaded and started by the first call; nil when it cannot be
    /// loaded, and the photo is then decoded through libheif as a whole.
    static var shared: Libde265? {
        var reason: UnsafePointer<CChar>?
        return cde265_library(&reason).map { Libde265($0) }
    }

    /// Why the library `name` cannot serve as libde265, or nil when it can.
    static func loadFailure(name: String) -> String? { loadFailure(name: name, by: cde265_load) }
}
