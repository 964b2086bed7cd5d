#ifndef PIXEL_KERNELS_H
#define PIXEL_KERNELS_H
#include <stddef.h>
#include <stdint.h>

/// The loops that touch every pixel, in C so that they are fast in every build: Swift's SIMD
/// types are generic and run a hundred times slower unoptimised, which is how a debug build of
/// an app builds its dependencies, and Swift cannot compile one function for AVX2 and pick it at
/// run time.
///
/// The kernels are written once, with clang's vector extensions, and compiled twice on x86-64:
/// for the baseline (SSE2), which runs on every x86-64, and for AVX2 with FMA, chosen at run time
/// when the CPU has both. On arm64 the baseline build is NEON already.
///
/// Every pointer is only read or written for the length of the call, and none may be null.

#pragma clang assume_nonnull begin

/// The kernels of one instruction set.
typedef struct {
    /// A name for tests and benchmarks: "portable" or "avx2".
    const char *name;

    /// Widens `count` samples to floats.
    void (*widen)(const uint8_t *samples, ptrdiff_t count, float *out);

    /// Adds `count` samples to `sums`.
    void (*accumulate)(const uint8_t *samples, ptrdiff_t count, float *sums);

    /// The horizontal half of a box average: `out[c]` is the mean of `sums[c * factor ...]`
    /// over the `factor` columns that exist, each sum holding `rows` samples.
    void (*boxColumns)(const float *sums, ptrdiff_t width, int factor, int rows, ptrdiff_t outWidth, float *out);

    /// The vertical pass of a separable filter: `out[x] = Σ weights[k] · rows[k][x]` for
    /// `x < width`, where `width` is a multiple of 32 and every row holds that many floats,
    /// written as the horizontal pass takes its sums: times `PK_SUM_ONE`, rounded, clamped to
    /// 16 bits.
    void (*vertical)(const float *_Nonnull const *_Nonnull rows, const float *weights, int taps, ptrdiff_t width, int16_t *out);

    /// `vertical` on rows of bytes with weights in 2^14 fixed point (`PK_FIXED_ONE` is 1):
    /// `out[x] = Σ weights[k] · rows[k][x]` times `PK_SUM_ONE`, rounded half up, exactly, for
    /// `x < width` (a multiple of 32; every row holds that many bytes). `taps` is even.
    void (*verticalFixed)(
        const uint8_t *_Nonnull const *_Nonnull rows, const int16_t *weights, int taps, ptrdiff_t width, int16_t *out);

    /// The horizontal pass for a block of eight rows, written as bytes, in integers only: every
    /// build computes the same bytes.
    ///
    /// `sums` holds eight rows of vertical sums (times `PK_SUM_ONE`), `rowStride` apart, each
    /// readable to `paddedWidth` inclusive (a multiple of 16, with zeros past the real samples).
    /// Output column `j < outWidth` of row `r` is `Σ weights[j * taps + k] · sums[r][starts[j] + k]`
    /// for `k < taps` (even), weights in 2^14 fixed point, rounded and clamped to 0...255, and is
    /// written to `outRows[r][j]` for `r < rowCount`. `pairs` is scratch for `paddedWidth * 8`
    /// integers, 32-byte aligned; `starts[j] + taps <= paddedWidth` for every `j`.
    void (*horizontal8)(
        const int16_t *sums, ptrdiff_t rowStride, ptrdiff_t paddedWidth, const int32_t *starts, const int16_t *weights,
        int taps, ptrdiff_t outWidth, uint8_t *_Nonnull const *_Nonnull outRows, int rowCount, int32_t *pairs);

    /// Converts `count` interleaved RGB pixels in place through a matrix-and-curves transform
    /// folded by `pk_fold_matrix_shaper`: each pixel's three `products` entries summed, each
    /// channel's field looked up in `table`.
    void (*matrixShaperRGB)(uint8_t *pixels, ptrdiff_t count, const uint64_t *products, const uint8_t *table);

    /// Converts 4:2:0 YCbCr planes (JPEG's full-range BT.601) through a matrix-and-curves
    /// transform and back, in place, `rows` (even, or the image's last) image rows of `width`.
    ///
    /// Each pixel goes to RGB as libjpeg-turbo's decoder does with replicated chroma, through
    /// the transform of `matrixShaperRGB`, and comes back to YCbCr as libjpeg-turbo's encoder
    /// converts it, each chroma sample the rounded mean of its 2x2 block, as libjpeg-turbo
    /// downsamples.
    void (*convertColor)(
        uint8_t *luma, ptrdiff_t lumaStride, uint8_t *cb, uint8_t *cr, ptrdiff_t chromaStride, ptrdiff_t width,
        ptrdiff_t rows, const uint64_t *products, const uint8_t *table);

    /// One row of `width` interleaved 8-bit pixels of `channels` samples (1 gray, 2 gray and
    /// alpha, 3 RGB, 4 RGBA) as JPEG's full-range YCbCr (JFIF: BT.601 with libjpeg's fixed-point
    /// weights and rounding), each pixel with alpha first composited over `background` (R, G, B):
    /// `(sample * alpha + background * (255 - alpha)) / 255`, rounded. Gray rows write `luma` only
    /// (`cb` and `cr` are not touched); the background's gray is its BT.601 luma.
    void (*rowToYCbCr)(
        const uint8_t *row, ptrdiff_t width, int channels, const uint8_t *background, uint8_t *luma, uint8_t *cb,
        uint8_t *cr);
} pk_kernels;

