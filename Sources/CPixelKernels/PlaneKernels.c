// Kernels that need no vector instructions to be fast: byte moves, a table, filter weights.
#include "PixelKernels.h"

#include <math.h>
#include <string.h>

static inline uint64_t pk_load64(const uint8_t *p) {
    uint64_t word;
    memcpy(&word, p, 8);
    return word;
}

static inline void pk_swap_bits(uint64_t *a, uint64_t *b, unsigned shift, uint64_t mask) {
    uint64_t t = ((*a >> shift) ^ *b) & mask;
    *a ^= t << shift;
    *b ^= t;
}

/// The 8x8 target block at (`x`, `y`) of a quarter turn. Its source is an 8x8 block whose rows
/// are eight source rows (`stepX` apart) and whose columns run one way or the other (`stepY` is
/// +1 or -1): load the rows as words, transpose the bytes in registers, store the words as target
/// rows.
static void pk_turn_block(
    const uint8_t *source, ptrdiff_t origin, ptrdiff_t stepX, ptrdiff_t stepY, uint8_t *target, ptrdiff_t targetStride,
    ptrdiff_t x, ptrdiff_t y) {
    const uint8_t *left = source + (stepY > 0 ? origin : origin - 7);
    uint64_t r[8];
    for (int i = 0; i < 8; i++) r[i] = pk_load64(left + i * stepX);
    for (int i = 0; i < 4; i++) pk_swap_bits(&r[i], &r[i + 4], 32, 0x00000000FFFFFFFFull);
    pk_swap_bits(&r[0], &r[2], 16, 0x0000FFFF0000FFFFull);
    pk_swap_bits(&r[1], &r[3], 16, 0x0000FFFF0000FFFFull);
    pk_swap_bits(&r[4], &r[6], 16, 0x0000FFFF0000FFFFull);
    pk_swap_bits(&r[5], &r[7], 16, 0x0000FFFF0000FFFFull);
    for (int i = 0; i < 8; i += 2) pk_swap_bits(&r[i], &r[i + 1], 8, 0x00FF00FF00FF00FFull);
    // Word k now holds source column k read down the source rows: target row y + k, or y + 7 - k
    // when the columns run backwards.
    for (int k = 0; k < 8; k++) memcpy(target + (stepY > 0 ? y + k : y + 7 - k) * targetStride + x, &r[k], 8);
}

void pk_orient_plane(
    const uint8_t *source, ptrdiff_t origin, ptrdiff_t stepX, ptrdiff_t stepY, uint8_t *target, ptrdiff_t targetStride,
    ptrdiff_t targetWidth, ptrdiff_t targetHeight) {
    int isQuarterTurn = stepY == 1 || stepY == -1;
    ptrdiff_t blockWidth = isQuarterTurn ? targetWidth / 8 * 8 : 0;
    ptrdiff_t blockHeight = isQuarterTurn ? targetHeight / 8 * 8 : 0;
    if (isQuarterTurn) {
        // Bands of eight target rows read eight source columns: a band's source stays in cache.
        for (ptrdiff_t y = 0; y < blockHeight; y += 8) {
            for (ptrdiff_t x = 0; x < blockWidth; x += 8) {
                pk_turn_block(source, origin + x * stepX + y * stepY, stepX, stepY, target, targetStride, x, y);
            }
        }
    }
    for (ptrdiff_t y = 0; y < targetHeight; y++) {
        uint8_t *row = target + y * targetStride;
        // Columns the block pass made are skipped.
        ptrdiff_t first = y < blockHeight ? blockWidth : 0;
        const uint8_t *from = source + origin + first * stepX + y * stepY;
        if (stepX == 1) {
            memcpy(row + first, from, (size_t)(targetWidth - first));
            continue;
        }
        for (ptrdiff_t x = first; x < targetWidth; x++, from += stepX) row[x] = *from;
    }
}

void pk_apply_table(uint8_t *samples, ptrdiff_t count, const uint8_t *table) {
    for (ptrdiff_t index = 0; index < count; index++) samples[index] = table[samples[index]];
}

