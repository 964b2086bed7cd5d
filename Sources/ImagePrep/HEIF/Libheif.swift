internal import CHeif

/// A C library's functions, from the table `Sources/CHeif` fills when the library is first
/// needed: nothing links libheif or libde265, so a process that prepares only JPEGs never maps
/// them or what they need. Called as the library's own functions are: `libheif.heif_context_alloc()`.
@dynamicMemberLookup
struct LoadedLibrary<Functions>: @unchecked Sendable {  // The table is written once, before any reader gets it.
    /// Static storage in CHeif, filled once and never freed: it lives as long as the process.
    private let functions: UnsafePointer<Functions>

    init(_ functions: UnsafePointer<Functions>) { self.functions = functions }

    subscript<Function>(dynamicMember function: KeyPath<Functions, Function>) -> Function {
        functions.pointee[keyPath: function]
    }

    /// Why the library `name` (as `dlopen` takes it) cannot serve, or nil when it can: the check
    /// that `load` (CHeif's) makes of each of the platform's names.
    static func loadFailure(
        name: String,
        by load: (UnsafePointer<CChar>, UnsafeMutablePointer<Functions>, UnsafeMutablePointer<CChar>, Int)
            -> Bool
    ) -> String? {
        let capacity = 512
        return withUnsafeTemporaryAllocation(of: Functions.self, capacity: 1) { table in
            withUnsafeTemporaryAllocation(of: CChar.self, capacity: capacity) { reason in
                load(name, table.baseAddress!, reason.baseAddress!, capacity)
                    ? nil : String(cString: reason.baseAddress!)
            }
        }
    }
}

/// libheif's functions, from the library the first HEIF file loads.
typealias Libheif = LoadedLibrary<cheif_functions>

extension LoadedLibrary where Functions == cheif_functions {
    /// The process's libheif, loaded and started by the first call.
    ///
    /// - Parameter file: the HEIF file that needs it, for the error.
    /// - Throws: `.heifUnavailable` when libheif cannot be loaded, with the dynamic loader's reason.
    static func shared(for file: String) throws(ImagePrepError) -> Libheif {
        var reason: UnsafePointer<CChar>?
        guard let functions = cheif_library(&reason) else {
            throw .heifUnavailable(file: file, reason: reason.map { String(cString: $0) } ?? "")
        }
        return Libheif(functions)
    }

    /// Why the library `name` cannot serve as libheif, or nil when it can.
    static func loadFailure(name: String) -> String? { loadFailure(name: name, by: cheif_load) }

    /// Whether this libheif has a decoder for `codec`.
    func hasDecoder(for codec: HEIFContainer.Codec) -> Bool {
        self.heif_have_decoder_for_format(codec == .hevc ? heif_compression_HEVC : heif_compression_AV1) != 0
    }
}
