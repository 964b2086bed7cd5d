// The kernels' bodies, compiled once per instruction set: `PortableKernels.c` includes this file
// as it is, `AVX2Kernels.c` inside `#pragma clang attribute push(target("avx2,fma"))` with
// PK_AVX2 set to 1. PK_SUFFIX names the table this file defines. Not a public header.
#include "PixelKernels.h"

#include <string.h>

// Eight-lane vectors pass between the helpers below by value; every helper is static and always
// inlined, so no such value crosses a call boundary, whose ABI would differ without AVX.
#pragma clang diagnostic ignored "-Wpsabi"

#define PK_JOIN2(a, b) a##_##b
#define PK_JOIN(a, b) PK_JOIN2(a, b)
#define PK_NAME(name) PK_JOIN(name, PK_SUFFIX)

typedef float pk_v8f __attribute__((vector_size(32)));
typedef int32_t pk_v8i __attribute__((vector_size(32)));
typedef uint8_t pk_v8b __attribute__((vector_size(8)));
typedef int16_t pk_v8s __attribute__((vector_size(16)));
typedef int16_t pk_v16s __attribute__((vector_size(32)));
// The same vectors at the alignment of their elements, for loads and stores anywhere.
typedef float pk_v8f_u __attribute__((vector_size(32), aligned(4)));
typedef int32_t pk_v8i_u __attribute__((vector_size(32), aligned(4)));
typedef uint8_t pk_v8b_u __attribute__((vector_size(8), aligned(1)));
typedef int16_t pk_v8s_u __attribute__((vector_size(16), aligned(2)));

static inline __attribute__((always_inline)) pk_v8f PK_NAME(load)(const float *p) { return *(const pk_v8f_u *)p; }

static inline __attribute__((always_inline)) void PK_NAME(store)(float *p, pk_v8f v) { *(pk_v8f_u *)p = v; }

static inline __attribute__((always_inline)) pk_v8b PK_NAME(load_bytes)(const uint8_t *p) {
    return *(const pk_v8b_u *)p;
}

static inline __attribute__((always_inline)) void PK_NAME(store_bytes)(uint8_t *p, pk_v8b v) { *(pk_v8b_u *)p = v; }

/// Transposes eight vectors of eight (rows in, columns out), as unpack, shuffle and lane swaps.
static inline __attribute__((always_inline)) void PK_NAME(transpose8)(pk_v8f *r) {
    pk_v8f t0 = __builtin_shufflevector(r[0], r[1], 0, 8, 1, 9, 4, 12, 5, 13);
    pk_v8f t1 = __builtin_shufflevector(r[0], r[1], 2, 10, 3, 11, 6, 14, 7, 15);
    pk_v8f t2 = __builtin_shufflevector(r[2], r[3], 0, 8, 1, 9, 4, 12, 5, 13);
    pk_v8f t3 = __builtin_shufflevector(r[2], r[3], 2, 10, 3, 11, 6, 14, 7, 15);
    pk_v8f t4 = __builtin_shufflevector(r[4], r[5], 0, 8, 1, 9, 4, 12, 5, 13);
    pk_v8f t5 = __builtin_shufflevector(r[4], r[5], 2, 10, 3, 11, 6, 14, 7, 15);
    pk_v8f t6 = __builtin_shufflevector(r[6], r[7], 0, 8, 1, 9, 4, 12, 5, 13);
    pk_v8f t7 = __builtin_shufflevector(r[6], r[7], 2, 10, 3, 11, 6, 14, 7, 15);
    pk_v8f u0 = __builtin_shufflevector(t0, t2, 0, 1, 8, 9, 4, 5, 12, 13);
    pk_v8f u1 = __builtin_shufflevector(t0, t2, 2, 3, 10, 11, 6, 7, 14, 15);
    pk_v8f u2 = __builtin_shufflevector(t1, t3, 0, 1, 8, 9, 4, 5, 12, 13);
    pk_v8f u3 = __builtin_shufflevector(t1, t3, 2, 3, 10, 11, 6, 7, 14, 15);
    pk_v8f u4 = __builtin_shufflevector(t4, t6, 0, 1, 8, 9, 4, 5, 12, 13);
    pk_v8f u5 = __builtin_shufflevector(t4, t6, 2, 3, 10, 11, 6, 7, 14, 15);
    pk_v8f u6 = __builtin_shufflevector(t5, t7, 0, 1, 8, 9, 4, 5, 12, 13);
    pk_v8f u7 = __builtin_shufflevector(t5, t7, 2, 3, 10, 11, 6, 7, 14, 15);
    r[0] = __builtin_shufflevector(u0, u4, 0, 1, 2, 3, 8, 9, 10, 11);
    r[1] = __builtin_shufflevector(u1, u5, 0, 1, 2, 3, 8, 9, 10, 11);
    r[2] = __builtin_shufflevector(u2, u6, 0, 1, 2, 3, 8, 9, 10, 11);
    r[3] = __builtin_shufflevector(u3, u7, 0, 1, 2, 3, 8, 9, 10, 11);
    r[4] = __builtin_shufflevector(u0, u4, 4, 5, 6, 7, 12, 13, 14, 15);
    r[5] = __builtin_shufflevector(u1, u5, 4, 5, 6, 7, 12, 13, 14, 15);
    r[6] = __builtin_shufflevector(u2, u6, 4, 5, 6, 7, 12, 13, 14, 15);
    r[7] = __builtin_shufflevector(u3, u7, 4, 5, 6, 7, 12, 13, 14, 15);
}