ptrdiff_t pk_filter_period(double scale, ptrdiff_t outputCount) {
    double fixedScale = scale * 1048576.0;
    // Centres are (2i + 1) * fixedScale / 2^21: exact while that product stays under 2^53.
    if (!(scale > 0) || fixedScale != floor(fixedScale) || fixedScale * (2.0 * (double)outputCount + 1) > 0x1p52) {
        return 0;
    }
    for (ptrdiff_t period = 1; period <= 1024 && period < outputCount; period++) {
        double inputs = (double)period * scale;
        if (inputs == floor(inputs)) return period;
    }
    return 0;
}

int pk_lanczos3_weights(
    ptrdiff_t inputCount, ptrdiff_t outputCount, double scale, int stride, ptrdiff_t period, int32_t *starts,
    int32_t *counts, float *weights) {
    double filterScale = scale > 1 ? scale : 1;
    double support = 3 * filterScale;
    int maxTaps = (int)ceil(2 * support) + 1;
    if (maxTaps > stride) maxTaps = stride;
    double taps[maxTaps];
    int largest = 0;
    memset(weights, 0, sizeof(float) * (size_t)(outputCount * stride));
    // The taps are evenly spaced, so sin(πx) and sin(πx/3) advance by a rotation each: two
    // sincos per output sample instead of two sin per tap, which made the weights of one
    // photo's filters cost milliseconds. The rotation is the same for every output, so it is
    // computed once here (per output it was four more calls into libm, 14 % of the time).
    const double step = 1 / filterScale;
    const double stepSine = sin(M_PI * step), stepCosine = cos(M_PI * step);
    const double stepSineThird = sin(M_PI * step / 3), stepCosineThird = cos(M_PI * step / 3);
    // An upload's scale often has a period (4000 to 2048 is 125/64): then only one period of
    // outputs and the edges are computed, the rest copied, `shift` inputs on each period.
    const ptrdiff_t shift = (ptrdiff_t)((double)period * scale);
    for (ptrdiff_t output = 0; output < outputCount; output++) {
        double center = ((double)output + 0.5) * scale;
        ptrdiff_t first = (ptrdiff_t)floor(center - support);
        ptrdiff_t end = (ptrdiff_t)ceil(center + support) + 1;
        if (period > 0 && output >= period && first >= 0 && end <= inputCount) {
            ptrdiff_t earlier = output - period;
            double earlierCenter = ((double)earlier + 0.5) * scale;
            if ((ptrdiff_t)floor(earlierCenter - support) >= 0 && starts[earlier] + shift == first) {
                memcpy(weights + output * stride, weights + earlier * stride, sizeof(float) * (size_t)stride);
                starts[output] = (int32_t)first;
                counts[output] = counts[earlier];
                continue;
            }
        }
        if (first < 0) first = 0;
        if (end > inputCount) end = inputCount;
        double total = 0;
        int count = 0;
        double x = ((double)first + 0.5 - center) / filterScale;
        double sine = sin(M_PI * x), cosine = cos(M_PI * x);
        double sineThird = sin(M_PI * x / 3), cosineThird = cos(M_PI * x / 3);
        for (ptrdiff_t input = first; input < end && count < maxTaps; input++) {
            double weight;
            if (fabs(x) < 1e-9) {
                weight = 1;
            } else if (fabs(x) >= 3) {
                weight = 0;
            } else {
                weight = 3 * sine * sineThird / (M_PI * M_PI * x * x);
            }
            taps[count++] = weight;
            total += weight;
            double nextSine = sine * stepCosine + cosine * stepSine;
            cosine = cosine * stepCosine - sine * stepSine;
            sine = nextSine;
            double nextSineThird = sineThird * stepCosineThird + cosineThird * stepSineThird;
            cosineThird = cosineThird * stepCosineThird - sineThird * stepSineThird;
            sineThird = nextSineThird;
            x = ((double)input + 1.5 - center) / filterScale;
        }
        // Taps past the edge are dropped and the rest renormalised (as Pillow does), so the edge
        // keeps its brightness.
        for (int index = 0; index < count; index++) weights[output * stride + index] = (float)(taps[index] / total);
        starts[output] = (int32_t)first;
        counts[output] = count;
        if (count > largest) largest = count;
    }
    return largest;
}