/// The baseline build of every kernel.
const pk_kernels *pk_portable_kernels(void);

/// The fastest build this CPU runs: AVX2 with FMA where the CPU and the system support them,
/// else the baseline.
const pk_kernels *pk_best_kernels(void);

/// One plane turned as an EXIF Orientation (1-8) asks: target pixel (x, y) of the
/// `targetWidth` x `targetHeight` result comes from the source's `origin + x * stepX + y * stepY`.
/// Quarter turns move 8x8 blocks through a register transpose.
void pk_orient_plane(
    const uint8_t *source, ptrdiff_t origin, ptrdiff_t stepX, ptrdiff_t stepY, uint8_t *target, ptrdiff_t targetStride,
    ptrdiff_t targetWidth, ptrdiff_t targetHeight);

/// Weight 1 in the fixed point of the resampling weights.
#define PK_FIXED_ONE 16384

/// Sample value 1 in the vertical sums that the horizontal pass takes: six fractional bits leave
/// room in 16 bits for Lanczos3's overshoot (at most about 1.3 x 255) and its undershoot.
#define PK_SUM_BITS 6
#define PK_SUM_ONE (1 << PK_SUM_BITS)

/// `fixed[i * stride + k]` is `weights[i * stride + k]` in 2^14 fixed point, rounded so that each
/// output's weights still sum to exactly `PK_FIXED_ONE` (a flat picture stays flat). With a
/// `period` (`pk_filter_period`, else 0), a row equal to the one `period` before is copied.
void pk_fixed_weights(const float *weights, ptrdiff_t outputCount, int stride, ptrdiff_t period, int16_t *fixed);

/// The fractional bits of an encoding step in a folded product's fields.
#define PK_FOLD_BITS 7
/// The entries of a folded transform's table: every index a field can give.
#define PK_FOLD_TABLE_SIZE 16384

/// Folds a matrix-and-curves transform into integer tables, so that a pixel costs three loads,
/// two additions and three lookups. `matrix` is 3x3, row-major, from linear source RGB to linear
/// sRGB; `linearize` holds 256 linear values per source channel (clipped to 0...1 here);
/// `encode` holds sRGB-encoded bytes for linear 0...1 in `steps` steps.
///
/// `products[256 * c + v]` holds, for each output channel k in the 21-bit field at bit `21 * k`,
/// matrix entry (k, c) times channel c's linear value for v, in steps of `encode` with
/// `PK_FOLD_BITS` fractional bits, plus an offset that keeps every field and every sum of
/// three fields positive. Bits `21 * k + PK_FOLD_BITS` up of a sum then index `table`
/// (`PK_FOLD_TABLE_SIZE` bytes), which removes the offset, rounds to the nearest step, clips to
/// the steps and encodes.
///
/// Returns 0 when a matrix entry is not finite or the matrix's range of sums needs more steps
/// than the table has: when a row's most negative sum of entries and another's most positive
/// are more than about 4 apart (ProPhoto RGB's, the widest of the common profiles, are 3.07
/// apart). Such a transform must take another path.
int pk_fold_matrix_shaper(
    const float *matrix, const float *linearize, const uint8_t *encode, int steps, uint64_t *products,
    uint8_t *table);

/// `samples[i] = table[samples[i]]` for `count` samples.
void pk_apply_table(uint8_t *samples, ptrdiff_t count, const uint8_t *table);

/// The period of a filter whose scale is a multiple of 2^-20 small enough that every centre,
/// tap position and distance in `pk_lanczos3_weights` is exact in a double: the smallest `q`
/// (up to 1024) for which `q * scale` is a whole number, so that output `i + q` has output
/// `i`'s taps, bit for bit, `q * scale` inputs further on, wherever neither reaches past an
/// edge. 0 when there is none.
ptrdiff_t pk_filter_period(double scale, ptrdiff_t outputCount);

/// The weights of a Lanczos3 filter along one axis: for output `i`, `starts[i]` and `counts[i]`
/// give its taps in the input, `weights[i * stride ...]` their weights, normalised to a sum of 1,
/// zero past `counts[i]`. `scale` is input samples per output sample. With the scale's
/// `period` (`pk_filter_period`, else 0), an output that repeats the taps of the one a period
/// before copies them instead of working them out again: the same weights, bit for bit.
/// Returns the largest count.
int pk_lanczos3_weights(
    ptrdiff_t inputCount, ptrdiff_t outputCount, double scale, int stride, ptrdiff_t period, int32_t *starts,
    int32_t *counts, float *weights);
#pragma clang assume_nonnull end
#endif
