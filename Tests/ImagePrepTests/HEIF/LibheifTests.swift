import Testing

@testable import ImagePrep

/// The loader that opens libheif at the first HEIF file (`Sources/CHeif`): every function or none.
@Suite("Loading libheif: the library, or why not")
struct LibheifTests {
    @Test("a library that is not there is refused with the dynamic loader's reason, which names it")
    func missingLibrary() throws {
        let reason = try #require(Libheif.loadFailure(name: "libheif-not-installed.so.1"))
        #expect(reason.contains("libheif-not-installed.so.1"))
        #if os(Linux)
        #expect(reason.contains("cannot open shared object file"))
        #endif
    }

    #if os(Linux)
    @Test("a library that lacks a function ImagePrep calls is refused as a whole, naming the function")
    func libraryWithoutTheFunctions() {
        // libm opens, and has none of libheif's functions.
        #expect(Libheif.loadFailure(name: "libm.so.6") == "libm.so.6 has no heif_init (libheif 1.15 has it)")
    }

    @Test("Debian 12's libheif1 has every function, and the shared load takes it")
    func debianLibheif() throws {
        #expect(Libheif.loadFailure(name: "libheif.so.1") == nil)
        let libheif = try Libheif.shared(for: "x.heic")
        #expect(libheif.hasDecoder(for: .hevc))
    }
    #endif

    @Test("the error names the file, the package and the loader's reason, and has its own code")
    func unavailableError() {
        let error = ImagePrepError.heifUnavailable(
            file: "IMG_0001.HEIC", reason: "libheif.so.1: cannot open shared object file: No such file or directory")
        #expect(
            error.description
                == "'IMG_0001.HEIC' is a HEIF file, and HEIF support needs libheif (Debian package libheif1), which could not be loaded: libheif.so.1: cannot open shared object file: No such file or directory."
        )
        #expect(error.errorDescription == error.description)
        #expect(error.file == "IMG_0001.HEIC")
        #expect(error.code == "heif_unavailable")
    }
}