void pk_fixed_weights(const float *weights, ptrdiff_t outputCount, int stride, ptrdiff_t period, int16_t *fixed) {
    for (ptrdiff_t output = 0; output < outputCount; output++) {
        const float *row = weights + output * stride;
        int16_t *fixedRow = fixed + output * stride;
        // A row the same as one a period before rounds the same.
        if (period > 0 && output >= period && memcmp(row, row - period * stride, sizeof(float) * (size_t)stride) == 0) {
            memcpy(fixedRow, fixedRow - period * stride, sizeof(int16_t) * (size_t)stride);
            continue;
        }
        int32_t total = 0;
        int largest = 0;
        for (int k = 0; k < stride; k++) {
            double value = round((double)row[k] * PK_FIXED_ONE);
            // Normalised Lanczos3 weights stay within ±1.3; the clamp only keeps a value in range.
            if (value > 32767) value = 32767;
            if (value < -32767) value = -32767;
            fixedRow[k] = (int16_t)value;
            total += fixedRow[k];
            if (fabsf(row[k]) > fabsf(row[largest])) largest = k;
        }
        // The rounding's remainder goes to the largest weight, where it weighs least.
        int32_t corrected = fixedRow[largest] + (PK_FIXED_ONE - total);
        if (corrected <= 32767 && corrected >= -32767) fixedRow[largest] = (int16_t)corrected;
    }
}

int pk_fold_matrix_shaper(
    const float *matrix, const float *linearize, const uint8_t *encode, int steps, uint64_t *products,
    uint8_t *table) {
    if (steps < 2) return 0;
    const double scale = (double)(steps - 1), unit = (double)(1 << PK_FOLD_BITS);
    // offsets[k][c]: whole steps added to entry (k, c), at least its most negative product.
    double offsets[3][3], totals[3] = {0, 0, 0}, highest = 0, common = 0;
    for (int k = 0; k < 3; k++) {
        double positive = 0;
        for (int c = 0; c < 3; c++) {
            double m = matrix[k * 3 + c];
            // A finite but huge entry fails the range check below; doubles hold any float times steps.
            if (!isfinite(m)) return 0;
            offsets[k][c] = ceil(fmax(0, -m) * scale);
            totals[k] += offsets[k][c];
            positive += fmax(0, m) * scale;
        }
        if (totals[k] > common) common = totals[k];
        if (ceil(positive) > highest) highest = ceil(positive);
    }
    // Every sum's index is below common + highest + 1, so it must stay below the table's size;
    // the fields (21 bits) then hold it with its fractional bits too.
    if (common + highest + 1 >= PK_FOLD_TABLE_SIZE) return 0;
    for (int c = 0; c < 3; c++) {
        for (int v = 0; v < 256; v++) {
            double l = linearize[c * 256 + v];
            l = l > 0 ? (l < 1 ? l : 1) : 0;  // Also NaN to 0.
            uint64_t word = 0;
            for (int k = 0; k < 3; k++) {
                double field = round((double)matrix[k * 3 + c] * l * scale * unit) + offsets[k][c] * unit;
                // The first channel's entries also carry the offset up to the common one, and the
                // half step that makes the table's truncation a rounding.
                if (c == 0) field += (common - totals[k]) * unit + unit / 2;
                word |= (uint64_t)field << (21 * k);
            }
            products[c * 256 + v] = word;
        }
    }
    for (int index = 0; index < PK_FOLD_TABLE_SIZE; index++) {
        int step = index - (int)common;
        table[index] = encode[step < 0 ? 0 : (step < steps ? step : steps - 1)];
    }
    return 1;
}