// MARK: Resampling

static void PK_NAME(widen)(const uint8_t *samples, ptrdiff_t count, float *out) {
    ptrdiff_t x = 0;
    for (; x + 8 <= count; x += 8) {
        PK_NAME(store)(out + x, __builtin_convertvector(PK_NAME(load_bytes)(samples + x), pk_v8f));
    }
    for (; x < count; x++) out[x] = samples[x];
}

static void PK_NAME(accumulate)(const uint8_t *samples, ptrdiff_t count, float *sums) {
    ptrdiff_t x = 0;
    for (; x + 8 <= count; x += 8) {
        PK_NAME(store)
        (sums + x, PK_NAME(load)(sums + x) + __builtin_convertvector(PK_NAME(load_bytes)(samples + x), pk_v8f));
    }
    for (; x < count; x++) sums[x] += samples[x];
}

static void PK_NAME(box_columns)(
    const float *sums, ptrdiff_t width, int factor, int rows, ptrdiff_t outWidth, float *out) {
    for (ptrdiff_t column = 0; column < outWidth; column++) {
        ptrdiff_t start = column * factor;
        ptrdiff_t end = start + factor < width ? start + factor : width;
        float total = 0;
        for (ptrdiff_t index = start; index < end; index++) total += sums[index];
        out[column] = total / (float)((end - start) * rows);
    }
}

/// Vertical sums as the horizontal pass takes them: times `PK_SUM_ONE`, rounded to the nearest
/// (adding 1.5 * 2^23 leaves the rounded value in the low mantissa bits) and clamped to 16 bits.
static inline __attribute__((always_inline)) pk_v8s PK_NAME(to_sums)(pk_v8f v) {
    const pk_v8f low = {0}, high = low + 32767.0f;
    v = __builtin_elementwise_min(__builtin_elementwise_max(v * (float)PK_SUM_ONE, low - 32768.0f), high) + 12582912.0f;
    return __builtin_convertvector((pk_v8i)v - 0x4B400000, pk_v8s);
}

static inline __attribute__((always_inline)) void PK_NAME(store_sums)(int16_t *p, pk_v8s v) { *(pk_v8s_u *)p = v; }

