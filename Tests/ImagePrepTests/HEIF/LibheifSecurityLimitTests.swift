internal import CHeif
import Testing

@testable import ImagePrep

/// libheif's security limits, which Debian's security updates add to and tighten (1.15.1-1+deb12u2
/// of 2026-12-01 added four), each said in our words with a code of its own. The sentences are
/// libheif's as `strings libheif.so.1` shows them, with numbers where it puts the file's; none of
/// those numbers may reach our message.
@Suite("libheif's security-limit refusals in our words")
struct LibheifSecurityLimitTests {
    static let refusals:
        [(
            code: heif_error_code, subcode: heif_suberror_code, message: String,
            limit: HEIFSecurityLimit, expectedCode: String
        )] = [
            (
                heif_error_Invalid_input, heif_suberror_Security_limit_exceeded,
                "Security limit exceeded: Overlay image composites more input images than allowed",
                .tooManyImagesComposed, "heif_too_many_images"
            ),
            (
                heif_error_Memory_allocation_error, heif_suberror_Security_limit_exceeded,
                "Security limit exceeded: Too many derived-image decode operations", .tooManyImagesComposed,
                "heif_too_many_images"
            ),
            (
                heif_error_Invalid_input, heif_suberror_Security_limit_exceeded,
                "Security limit exceeded: Overlay images are nested too deeply", .tooManyImagesComposed,
                "heif_too_many_images"
            ),
            (
                heif_error_Invalid_input, heif_suberror_Unspecified,
                "Invalid input: Unspecified: Coded image size 40961x40961 exceeds the maximum image size 32768x32768",
                .codedSizeBeyondImage, "heif_coded_size_too_large"
            ),
            (
                heif_error_Decoder_plugin_error, heif_suberror_Unspecified,
                "Decoder plugin generated an error: Decoded image does not have the bit depth signaled in the file.",
                .bitDepthChanged, "heif_bit_depth_changed"
            ),
            (
                heif_error_Memory_allocation_error, heif_suberror_Security_limit_exceeded,
                "Security limit exceeded: Inflated metadata exceeds the maximum memory block size", .metadataTooLarge,
                "heif_metadata_too_large"
            ),
            (
                heif_error_Memory_allocation_error, heif_suberror_Security_limit_exceeded,
                "Memory allocation error: Security limit exceeded: iloc box contained 4294967280 bytes, total memory size "
                    + "would be 4294967280 bytes, exceeding the security limit of 536870912 bytes", .dataTooLarge,
                "heif_data_too_large"
            ),
            (
                heif_error_Memory_allocation_error, heif_suberror_Security_limit_exceeded,
                "Box size 9223372036854775807 exceeds security limit.", .dataTooLarge, "heif_data_too_large"
            ),
            (
                heif_error_Memory_allocation_error, heif_suberror_Security_limit_exceeded,
                "Memory allocation error: Security limit exceeded: Image size 40000x40000 exceeds the maximum image size "
                    + "32768x32768", .imageTooLarge, "heif_image_too_large"
            ),
            (
                heif_error_Memory_allocation_error, heif_suberror_Security_limit_exceeded,
                "iloc data pointers out of allowed range", .dataPointerOutOfRange, "heif_data_pointer_out_of_range"
            ),
            (
                heif_error_Invalid_input, heif_suberror_Security_limit_exceeded, "Too many auxiliary image references",
                .tooManyEntries, "heif_too_many_entries"
            ),
            (
                heif_error_Memory_allocation_error, heif_suberror_Security_limit_exceeded,
                "Security limit for maximum nesting of boxes has been exceeded", .tooManyEntries,
                "heif_too_many_entries"
            ),
            (
                heif_error_Memory_allocation_error, heif_suberror_Security_limit_exceeded,
                "iinf box contains 999999 items, which exceeds the security limit of 65536", .tooManyEntries,
                "heif_too_many_entries"
            ),
            (
                heif_error_Memory_allocation_error, heif_suberror_Security_limit_exceeded,
                "Security limit exceeded: a limit of a later libheif, 123456", .unnamed, "heif_security_limit"
            ),
        ]

    @Test("each refusal gets its own sentence and code, naming the file and no number libheif read")
    func eachInOurWords() {
        for refusal in Self.refusals {
            let error = refusal.message.withCString { text in
                LibheifMessage(heif_error(code: refusal.code, subcode: refusal.subcode, message: text))
                    .error(file: "IMG_ABCD.HEIC")
            }
            #expect(error == .heifSecurityLimit(file: "IMG_ABCD.HEIC", limit: refusal.limit), "\(refusal.message)")
            #expect(error.code == refusal.expectedCode)
            #expect(
                error.description.hasPrefix(
                    "'IMG_ABCD.HEIC' is a HEIF file that libheif refuses at one of its security limits: "))
            let said = error.description.replacingOccurrences(of: "32768", with: "").replacingOccurrences(
                of: "512 MiB", with: "")
            #expect(!said.contains { $0.isNumber }, "a number read from the file in '\(error)'")
            #expect(!error.description.contains("pixels a side") || refusal.limit == .imageTooLarge)
        }
        #expect(Set(Self.refusals.map(\.limit)) == Set(HEIFSecurityLimit.allCases))
        #expect(Set(HEIFSecurityLimit.allCases.map(\.code)).count == HEIFSecurityLimit.allCases.count)
    }

    @Test("a refusal that is no security limit keeps its own words")
    func otherRefusals() {
        let cycle = "Invalid input: Unspecified: Image reference cycle".withCString { text in
            LibheifMessage(
                heif_error(code: heif_error_Invalid_input, subcode: heif_suberror_Unspecified, message: text)
            )
            .error(file: "a.heic")
        }
        #expect(cycle == .corruptHEIF(file: "a.heic", detail: "its images refer to each other in a loop"))
        let plugin = LibheifMessage(
            heif_error(code: heif_error_Decoder_plugin_error, subcode: heif_suberror_Unspecified, message: nil))
        #expect(plugin.error(file: "a.heic") == .corruptHEIF(file: "a.heic", detail: "the image data does not decode"))
    }

    @Test("a message with no end is read no further than its first 256 bytes")
    func unterminatedMessage() {
        let endless = [CChar](repeating: 0x41, count: 4096)  // no NUL within what is read
        let said = endless.withUnsafeBufferPointer { text in
            LibheifMessage(
                heif_error(
                    code: heif_error_Invalid_input, subcode: heif_suberror_Unspecified,
                    message: text.baseAddress))
        }
        #expect(said.error(file: "a.heic") == .corruptHEIF(file: "a.heic", detail: "libheif finds it malformed"))
    }
}
