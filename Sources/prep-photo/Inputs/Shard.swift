/// `--shard I/N`: one of N runs over the same inputs, which prepares every N-th of them, starting
/// with the I-th (0-based), counted over the command line and the file lists in order.
struct Shard: Sendable, Equatable, CustomStringConvertible {
    let index: Int
    let count: Int

    /// The most shards one list is cut into: far more than any cluster runs at once, and small
    /// enough that no count overflows.
    static let largestCount = 1_000_000

    /// "3/8"; nil unless it is INDEX/COUNT with COUNT from 1 to `largestCount` and INDEX from 0
    /// to COUNT-1, both in plain digits.
    init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        // 0 to 9 only: Int() takes a sign, and isNumber other scripts' digits.
        let isPlainNumber = { (part: Substring) in
            !part.isEmpty && part.count <= 7 && part.allSatisfy { ("0"..."9").contains($0) }
        }
        guard parts.count == 2, parts.allSatisfy(isPlainNumber),
            let index = Int(parts[0]), let count = Int(parts[1]), (1...Self.largestCount).contains(count),
            (0..<count).contains(index)
        else { return nil }
        (self.index, self.count) = (index, count)
    }

    init(index: Int, count: Int) { (self.index, self.count) = (index, count) }

    /// Whether the input at `position` (0-based) is this shard's.
    func includes(position: Int) -> Bool { position % count == index }

    var description: String { "shard \(index) of \(count)" }
}

/// The copies' names of every input of every shard, given out in input order.
///
/// Shards of one library run at once, on one machine or many, into one `--out`, and none sees
/// what the others write. So that no two of them ever write the same copies, each reads the whole
/// list and gives each input's copies to the first input that names them, by the inputs' paths
/// alone: every shard comes to the same answer, and an input whose copies an earlier input of
/// any shard names is refused by its own shard (`output_clash`), as one run over the whole list
/// refuses it. The other shards' files are never opened, nor looked up (every shard looking up
/// every photo would cost a shared file system more than the photos do), except that a path not
/// below `--base` as written has its links resolved, as when it is prepared.
struct ShardClaims {
    let shard: Shard
    private var claims: StemRegistry<(path: BytePath, position: Int)>

    init(shard: Shard, writesDisplay: Bool, writesThumbnail: Bool) {
        self.shard = shard
        claims = StemRegistry(writesDisplay: writesDisplay, writesThumbnail: writesThumbnail)
    }

    /// Claims the copies of the input at `position` unless an earlier input claimed them, and
    /// adds it to `discovery` when it is this shard's: refused when it lost its copies, to be
    /// looked at and prepared otherwise.
    mutating func add(
        _ path: BytePath, at position: Int, to discovery: inout InputDiscovery, outputFolder: BytePath
    ) {
        // An input outside --base claims nothing: its own shard fails it (`outside_base`).
        let stem = discovery.mirroredPath(ofGiven: path).map { BatchPlan.stem(of: $0).bytes }
        let earlier = stem.flatMap { claims.writer(clashingWith: $0) }
        if let stem, earlier == nil { claims.register(stem, writer: (path, position)) }
        guard shard.includes(position: position) else { return }
        guard let earlier, let stem else { return discovery.add(path) }
        let earlierShard = Shard(index: earlier.position % shard.count, count: shard.count)
        discovery.addFailure(
            path, code: BatchPlan.clashCode,
            message: BatchPlan.clashMessage(
                path, earlier: earlier.path, shard: earlierShard == shard ? nil : earlierShard,
                copy: outputFolder.appending(stem)))
    }
}
