import Testing

@testable import ImagePrep

@Suite("Turning planes upright")
struct OrientationTests {
    /// Where target pixel (x, y) comes from in a `width` x `height` source, straight from the
    /// EXIF definitions, as the reference for the fast paths.
    static func sourcePixel(x: Int, y: Int, width: Int, height: Int, _ orientation: Orientation) -> (Int, Int) {
        switch orientation {
        case .up: (x, y)
        case .upMirrored: (width - 1 - x, y)
        case .down: (width - 1 - x, height - 1 - y)
        case .downMirrored: (x, height - 1 - y)
        case .leftMirrored: (y, x)
        case .right: (y, height - 1 - x)
        case .rightMirrored: (width - 1 - y, height - 1 - x)
        case .left: (width - 1 - y, x)
        }
    }

    /// Sizes that are and are not multiples of the 8x8 blocks the quarter turns move, over more
    /// than one 64-pixel tile, in gray
    /// and 4:2:0 (whose chroma planes are half as big, rounded up).
    @Test("every orientation moves every pixel where the EXIF definition says", arguments: Orientation.allCases)
    func everyPixel(orientation: Orientation) throws {
        for size in [
            PixelSize(width: 64, height: 48), PixelSize(width: 150, height: 131), PixelSize(width: 37, height: 21),
            PixelSize(width: 9, height: 17),
        ] {
            for isGray in [true, false] {
                let image = PlanarImage()
                try image.reshape(size: size, isGray: isGray, subsampling: .quarter, file: "test")
                var random = SystemRandomNumberGenerator()
                for plane in image.activePlanes {
                    for y in 0..<plane.height {
                        for x in 0..<plane.width { plane.row(y)[x] = .random(in: 0...255, using: &random) }
                    }
                }
                let turned = PlanarImage()
                try image.orient(orientation, into: turned, file: "test")
                #expect(turned.size == (orientation.swapsWidthAndHeight ? size.transposed : size))
                for (index, plane) in image.activePlanes.enumerated() {
                    let factor = index == 0 ? 1 : 2
                    let real = PixelSize(
                        width: (size.width + factor - 1) / factor, height: (size.height + factor - 1) / factor)
                    let target = turned.planes[index]
                    var wrong = 0
                    for y in 0..<(orientation.swapsWidthAndHeight ? real.width : real.height) {
                        for x in 0..<(orientation.swapsWidthAndHeight ? real.height : real.width) {
                            let (sx, sy) = Self.sourcePixel(
                                x: x, y: y, width: real.width, height: real.height, orientation)
                            if target.row(y)[x] != plane.row(sy)[sx] { wrong += 1 }
                        }
                    }
                    #expect(wrong == 0, "\(wrong) pixels wrong in plane \(index) of \(size), gray: \(isGray)")
                }
            }
        }
    }
}