static void PK_NAME(vertical)(const float *const *rows, const float *weights, int taps, ptrdiff_t width, int16_t *out) {
    for (ptrdiff_t x = 0; x < width; x += 32) {
        pk_v8f a = {0}, b = {0}, c = {0}, d = {0};
        for (int k = 0; k < taps; k++) {
            const float *row = rows[k] + x;
            float weight = weights[k];
            a += weight * PK_NAME(load)(row);
            b += weight * PK_NAME(load)(row + 8);
            c += weight * PK_NAME(load)(row + 16);
            d += weight * PK_NAME(load)(row + 24);
        }
        PK_NAME(store_sums)(out + x, PK_NAME(to_sums)(a));
        PK_NAME(store_sums)(out + x + 8, PK_NAME(to_sums)(b));
        PK_NAME(store_sums)(out + x + 16, PK_NAME(to_sums)(c));
        PK_NAME(store_sums)(out + x + 24, PK_NAME(to_sums)(d));
    }
}

/// The vertical pass straight from rows of bytes, which hold a quarter of the floats' cache (a
/// Lanczos3 ring of a 4,000 px plane stays in L2), with 2^14 fixed-point weights: the sums are
/// exact integers, so every build computes the same samples. AVX2 multiplies and adds two taps
/// of 16-bit samples in one instruction (`vpmaddwd`, as pillow-simd does).
static void PK_NAME(vertical_fixed)(
    const uint8_t *const *rows, const int16_t *weights, int taps, ptrdiff_t width, int16_t *out) {
    // From 2^14 (the weights) to PK_SUM_ONE, rounding half up as an arithmetic shift does.
    const int shift = 14 - PK_SUM_BITS, half = 1 << (shift - 1);
#if PK_AVX2
    const __m256i zero = _mm256_setzero_si256(), rounding = _mm256_set1_epi32(half);
    for (ptrdiff_t x = 0; x < width; x += 32) {
        __m256i sums[4] = {zero, zero, zero, zero};
        for (int k = 0; k < taps; k += 2) {
            __m256i a = _mm256_loadu_si256((const __m256i *)(rows[k] + x));
            __m256i b = _mm256_loadu_si256((const __m256i *)(rows[k + 1] + x));
            __m256i pair = _mm256_set1_epi32(
                (int32_t)((uint32_t)(uint16_t)weights[k] | (uint32_t)(uint16_t)weights[k + 1] << 16));
            // Each 128-bit half interleaves its own bytes: a0 b0 a1 b1 ..., widened to 16 bits.
            __m256i low = _mm256_unpacklo_epi8(a, b), high = _mm256_unpackhi_epi8(a, b);
            sums[0] = _mm256_add_epi32(sums[0], _mm256_madd_epi16(_mm256_unpacklo_epi8(low, zero), pair));
            sums[1] = _mm256_add_epi32(sums[1], _mm256_madd_epi16(_mm256_unpackhi_epi8(low, zero), pair));
            sums[2] = _mm256_add_epi32(sums[2], _mm256_madd_epi16(_mm256_unpacklo_epi8(high, zero), pair));
            sums[3] = _mm256_add_epi32(sums[3], _mm256_madd_epi16(_mm256_unpackhi_epi8(high, zero), pair));
        }
        for (int i = 0; i < 4; i++) sums[i] = _mm256_srai_epi32(_mm256_add_epi32(sums[i], rounding), shift);
        // sums[i] holds samples 4i...4i+3 in its low half and 16+4i...16+4i+3 in its high half;
        // packing (with saturation) keeps the halves apart: samples 0-7 | 16-23, and 8-15 | 24-31.
        __m256i first = _mm256_packs_epi32(sums[0], sums[1]), second = _mm256_packs_epi32(sums[2], sums[3]);
        _mm256_storeu_si256((__m256i *)(out + x), _mm256_permute2x128_si256(first, second, 0x20));
        _mm256_storeu_si256((__m256i *)(out + x + 16), _mm256_permute2x128_si256(first, second, 0x31));
    }
#else
    for (ptrdiff_t x = 0; x < width; x += 8) {
        pk_v8i sum = {0};
        for (int k = 0; k < taps; k++) {
            sum += __builtin_convertvector(PK_NAME(load_bytes)(rows[k] + x), pk_v8i) * (int32_t)weights[k];
        }
        sum = (sum + half) >> shift;
        sum = __builtin_elementwise_min(__builtin_elementwise_max(sum, (pk_v8i){0} - 32768), (pk_v8i){0} + 32767);
        PK_NAME(store_sums)(out + x, __builtin_convertvector(sum, pk_v8s));
    }
#endif
}

