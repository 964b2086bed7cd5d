import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Files named by their bytes, for names that are not UTF-8 (which `FileManager` cannot spell),
/// and the special files a library holds: links and FIFOs.
extension TemporaryFolder {
    /// `relative` below the folder, as a C path.
    func rawPath(_ relative: [UInt8]) -> [CChar] {
        (Array(url.path.utf8) + (relative.isEmpty ? [] : [UInt8(ascii: "/")] + relative) + [0]).map {
            CChar(bitPattern: $0)
        }
    }

    /// Copies a fixture to a path given as bytes, making its folders.
    func copy(_ fixture: String, toRaw relative: [UInt8]) throws {
        try writeRaw(Data(contentsOf: Fixtures.url(fixture)), to: relative)
    }

    func writeRaw(_ data: Data, to relative: [UInt8]) throws {
        let parts = relative.split(separator: UInt8(ascii: "/"))
        var folder: [UInt8] = []
        for part in parts.dropLast() {
            folder += (folder.isEmpty ? [] : [UInt8(ascii: "/")]) + part
            if mkdir(rawPath(folder), 0o755) != 0, errno != EEXIST { throw POSIXError(.init(rawValue: errno)!) }
        }
        let descriptor = open(rawPath(relative), O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard descriptor >= 0 else { throw POSIXError(.init(rawValue: errno)!) }
        defer { close(descriptor) }
        let written = data.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress!, $0.count) }
        guard written == data.count else { throw POSIXError(.EIO) }
    }

    func readRaw(_ relative: [UInt8]) throws -> [UInt8] {
        let descriptor = open(rawPath(relative), O_RDONLY)
        guard descriptor >= 0 else { throw POSIXError(.init(rawValue: errno)!) }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress!, $0.count) }
            guard count > 0 else { break }
            bytes += buffer[0..<count]
        }
        return bytes
    }

    /// The JPEG at a path given as bytes.
    func jpeg(raw relative: [UInt8]) throws -> JPEGFile { JPEGFile(bytes: try readRaw(relative)) }

    /// `lstat` of a path below the folder: its inode and modification time, or nil.
    func fileStamp(_ relative: [UInt8]) -> FileStamp? {
        var info = stat()
        guard lstat(rawPath(relative), &info) == 0 else { return nil }
        return FileStamp(
            inode: UInt64(info.st_ino),
            modified: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec),
            size: Int64(info.st_size))
    }

    func symlink(_ target: String, at relative: String) throws {
        try makeFolder((relative as NSString).deletingLastPathComponent)
        guard Glibc.symlink(target, path(relative)) == 0 else { throw POSIXError(.init(rawValue: errno)!) }
    }

    func makeFIFO(at relative: String) throws {
        try makeFolder((relative as NSString).deletingLastPathComponent)
        guard mkfifo(path(relative), 0o644) == 0 else { throw POSIXError(.init(rawValue: errno)!) }
    }

    /// Every path below `relative` (the whole folder by default), as bytes, relative to the
    /// folder, sorted; links are listed and not followed.
    func allRawPaths(below relative: [UInt8] = []) -> [[UInt8]] {
        var found: [[UInt8]] = []
        var pending = [relative]
        while let folder = pending.popLast() {
            guard let directory = opendir(rawPath(folder)) else { continue }
            defer { closedir(directory) }
            while let entry = readdir(directory) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
                if name == Array(".".utf8) || name == Array("..".utf8) { continue }
                let path = folder.isEmpty ? name : folder + [UInt8(ascii: "/")] + name
                found.append(path)
                var info = stat()
                if lstat(rawPath(path), &info) == 0, info.st_mode & S_IFMT == S_IFDIR { pending.append(path) }
            }
        }
        return found.sorted { $0.lexicographicallyPrecedes($1) }
    }

    /// The regular files below `relative`, as bytes relative to `relative`.
    /// The regular files below `relative`, as paths relative to it; not prep-photo's output marks.
    func rawFiles(below relative: String) -> [[UInt8]] {
        let prefix = Array(relative.utf8) + [UInt8(ascii: "/")]
        let mark = Array(TemporaryFolder.outputMark.utf8)
        return allRawPaths(below: Array(relative.utf8)).filter { path in
            var info = stat()
            return lstat(rawPath(path), &info) == 0 && info.st_mode & S_IFMT == S_IFREG
                && !path.split(separator: UInt8(ascii: "/")).last!.elementsEqual(mark)
        }.map { Array($0.dropFirst(prefix.count)) }
    }
}

/// What says whether a file was written again: a new inode, a new time or a new size.
struct FileStamp: Equatable {
    let inode: UInt64
    let modified: Int64
    let size: Int64
}

/// A path's bytes as the tests write them: text, with `\xHH` for single bytes.
func rawBytes(_ text: String) -> [UInt8] {
    var bytes: [UInt8] = []
    var rest = Substring(text)
    while let first = rest.first {
        if rest.hasPrefix("\\x"), let byte = UInt8(rest.dropFirst(2).prefix(2), radix: 16) {
            bytes.append(byte)
            rest = rest.dropFirst(4)
        } else {
            bytes += Array(String(first).utf8)
            rest = rest.dropFirst()
        }
    }
    return bytes
}
