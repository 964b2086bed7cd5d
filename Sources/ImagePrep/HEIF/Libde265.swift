internal import CHeif

/// libde265's functions, from the library the first directly decoded HEVC image loads
/// (`Sources/CHeif`), called as libde265's own are: `libde265.de265_new_decoder()`.
///
/// libheif links libde265, so by the time a HEIF file reaches the direct decode the library is
/// already mapped: loading it costs a lookup, and a process that prepares only JPEGs maps neither.
@dynamicMemberLookup
struct Libde265: @unchecked Sendable {  // The table is written once, before any reader gets it.
    /// Static storage in CHeif, filled once and never freed: it lives as long as the process.
    private let functions: UnsafePointer<cde265_functions>

    subscript<Function>(dynamicMember function: KeyPath<cde265_functions, Function>) -> Function {
        functions.pointee[keyPath: function]
    }

    /// The process's libde265, loaded by the first call; nil when it cannot be loaded, and the
    /// photo is then decoded through libheif as a whole.
    static var shared: Libde265? {
        var reason: UnsafePointer<CChar>?
        return cde265_library(&reason).map { Libde265(functions: $0) }
    }

    /// Why the library `name` (as `dlopen` takes it) cannot serve as libde265, or nil when it can.
    static func loadFailure(name: String) -> String? {
        let capacity = 512
        return withUnsafeTemporaryAllocation(of: cde265_functions.self, capacity: 1) { table in
            withUnsafeTemporaryAllocation(of: CChar.self, capacity: capacity) { reason in
                cde265_load(name, table.baseAddress!, reason.baseAddress!, capacity)
                    ? nil : String(cString: reason.baseAddress!)
            }
        }
    }
}
