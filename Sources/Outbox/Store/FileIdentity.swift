/// Which file a path named at one moment: its device and inode.
struct FileIdentity: Hashable {
    let device: UInt64
    let inode: UInt64

    init(_ identity: (device: UInt64, inode: UInt64)) {
        (device, inode) = identity
    }
}