/// One output column of the horizontal pass for the eight rows: `Σ weights[k] · sums[start + k]`
/// over `taps` taps, in 32-bit lanes (one per row). `pairs[c]` holds the eight rows' samples at
/// columns c and c + 1 side by side, so that two taps are one multiply-add of 16-bit pairs.
static inline __attribute__((always_inline)) pk_v8i PK_NAME(column_sum)(
    const int32_t *pairs, const int16_t *weights, int taps) {
#if PK_AVX2
    __m256i even = _mm256_setzero_si256(), odd = even;
    for (int k = 0; k < taps; k += 4) {
        int32_t weightPair;
        memcpy(&weightPair, weights + k, 4);
        even = _mm256_add_epi32(
            even, _mm256_madd_epi16(_mm256_load_si256((const __m256i *)(pairs + k * 8)), _mm256_set1_epi32(weightPair)));
        if (k + 2 < taps) {
            memcpy(&weightPair, weights + k + 2, 4);
            odd = _mm256_add_epi32(
                odd,
                _mm256_madd_epi16(_mm256_load_si256((const __m256i *)(pairs + (k + 2) * 8)), _mm256_set1_epi32(weightPair)));
        }
    }
    return (pk_v8i)_mm256_add_epi32(even, odd);
#else
    pk_v8i sum = {0};
    for (int k = 0; k < taps; k += 2) {
        pk_v16s both = *(const pk_v16s *)(pairs + k * 8);
        pk_v8i left = __builtin_convertvector(__builtin_shufflevector(both, both, 0, 2, 4, 6, 8, 10, 12, 14), pk_v8i);
        pk_v8i right = __builtin_convertvector(__builtin_shufflevector(both, both, 1, 3, 5, 7, 9, 11, 13, 15), pk_v8i);
        sum += left * (int32_t)weights[k] + right * (int32_t)weights[k + 1];
    }
    return sum;
#endif
}

/// The output columns of one block, `taps` a constant where the caller makes it one, so that the
/// taps' loop unrolls.
static inline __attribute__((always_inline)) void PK_NAME(horizontal_columns)(
    const int32_t *pairs, const int32_t *starts, const int16_t *weights, int taps, ptrdiff_t outWidth,
    uint8_t *const *outRows, int rowCount) {
    const int shift = 14 + PK_SUM_BITS;
    for (ptrdiff_t first = 0; first < outWidth; first += 8) {
        int count = outWidth - first < 8 ? (int)(outWidth - first) : 8;
        pk_v8f block[8];
        for (int i = 0; i < 8; i++) {
            pk_v8i sum = {0};
            if (i < count) {
                sum = PK_NAME(column_sum)(pairs + (ptrdiff_t)starts[first + i] * 8, weights + (first + i) * taps, taps);
            }
            block[i] = (pk_v8f)sum;
        }
        // The shuffles move bits, never arithmetic: the lanes stay the integers they were.
        PK_NAME(transpose8)(block);
        for (int r = 0; r < rowCount; r++) {
            pk_v8i value = ((pk_v8i)block[r] + (1 << (shift - 1))) >> shift;
            value = __builtin_elementwise_min(__builtin_elementwise_max(value, (pk_v8i){0}), (pk_v8i){0} + 255);
            pk_v8b bytes = __builtin_convertvector(value, pk_v8b);
            if (count == 8) {
                PK_NAME(store_bytes)(outRows[r] + first, bytes);
            } else {
                uint8_t spill[8];
                PK_NAME(store_bytes)(spill, bytes);
                memcpy(outRows[r] + first, spill, (size_t)count);
            }
        }
    }
}

