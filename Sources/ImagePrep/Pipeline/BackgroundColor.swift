extension PhotoPreparer {
    /// An opaque colour, 8 bits a channel in sRGB, for what is behind a transparent pixel: a JPEG
    /// has no alpha, so a PNG's, GIF's or WebP's transparency is composited over it.
    public struct BackgroundColor: Sendable, Hashable {
        /// The red channel, 0 to 255.
        public var red: UInt8
        /// The green channel, 0 to 255.
        public var green: UInt8
        /// The blue channel, 0 to 255.
        public var blue: UInt8

        /// A colour of these sRGB channels.
        public init(red: UInt8, green: UInt8, blue: UInt8) {
            self.red = red
            self.green = green
            self.blue = blue
        }

        /// White, the default: transparency shows as on a page or a chat bubble.
        public static let white = BackgroundColor(red: 255, green: 255, blue: 255)
        /// Black.
        public static let black = BackgroundColor(red: 0, green: 0, blue: 0)
    }
}

extension PhotoPreparer.BackgroundColor {
    /// The colour written `RRGGBB` (a leading `#` allowed), as on the command line; nil for
    /// anything else.
    public init?(hexadecimal text: String) {
        let digits = text.hasPrefix("#") ? text.dropFirst() : Substring(text)
        guard digits.count == 6, digits.allSatisfy(\.isHexDigit), let value = UInt32(digits, radix: 16) else {
            return nil
        }
        self.init(red: UInt8(value >> 16), green: UInt8(value >> 8 & 0xFF), blue: UInt8(value & 0xFF))
    }
}
