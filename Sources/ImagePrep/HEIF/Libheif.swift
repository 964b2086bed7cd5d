internal import CHeif

/// libheif's functions, from the library the first HEIF file loads (`Sources/CHeif`): nothing
/// links libheif, so a process that prepares only JPEGs never maps it or what it needs.
///
/// Called as libheif's own functions are: `libheif.heif_context_alloc()`.
@dynamicMemberLookup
struct Libheif: @unchecked Sendable {  // The table is written once, before any reader gets it.
    /// Static storage in CHeif, filled once and never freed: it lives as long as the process.
    private let functions: UnsafePointer<cheif_functions>

    subscript<Function>(dynamicMember function: KeyPath<cheif_functions, Function>) -> Function {
        functions.pointee[keyPath: function]
    }

    /// The process's libheif, loaded and started by the first call.
    ///
    /// - Parameter file: the HEIF file that needs it, for the error.
    /// - Throws: `.heifUnavailable` when libheif cannot be loaded, with the dynamic loader's reason.
    static func shared(for file: String) throws(ImagePrepError) -> Libheif {
        var reason: UnsafePointer<CChar>?
        guard let functions = cheif_library(&reason) else {
            throw .heifUnavailable(file: file, reason: reason.map { String(cString: $0) } ?? "")
        }
        return Libheif(functions: functions)
    }

    /// Why the library `name` (as `dlopen` takes it) cannot serve as libheif, or nil when it
    /// can: the check the shared load makes of each of the platform's names.
    static func loadFailure(name: String) -> String? {
        let capacity = 512
        return withUnsafeTemporaryAllocation(of: cheif_functions.self, capacity: 1) { table in
            withUnsafeTemporaryAllocation(of: CChar.self, capacity: capacity) { reason in
                cheif_load(name, table.baseAddress!, reason.baseAddress!, capacity)
                    ? nil : String(cString: reason.baseAddress!)
            }
        }
    }

    /// Whether this libheif has a decoder for `codec`.
    func hasDecoder(for codec: HEIFContainer.Codec) -> Bool {
        self.heif_have_decoder_for_format(codec == .hevc ? heif_compression_HEVC : heif_compression_AV1) != 0
    }
}