static void PK_NAME(horizontal8)(
    const int16_t *sums, ptrdiff_t rowStride, ptrdiff_t paddedWidth, const int32_t *starts, const int16_t *weights,
    int taps, ptrdiff_t outWidth, uint8_t *const *outRows, int rowCount, int32_t *pairs) {
    // Row r's samples at columns c and c + 1 are one 32-bit lane: an 8 x 8 transpose of those
    // lanes from column x makes pairs x, x + 2, ... x + 14, and the same from x + 1 the others.
    for (ptrdiff_t x = 0; x < paddedWidth; x += 16) {
        for (int odd = 0; odd < 2; odd++) {
            pk_v8f block[8];
            for (int r = 0; r < 8; r++) memcpy(&block[r], sums + r * rowStride + x + odd, sizeof block[r]);
            PK_NAME(transpose8)(block);
            for (int i = 0; i < 8; i++) memcpy(pairs + (x + 2 * i + odd) * 8, &block[i], sizeof block[i]);
        }
    }
    // The strides of a halving (14, 16) and of a thumbnail (32) unroll; others loop.
    switch (taps) {
    case 14: PK_NAME(horizontal_columns)(pairs, starts, weights, 14, outWidth, outRows, rowCount); break;
    case 16: PK_NAME(horizontal_columns)(pairs, starts, weights, 16, outWidth, outRows, rowCount); break;
    case 32: PK_NAME(horizontal_columns)(pairs, starts, weights, 32, outWidth, outRows, rowCount); break;
    default: PK_NAME(horizontal_columns)(pairs, starts, weights, taps, outWidth, outRows, rowCount); break;
    }
}

// MARK: Colour

// libjpeg's fixed-point YCbCr constants (jdcolor.c, jccolor.c): FIX(x) = x * 2^16 rounded.
#define PK_FIX(x) ((int32_t)((x) * 65536.0 + 0.5))
#define PK_HALF (1 << 15)

/// One pixel through a folded matrix-and-curves transform (`pk_fold_matrix_shaper`): the sum of
/// its three products holds each output channel's step, offset and rounded, in a field of 21
/// bits. Scalar integers only: a vector form would need a gather per table, which costs more
/// than this on AMD's cores and is a loop of scalar loads on SSE2 and NEON.
static inline __attribute__((always_inline)) void PK_NAME(transform_pixel)(
    uint32_t r, uint32_t g, uint32_t b, const uint64_t *products, const uint8_t *table, uint8_t *outR, uint8_t *outG,
    uint8_t *outB) {
    uint64_t sum = products[r] + products[256 + g] + products[512 + b];
    *outR = table[(sum >> PK_FOLD_BITS) & (PK_FOLD_TABLE_SIZE - 1)];
    *outG = table[(sum >> (21 + PK_FOLD_BITS)) & (PK_FOLD_TABLE_SIZE - 1)];
    *outB = table[(sum >> (42 + PK_FOLD_BITS)) & (PK_FOLD_TABLE_SIZE - 1)];
}

static void PK_NAME(matrix_shaper_rgb)(uint8_t *pixels, ptrdiff_t count, const uint64_t *products, const uint8_t *table) {
    for (uint8_t *pixel = pixels; pixel < pixels + count * 3; pixel += 3) {
        PK_NAME(transform_pixel)(pixel[0], pixel[1], pixel[2], products, table, pixel, pixel + 1, pixel + 2);
    }
}

static inline __attribute__((always_inline)) pk_v8i PK_NAME(clamp_sample)(pk_v8i v) {
    return __builtin_elementwise_min(__builtin_elementwise_max(v, (pk_v8i){0}), (pk_v8i){0} + 255);
}

/// The RGB of one block of 4:2:0 planes: sixteen pixels in each of two rows and the eight Cb
/// and Cr samples they share. Group `2 * half + row` holds eight pixels of a row.
typedef struct {
    uint8_t red[32], green[32], blue[32];
} PK_NAME(rgb_block);

