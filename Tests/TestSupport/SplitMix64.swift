/// SplitMix64 (Steele, Lea and Flood): a small random number generator whose sequence depends only
/// on its seed, the same on every machine, so that a failing run can be made again from its seed.
public struct SplitMix64: RandomNumberGenerator {
    /// The seed the generator started from, to print.
    public let seed: UInt64
    private var state: UInt64

    public init(seed: UInt64) {
        self.seed = seed
        state = seed
    }

    /// A generator seeded from `text` by FNV-1a (Swift's `Hasher` is seeded per process).
    public init(seed text: String) {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in text.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        self.init(seed: hash)
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}
