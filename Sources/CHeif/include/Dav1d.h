#ifndef CHEIF_DAV1D_H
#define CHEIF_DAV1D_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/// dav1d (AV1), for the single AV1 images ImagePrep decodes itself, driven as libheif 1.15's dav1d
/// plugin drives it. libheif links dav1d (Debian 12: `libdav1d.so.6`), so loading it maps nothing
/// libheif had not mapped. dav1d's structures are read here, in C, through its own header
/// (`libdav1d-dev`); a build without the header has no direct AV1 decode (`cdav1d_library` says
/// why), and libheif decodes every AVIF as before.

#pragma clang assume_nonnull begin

/// What the direct decode reads of a picture dav1d decoded.
typedef struct {
    /// Y, Cb and Cr; a sample of more than 8 bits takes two bytes.
    const uint8_t *_Nullable planes[3];
    /// Between rows, in bytes: of Y, then of Cb and Cr.
    ptrdiff_t strides[2];
    int width;
    int height;
    /// 8, 10 or 12.
    int bitsPerSample;
    /// 0 monochrome, 1 4:2:0, 2 4:2:2, 3 4:4:4 (`Dav1dPixelLayout`).
    int layout;
    /// The sequence header's colour description (H.273 code points) and range, which libheif
    /// attaches to the picture and converts it by when the item has no nclx `colr` box.
    int primaries;
    int transfer;
    int matrix;
    bool isFullRange;
} cdav1d_picture;

/// A picture dav1d decoded, held until `cdav1d_release`; dav1d's decoder is closed already.
typedef struct cdav1d_decoded cdav1d_decoded;

/// Whether dav1d can be loaded (once for the process, from any thread); false, with the
/// reasons in `*reason` (which last as long as the process), when it cannot.
bool cdav1d_library(const char *_Nullable *_Nonnull reason);

/// Decodes the concatenation of `count` pieces (the `av1C` box's configOBUs, then the item's
/// data) as libheif 1.15's plugin does: dav1d's default settings but for `frame_size_limit`
/// (libheif's largest image, 32768 x 32768) and `all_layers` (0), the data sent whole, and the
/// first picture dav1d gives, flushing once. Three settings differ, none changing a sample:
/// one frame in flight (`max_frame_delay` 1), the whole data then read past the picture;
/// `threads` threads (1 or more) rather than one a core; and no log.
///
/// - Returns: the picture, described in `*picture`; null when dav1d refuses the data, gives no
///   picture or more than one (libheif then decodes or refuses the image in its own words), or
///   when the library cannot be loaded.
cdav1d_decoded *_Nullable cdav1d_decode(
    const void *_Nonnull const *_Nonnull pieces, const size_t *_Nonnull sizes, size_t count, int threads,
    cdav1d_picture *_Nonnull picture);

/// Gives the picture back to dav1d.
void cdav1d_release(cdav1d_decoded *_Nonnull decoded);

#pragma clang assume_nonnull end
#endif
