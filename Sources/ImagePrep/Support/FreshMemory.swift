internal import PlatformLayer

/// Has malloc fill every block it hands out with mid grey (0x80) while a HEIF image or a camera
/// raw is decoded.
///
/// libde265, libheif 1.15 and LibRaw 0.20 leave the parts of a damaged file's decode that they
/// never write (a slice libde265 cannot decode, canvas no grid tile reaches, raw rows a loader
/// stops short of) as malloc gave them: in a batch, memory that may hold an earlier photo's pixels.
/// The fuzz test saw it (about 1 damaged HEIC in 300 came out differently after other photos than
/// alone; so did a Panasonic raw). No library can be asked to clear them, so glibc's `M_PERTURB`
/// does, for the whole process but only while a decode runs (counted, for decodes on several
/// threads): one fill per allocation of over a kilobyte, each of which the decode writes anyway.
/// glibc's smallest blocks, kept per thread, are not filled; on other C libraries nothing is done.
enum FreshMemory {
    private static let decodes = Locked(0)

    static func filled<Result>(_ body: () -> Result) -> Result {
        decodes.withLock { count in
            if count == 0 { Platform.setMallocFill(0x7F) }  // Allocated bytes are set to ~0x7F.
            count += 1
        }
        defer {
            decodes.withLock { count in
                count -= 1
                if count == 0 { Platform.setMallocFill(0) }
            }
        }
        return body()
    }
}
