/// The most memory a decoder that holds a whole picture may need for one photo, from what the
/// file's header declares: OpenJPEG decodes into whole 32-bit planes, libjxl holds a modular
/// image's channels whole, LibRaw its sensor data and a 16-bit picture. None of these libraries
/// can be bounded from outside, so the declaration is checked before anything is decoded.
enum DecodeMemoryBudget {
    /// With prep-photo's own 30 MB, the upload's planes and the copies, one photo stays under
    /// 400 MB at its peak (a 24 MP JPEG XL, measured: 385 MB).
    static let bytes = 360 << 20
}

extension PreparationContext {
    /// Refuses a decode whose declared working memory (`byteCount`, saturated) is over the budget.
    func checkDecodeMemory(_ byteCount: Int) throws(ImagePrepError) {
        guard byteCount <= DecodeMemoryBudget.bytes else {
            throw .tooMuchMemory(file: file, byteCount: byteCount, budget: DecodeMemoryBudget.bytes)
        }
    }
}

extension Int {
    /// The product, or `Int.max` when it overflows: a size declared by a file is never trusted
    /// to fit.
    static func saturatingProduct(_ factors: Int...) -> Int {
        var product = 1
        for factor in factors {
            let (result, overflow) = product.multipliedReportingOverflow(by: Swift.max(factor, 0))
            if overflow { return .max }
            product = result
        }
        return product
    }
}
