#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Writes each photo's copies so that they appear under their final names together, each one
/// complete, or not at all, even when a signal stops the run.
///
/// A copy is first written to a temporary file beside its final name (`.prep-XXXXXX.tmp`: short,
/// so that any final name that fits also fits while it is written), flushed to the disk, and only
/// then renamed into place: after a crash or a power cut no half-written JPEG carries a final
/// name. Every temporary file is recorded here from the moment it exists, and a photo's copies are
/// renamed into place in one step under the same lock, so that `removeTemporariesAndExit` (the
/// second Ctrl-C) finds every temporary file there is, and sees each photo either with all its
/// copies in place or with none.
final class OutputWriter: Sendable {
    /// A copy written to its temporary file, waiting to be published.
    struct StagedCopy: Sendable {
        let temporary: BytePath
        let destination: BytePath
    }

    /// Why a copy could not be written or put in place.
    enum Failure: Error, Sendable {
        case cannotWrite(BytePath, SystemError)
        case cannotMove(BytePath, SystemError)
        /// Another process made a file of that name since this run checked.
        case appeared(BytePath)
    }

    private let temporaries = Locked(Set<BytePath>())

    /// Writes each copy to a new temporary file in its destination's folder and flushes them all
    /// to the disk; on a failure it removes what it wrote and names the copy.
    ///
    /// Every copy is written and its write-back started before the first is flushed: that
    /// flush then commits the file system's journal for all of them, where flushing each copy
    /// as it was written cost a commit each (ext4: 4 ms for a photo's three, against 2).
    ///
    /// - Parameter modified: the input's modification time, which each copy is given.
    func stage(_ copies: [(data: Data, destination: BytePath)], modified: Int64?) throws(Failure) -> [StagedCopy] {
        var staged: [StagedCopy] = []
        var descriptors: [Int32] = []
        defer { for descriptor in descriptors { FileSystem.close(descriptor) } }
        do throws(Failure) {
            for (data, destination) in copies {
                let (temporary, descriptor) = try createTemporary(beside: destination)
                descriptors.append(descriptor)
                staged.append(StagedCopy(temporary: temporary, destination: destination))
                do throws(SystemError) {
                    try FileSystem.write(data, to: descriptor, path: temporary)
                } catch {
                    throw .cannotWrite(destination, error)
                }
                if let modified { FileSystem.setModified(descriptor, nanoseconds: modified) }
                Platform.startWriteBack(descriptor)
            }
            for (copy, descriptor) in zip(staged, descriptors) {
                do throws(SystemError) {
                    try FileSystem.sync(descriptor, path: copy.temporary)
                } catch {
                    throw .cannotWrite(copy.destination, error)
                }
            }
        } catch {
            discard(staged)
            throw error
        }
        return staged
    }

    /// A new temporary file beside `destination`, recorded from the moment it exists.
    private func createTemporary(beside destination: BytePath) throws(Failure) -> (BytePath, Int32) {
        let folder = destination.parent ?? BytePath(".")
        return try temporaries.withLock { temporaries throws(Failure) in
            for _ in 0..<100 {
                let name = ".prep-" + String((0..<6).map { _ in Self.nameCharacters.randomElement()! }) + ".tmp"
                let temporary = folder.appending(name)
                do throws(SystemError) {
                    let descriptor = try FileSystem.createNew(temporary)
                    temporaries.insert(temporary)
                    return (temporary, descriptor)
                } catch  where error.isAlreadyThere {
                    continue
                } catch {
                    throw .cannotWrite(destination, error)
                }
            }
            throw .cannotWrite(destination, .alreadyThere("open", path: destination.description))
        }
    }

    /// Renames a photo's staged copies into place, all of them or none.
    ///
    /// - Parameters:
    ///   - replacing: whether a file already under a final name is replaced; when false, a name
    ///     taken meanwhile (by another process) fails the photo and nothing is replaced.
    ///   - published: runs once the copies are in place, still under the lock, so that a stop
    ///     at once (`removeTemporariesAndExit`) never comes between a photo placed and its report.
    func publish(_ copies: [StagedCopy], replacing: Bool, then published: () -> Void) throws(Failure) {
        try temporaries.withLock { temporaries throws(Failure) in
            var placed: [BytePath] = []
            for (index, copy) in copies.enumerated() {
                do throws(Failure) {
                    try Self.move(copy, replacing: replacing)
                    placed.append(copy.destination)
                    temporaries.remove(copy.temporary)
                } catch {
                    for destination in placed { FileSystem.remove(destination) }
                    for rest in copies[index...] {
                        FileSystem.remove(rest.temporary)
                        temporaries.remove(rest.temporary)
                    }
                    throw error
                }
            }
            published()
        }
    }

    /// Removes staged copies that will not be published.
    func discard(_ copies: [StagedCopy]) {
        temporaries.withLock { temporaries in
            for copy in copies {
                FileSystem.remove(copy.temporary)
                temporaries.remove(copy.temporary)
            }
        }
    }

    /// Removes every temporary file and, still holding the lock so that no copy is published
    /// after it, runs `exit`, which must end the process.
    func removeTemporariesAndExit(_ exit: () -> Never) -> Never {
        temporaries.withLock { temporaries -> Never in
            for temporary in temporaries { FileSystem.remove(temporary) }
            exit()
        }
    }

    private static func move(_ copy: StagedCopy, replacing: Bool) throws(Failure) {
        do throws(SystemError) {
            if replacing {
                try FileSystem.rename(copy.temporary, to: copy.destination)
                return
            }
            do throws(SystemError) {
                try FileSystem.link(copy.temporary, to: copy.destination)
            } catch  where error.meansNoHardLinks {
                // A file system without hard links (FAT, exFAT): check, then rename.
                if case .success = FileSystem.status(of: copy.destination, followingLinks: false) {
                    throw .alreadyThere("link", path: copy.temporary.description)
                }
                try FileSystem.rename(copy.temporary, to: copy.destination)
                return
            }
            FileSystem.remove(copy.temporary)
        } catch  where error.isAlreadyThere {
            throw .appeared(copy.destination)
        } catch {
            throw .cannotMove(copy.destination, error)
        }
    }

    private static let nameCharacters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
}