/// A block to RGB as libjpeg-turbo's decoder converts it, with its chroma replicated.
static inline __attribute__((always_inline)) void PK_NAME(block_to_rgb)(
    const uint8_t *y0, const uint8_t *y1, const uint8_t *cb, const uint8_t *cr, PK_NAME(rgb_block) *out) {
    pk_v8i cbv = __builtin_convertvector(PK_NAME(load_bytes)(cb), pk_v8i) - 128;
    pk_v8i crv = __builtin_convertvector(PK_NAME(load_bytes)(cr), pk_v8i) - 128;
    pk_v8i redOffset = (PK_FIX(1.40200) * crv + PK_HALF) >> 16;
    pk_v8i blueOffset = (PK_FIX(1.77200) * cbv + PK_HALF) >> 16;
    pk_v8i greenOffset = (-PK_FIX(0.34414) * cbv - PK_FIX(0.71414) * crv + PK_HALF) >> 16;
    const uint8_t *rows[2] = {y0, y1};
    for (int half = 0; half < 2; half++) {
        pk_v8i redHalf, greenHalf, blueHalf;
        if (half == 0) {
            redHalf = __builtin_shufflevector(redOffset, redOffset, 0, 0, 1, 1, 2, 2, 3, 3);
            greenHalf = __builtin_shufflevector(greenOffset, greenOffset, 0, 0, 1, 1, 2, 2, 3, 3);
            blueHalf = __builtin_shufflevector(blueOffset, blueOffset, 0, 0, 1, 1, 2, 2, 3, 3);
        } else {
            redHalf = __builtin_shufflevector(redOffset, redOffset, 4, 4, 5, 5, 6, 6, 7, 7);
            greenHalf = __builtin_shufflevector(greenOffset, greenOffset, 4, 4, 5, 5, 6, 6, 7, 7);
            blueHalf = __builtin_shufflevector(blueOffset, blueOffset, 4, 4, 5, 5, 6, 6, 7, 7);
        }
        for (int row = 0; row < 2; row++) {
            int group = (2 * half + row) * 8;
            pk_v8i yv = __builtin_convertvector(PK_NAME(load_bytes)(rows[row] + half * 8), pk_v8i);
            PK_NAME(store_bytes)(out->red + group, __builtin_convertvector(PK_NAME(clamp_sample)(yv + redHalf), pk_v8b));
            PK_NAME(store_bytes)(
                out->green + group, __builtin_convertvector(PK_NAME(clamp_sample)(yv + greenHalf), pk_v8b));
            PK_NAME(store_bytes)(
                out->blue + group, __builtin_convertvector(PK_NAME(clamp_sample)(yv + blueHalf), pk_v8b));
        }
    }
}

static inline __attribute__((always_inline)) void PK_NAME(transform_block)(
    PK_NAME(rgb_block) *block, const uint64_t *products, const uint8_t *table) {
    for (int i = 0; i < 32; i++) {
        PK_NAME(transform_pixel)(
            block->red[i], block->green[i], block->blue[i], products, table, block->red + i, block->green + i,
            block->blue + i);
    }
}

/// A block back to YCbCr as libjpeg-turbo's encoder converts it, each chroma sample the rounded
/// mean of its 2x2 block, as its h2v2 downsampling computes it.
static inline __attribute__((always_inline)) void PK_NAME(block_from_rgb)(
    const PK_NAME(rgb_block) *block, uint8_t *y0, uint8_t *y1, uint8_t *cb, uint8_t *cr) {
    // libjpeg-turbo's h2v2 downsampling rounds its 2x2 sums with a bias of 1 and 2 in turn.
    const pk_v8i bias = {1, 2, 1, 2, 1, 2, 1, 2};
    uint8_t *rows[2] = {y0, y1};
    pk_v8i chromaSums[2][2] = {{{0}}};
    for (int half = 0; half < 2; half++) {
        for (int row = 0; row < 2; row++) {
            int group = (2 * half + row) * 8;
            pk_v8i r = __builtin_convertvector(PK_NAME(load_bytes)(block->red + group), pk_v8i);
            pk_v8i g = __builtin_convertvector(PK_NAME(load_bytes)(block->green + group), pk_v8i);
            pk_v8i b = __builtin_convertvector(PK_NAME(load_bytes)(block->blue + group), pk_v8i);
            pk_v8i outY = (PK_FIX(0.29900) * r + PK_FIX(0.58700) * g + PK_FIX(0.11400) * b + PK_HALF) >> 16;
            pk_v8i outCb =
                (-PK_FIX(0.16874) * r - PK_FIX(0.33126) * g + PK_FIX(0.5) * b + (128 << 16) + PK_HALF - 1) >> 16;
            pk_v8i outCr =
                (PK_FIX(0.5) * r - PK_FIX(0.41869) * g - PK_FIX(0.08131) * b + (128 << 16) + PK_HALF - 1) >> 16;
            PK_NAME(store_bytes)(rows[row] + half * 8, __builtin_convertvector(outY, pk_v8b));
            chromaSums[half][0] += outCb;
            chromaSums[half][1] += outCr;
        }
    }
    for (int plane = 0; plane < 2; plane++) {
        // Adjacent lanes are the two columns of one 2x2 block.
        pk_v8i pairs =
            __builtin_shufflevector(chromaSums[0][plane], chromaSums[1][plane], 0, 2, 4, 6, 8, 10, 12, 14) +
            __builtin_shufflevector(chromaSums[0][plane], chromaSums[1][plane], 1, 3, 5, 7, 9, 11, 13, 15);
        PK_NAME(store_bytes)(plane == 0 ? cb : cr, __builtin_convertvector((pairs + bias) >> 2, pk_v8b));
    }
}

