extension HEIFContainer {
    /// The walk over the images a decode reads (tiles, overlay layers, sources, coded images):
    /// each item walked once, its pixels counted as often as the decode reads them.
    struct Walk {
        let container: HEIFContainer
        /// The pixels each item walked decodes, itself and what it is made of.
        var decodedPixels: [ItemID: Int] = [:]
        var inProgress: Set<ItemID> = []
        var codedBytes = 0
        /// The coded images' extents counted in `codedBytes`.
        var codedExtents: Set<Range<Int>> = []
        let sources: [ItemID: [ItemID]]

        init(container: HEIFContainer) {
            self.container = container
            sources = container.derivedImageSources()
        }

        /// libheif nests derived images (a grid of grids, an identity of an overlay); real files
        /// use one level.
        static let maxDepth = 4

        /// Walks the item and what it is made of, and adds what it decodes to `plan`.
        mutating func visit(_ id: ItemID, depth: Int, plan: inout DecodePlan) throws(Problem) {
            let pixels = try pixels(of: id, depth: depth, plan: &plan)
            plan.decodedPixels = Self.sum(plan.decodedPixels, pixels)
        }

        /// The pixels the coded images under `id` decode; each item is walked once, and counted
        /// as often as it is used.
        private mutating func pixels(of id: ItemID, depth: Int, plan: inout DecodePlan) throws(Problem) -> Int {
            if let known = decodedPixels[id] { return known }
            guard !inProgress.contains(id) else { throw .malformed("its images refer to each other in a loop") }
            guard depth <= Self.maxDepth else { throw .malformed("its images refer to each other too deeply") }
            guard let item = container.items[id] else { throw .malformed("it refers to an image that is not in it") }
            inProgress.insert(id)
            defer { inProgress.remove(id) }
            if let size = container.size(of: item) { plan.largest = Self.larger(plan.largest, size) }
            let derived = sources[id] ?? []
            var total = 0
            switch item.type {
            case .grid:
                let grid = try container.grid(of: item)
                plan.largest = Self.larger(plan.largest, grid.size)
                guard derived.count == grid.columns * grid.rows else {
                    throw .malformed("its grid does not hold as many tiles as it declares")
                }
                if !(try container.tilesCover(grid, tiles: derived)) { plan.tilesCoverGrids = false }
                for tile in derived { total = Self.sum(total, try pixels(of: tile, depth: depth + 1, plan: &plan)) }
            case .iovl:
                plan.largest = Self.larger(plan.largest, try container.overlayCanvas(of: item))
                guard !derived.isEmpty else { throw .malformed("its overlay holds no images") }
                for layer in derived { total = Self.sum(total, try pixels(of: layer, depth: depth + 1, plan: &plan)) }
            case .iden:
                guard derived.count == 1 else { throw .malformed("its derived image does not name one source") }
                total = try pixels(of: derived[0], depth: depth + 1, plan: &plan)
            case .hvc1, .av01:
                guard !item.isTruncated else { throw .truncated("the file ends before its image data does") }
                // libavif's writer gives identical tiles one extent, which libheif reads for each;
                // extents that overlap otherwise no encoder writes. Each extent counted once,
                // bounding the sum by the file's size bounds the reading below by it too.
                for extent in item.extents where codedExtents.insert(extent).inserted {
                    codedBytes += extent.count
                }
                guard codedBytes <= container.bytes.count else {
                    throw .malformed("its images' data overlap, which no encoder writes")
                }
                let isHEVC = item.type == .hvc1
                plan.codecs.insert(isHEVC ? .hevc : .av1)
                plan.codedImageCount += 1
                var largest = container.size(of: item) ?? PixelSize(width: 0, height: 0)
                for size in try container.codedSizes(of: item, isHEVC: isHEVC) {
                    largest = Self.larger(largest, size)
                }
                plan.largest = Self.larger(plan.largest, largest)
                total = largest.pixelCount
                if plan.codedFormat == nil { plan.codedFormat = container.codedFormat(of: item, isHEVC: isHEVC) }
            default:
                if let name = HEIFContainer.unsupportedCodecs[item.type] {
                    throw .unsupported("part of its image is coded as \(name)")
                }
                throw .malformed("its image is made of an item that is not an image")
            }
            decodedPixels[id] = total
            return total
        }

        static func larger(_ a: PixelSize, _ b: PixelSize) -> PixelSize { b.pixelCount > a.pixelCount ? b : a }

        static func sum(_ a: Int, _ b: Int) -> Int {
            let total = a.addingReportingOverflow(b)
            return total.overflow ? Int.max : total.partialValue
        }
    }
}
