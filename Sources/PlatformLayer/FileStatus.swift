/// What `fstat`, `stat` or `lstat` said of a file: its kind, size, identity, modification time,
/// owner and permissions.
package struct FileStatus: Sendable {
    /// What kind of file it is.
    package enum Kind: Sendable {
        case regular, folder, symbolicLink, namedPipe, socket, characterDevice, blockDevice, other
    }

    package let kind: Kind
    /// Its size in bytes.
    package let size: Int64
    /// Which file it is, whatever path it was reached by.
    package let identity: FileIdentity
    /// Its last modification, in nanoseconds since 1970 (saturated).
    package let modified: Int64
    /// Whether it belongs to this process's effective user.
    package let isOwnedByThisUser: Bool
    /// Its permission bits (`mode & 0o777`).
    package let permissions: UInt32

    init(_ info: stat) {
        switch info.st_mode & S_IFMT {
        case S_IFREG: kind = .regular
        case S_IFDIR: kind = .folder
        case S_IFLNK: kind = .symbolicLink
        case S_IFIFO: kind = .namedPipe
        case S_IFSOCK: kind = .socket
        case S_IFCHR: kind = .characterDevice
        case S_IFBLK: kind = .blockDevice
        default: kind = .other
        }
        size = Int64(info.st_size)
        identity = FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
        modified = Platform.modificationNanoseconds(of: info)
        isOwnedByThisUser = info.st_uid == geteuid()
        permissions = UInt32(info.st_mode & 0o777)
    }
}

/// The device and inode of a file: two paths with the same identity are one file (a link and
/// its target, `./a.jpg` and `a.jpg`, two hard links).
package struct FileIdentity: Hashable, Sendable {
    package let device: UInt64
    package let inode: UInt64
}