/// One block converted in place.
static inline __attribute__((always_inline)) void PK_NAME(convert_block)(
    uint8_t *y0, uint8_t *y1, uint8_t *cb, uint8_t *cr, const uint64_t *products, const uint8_t *table) {
    PK_NAME(rgb_block) block;
    PK_NAME(block_to_rgb)(y0, y1, cb, cr, &block);
    PK_NAME(transform_block)(&block, products, table);
    PK_NAME(block_from_rgb)(&block, y0, y1, cb, cr);
}

static void PK_NAME(convert_color)(
    uint8_t *luma, ptrdiff_t lumaStride, uint8_t *cb, uint8_t *cr, ptrdiff_t chromaStride, ptrdiff_t width,
    ptrdiff_t rows, const uint64_t *products, const uint8_t *table) {
    const ptrdiff_t chromaWidth = (width + 1) / 2;
    for (ptrdiff_t top = 0; top < rows; top += 2) {
        uint8_t *lumaRows[2] = {luma + top * lumaStride, luma + (top + 1 < rows ? top + 1 : top) * lumaStride};
        int lumaRowCount = top + 1 < rows ? 2 : 1;
        uint8_t *cbRow = cb + top / 2 * chromaStride, *crRow = cr + top / 2 * chromaStride;
        ptrdiff_t first = 0;
        // Whole blocks are converted where they lie.
        if (lumaRowCount == 2) {
            for (; first * 2 + 16 <= width; first += 8) {
                PK_NAME(convert_block)(
                    lumaRows[0] + first * 2, lumaRows[1] + first * 2, cbRow + first, crRow + first, products, table);
            }
        }
        // The rest through a copy: at the right edge the last real column stands in for the
        // missing ones, as libjpeg-turbo pads the edge, and the second row of an odd image's last
        // pair is the first one again.
        for (; first < chromaWidth; first += 8) {
            int chromaCount = chromaWidth - first < 8 ? (int)(chromaWidth - first) : 8;
            ptrdiff_t lumaFirst = first * 2;
            int lumaCount = width - lumaFirst < 16 ? (int)(width - lumaFirst) : 16;
            uint8_t y[2][16], u[8], v[8];
            for (int row = 0; row < 2; row++) {
                for (int i = 0; i < 16; i++) y[row][i] = lumaRows[row][lumaFirst + (i < lumaCount ? i : lumaCount - 1)];
            }
            for (int i = 0; i < 8; i++) {
                u[i] = cbRow[first + (i < chromaCount ? i : chromaCount - 1)];
                v[i] = crRow[first + (i < chromaCount ? i : chromaCount - 1)];
            }
            PK_NAME(convert_block)(y[0], y[1], u, v, products, table);
            for (int row = 0; row < lumaRowCount; row++) memcpy(lumaRows[row] + lumaFirst, y[row], (size_t)lumaCount);
            memcpy(cbRow + first, u, (size_t)chromaCount);
            memcpy(crRow + first, v, (size_t)chromaCount);
        }
    }
}

/// `(sample * alpha + background * (255 - alpha)) / 255`, rounded to nearest; `sample` itself
/// where alpha is 255.
static inline __attribute__((always_inline)) int32_t PK_NAME(composite)(
    int32_t sample, int32_t alpha, int32_t background) {
    int32_t mixed = sample * alpha + background * (255 - alpha) + 128;
    return (mixed + (mixed >> 8)) >> 8;
}

/// `row_to_ycbcr` for a constant `channels`, each pixel composited whatever its alpha (the
/// composite gives an opaque sample back unchanged), so that the loop has no branch and the
/// compiler vectorises it.
static inline __attribute__((always_inline)) void PK_NAME(row_to_ycbcr_of)(
    const uint8_t *row, ptrdiff_t width, int channels, const uint8_t *background, uint8_t *luma, uint8_t *cb,
    uint8_t *cr) {
    // libjpeg's jccolor.c: 16-bit fixed point, ONE_HALF for Y, ONE_HALF - 1 and the 128 offset for chroma.
    enum { yR = 19595, yG = 38470, yB = 7471, cbR = 11059, cbG = 21709, crG = 27439, crB = 5329, half = 32768 };
    const int32_t chromaBase = (128 << 16) + half - 1;
    const int32_t red = background[0], green = background[1], blue = background[2];
    if (channels <= 2) {
        const int32_t gray = (yR * red + yG * green + yB * blue + half) >> 16;
        for (ptrdiff_t x = 0; x < width; x++) {
            int32_t sample = row[x * channels];
            luma[x] = (uint8_t)(channels == 2 ? PK_NAME(composite)(sample, row[x * 2 + 1], gray) : sample);
        }
        return;
    }
    for (ptrdiff_t x = 0; x < width; x++) {
        const uint8_t *pixel = row + x * channels;
        int32_t r = pixel[0], g = pixel[1], b = pixel[2];
        if (channels == 4) {
            r = PK_NAME(composite)(r, pixel[3], red);
            g = PK_NAME(composite)(g, pixel[3], green);
            b = PK_NAME(composite)(b, pixel[3], blue);
        }
        luma[x] = (uint8_t)((yR * r + yG * g + yB * b + half) >> 16);
        cb[x] = (uint8_t)((-cbR * r - cbG * g + half * b + chromaBase) >> 16);
        cr[x] = (uint8_t)((half * r - crG * g - crB * b + chromaBase) >> 16);
    }
}

static void PK_NAME(row_to_ycbcr)(
    const uint8_t *row, ptrdiff_t width, int channels, const uint8_t *background, uint8_t *luma, uint8_t *cb,
    uint8_t *cr) {
    switch (channels) {
    case 1: PK_NAME(row_to_ycbcr_of)(row, width, 1, background, luma, cb, cr); break;
    case 2: PK_NAME(row_to_ycbcr_of)(row, width, 2, background, luma, cb, cr); break;
    case 3: PK_NAME(row_to_ycbcr_of)(row, width, 3, background, luma, cb, cr); break;
    default: PK_NAME(row_to_ycbcr_of)(row, width, 4, background, luma, cb, cr); break;
    }
}

const pk_kernels *PK_NAME(pk_kernels)(void) {
    static const pk_kernels kernels = {
        .name = PK_NAME_STRING,
        .widen = PK_NAME(widen),
        .accumulate = PK_NAME(accumulate),
        .boxColumns = PK_NAME(box_columns),
        .vertical = PK_NAME(vertical),
        .verticalFixed = PK_NAME(vertical_fixed),
        .horizontal8 = PK_NAME(horizontal8),
        .matrixShaperRGB = PK_NAME(matrix_shaper_rgb),
        .convertColor = PK_NAME(convert_color),
        .rowToYCbCr = PK_NAME(row_to_ycbcr),
    };
    return &kernels;
}
