#ifndef CTIFF_SHIM_H
#define CTIFF_SHIM_H
#include <stdint.h>
#include <string.h>
#include <tiffio.h>

/// The bytes libtiff reads, and what it reported while reading them.
///
/// libtiff reports through handlers, never by longjmp; the handlers below count what it says and
/// keep which kind of thing it was, so that the caller says it in its own words and nothing is
/// printed to stderr. The file's own numbers in libtiff's text are never kept.
typedef struct {
    const uint8_t *bytes;
    uint64_t size;
    uint64_t position;
    int errors;
    int warnings;
    /// Set when libtiff refused an allocation beyond `TIFFOpenOptionsSetMaxSingleMemAlloc`'s limit.
    int memoryLimitHit;
    /// libtiff's module name for its first error ("LZWDecode", "TIFFReadDirectory"), cut to fit.
    char firstErrorModule[64];
} ctiff_source;

static tmsize_t ctiff_read(thandle_t handle, void *buffer, tmsize_t size) {
    ctiff_source *source = (ctiff_source *)handle;
    if (size <= 0 || source->position >= source->size) return 0;
    uint64_t available = source->size - source->position;
    uint64_t count = (uint64_t)size < available ? (uint64_t)size : available;
    memcpy(buffer, source->bytes + source->position, (size_t)count);
    source->position += count;
    return (tmsize_t)count;
}

static tmsize_t ctiff_write(thandle_t handle, void *buffer, tmsize_t size) {
    (void)handle; (void)buffer; (void)size;
    return -1;
}

static toff_t ctiff_seek(thandle_t handle, toff_t offset, int whence) {
    ctiff_source *source = (ctiff_source *)handle;
    uint64_t base = whence == SEEK_CUR ? source->position : (whence == SEEK_END ? source->size : 0);
    // An offset past the end is allowed (reads there give nothing); one that wraps is not.
    if (offset > UINT64_MAX / 2 || base > UINT64_MAX / 2) return (toff_t)-1;
    source->position = base + offset;
    return source->position;
}

static int ctiff_close(thandle_t handle) { (void)handle; return 0; }

static toff_t ctiff_size(thandle_t handle) { return ((ctiff_source *)handle)->size; }

/// The bytes are in memory already: libtiff reads strips and tiles straight from them.
static int ctiff_map(thandle_t handle, void **base, toff_t *size) {
    ctiff_source *source = (ctiff_source *)handle;
    *base = (void *)source->bytes;
    *size = source->size;
    return 1;
}

static void ctiff_unmap(thandle_t handle, void *base, toff_t size) { (void)handle; (void)base; (void)size; }

static int ctiff_on_error(TIFF *tif, void *user, const char *module, const char *format, va_list ap) {
    (void)tif; (void)ap;
    ctiff_source *source = (ctiff_source *)user;
    if (source->errors == 0 && module) {
        strncpy(source->firstErrorModule, module, sizeof(source->firstErrorModule) - 1);
        source->firstErrorModule[sizeof(source->firstErrorModule) - 1] = 0;
    }
    if (source->errors < INT32_MAX) source->errors += 1;
    // "Memory allocation of %llu bytes is beyond the %llu byte limit defined in open options".
    if (format && strstr(format, "beyond the") && strstr(format, "byte limit")) source->memoryLimitHit = 1;
    return 1;  // Handled: libtiff's global handler (stderr) is not called.
}

static int ctiff_on_warning(TIFF *tif, void *user, const char *module, const char *format, va_list ap) {
    (void)tif; (void)module; (void)format; (void)ap;
    ctiff_source *source = (ctiff_source *)user;
    if (source->warnings < INT32_MAX) source->warnings += 1;
    return 1;
}

/// Opens `source` with our handlers and a limit on every single allocation libtiff makes; the
/// strip and tile offsets are loaded as they are needed ('O'), so that a directory declaring a
/// billion strips costs nothing until one is read.
static inline TIFF *ctiff_open(ctiff_source *source, tmsize_t maxSingleAllocation) {
    TIFFOpenOptions *options = TIFFOpenOptionsAlloc();
    if (!options) return NULL;
    TIFFOpenOptionsSetMaxSingleMemAlloc(options, maxSingleAllocation);
    TIFFOpenOptionsSetErrorHandlerExtR(options, ctiff_on_error, source);
    TIFFOpenOptionsSetWarningHandlerExtR(options, ctiff_on_warning, source);
    TIFF *tif = TIFFClientOpenExt(
        "memory", "rO", (thandle_t)source, ctiff_read, ctiff_write, ctiff_seek, ctiff_close, ctiff_size, ctiff_map,
        ctiff_unmap, options);
    TIFFOpenOptionsFree(options);
    return tif;
}

/// Silences libtiff's process-wide handlers, which the few messages not tied to a handle reach.
static inline void ctiff_silence_global_handlers(void) {
    TIFFSetErrorHandler(NULL);
    TIFFSetWarningHandler(NULL);
}

// TIFFGetField and TIFFSetField are variadic, which Swift cannot call.
static inline int ctiff_get_u16(TIFF *tif, uint32_t tag, uint16_t *value) { return TIFFGetField(tif, tag, value); }
static inline int ctiff_get_u32(TIFF *tif, uint32_t tag, uint32_t *value) { return TIFFGetField(tif, tag, value); }
static inline int ctiff_get_u16_defaulted(TIFF *tif, uint32_t tag, uint16_t *value) {
    return TIFFGetFieldDefaulted(tif, tag, value);
}
static inline int ctiff_get_colormap(TIFF *tif, uint16_t **red, uint16_t **green, uint16_t **blue) {
    return TIFFGetField(tif, TIFFTAG_COLORMAP, red, green, blue);
}
static inline int ctiff_get_extra_samples(TIFF *tif, uint16_t *count, uint16_t **types) {
    return TIFFGetFieldDefaulted(tif, TIFFTAG_EXTRASAMPLES, count, types);
}
static inline int ctiff_set_jpeg_rgb(TIFF *tif) { return TIFFSetField(tif, TIFFTAG_JPEGCOLORMODE, JPEGCOLORMODE_RGB); }

/// Starts an RGBA read of `tif` that keeps the stored row order (no flip for Orientation, which
/// the upload carries instead); `message` gets libtiff's reason when it cannot.
static inline int ctiff_rgba_begin(TIFFRGBAImage *image, TIFF *tif, char message[1024]) {
    if (!TIFFRGBAImageOK(tif, message) || !TIFFRGBAImageBegin(image, tif, 0, message)) return 0;
    // setorientation() flips nothing when the requested orientation is the file's own.
    uint16_t orientation = image->orientation;
    image->req_orientation = (orientation >= 1 && orientation <= 8) ? orientation : ORIENTATION_TOPLEFT;
    return 1;
}

/// `rows` rows from `row` into `raster` (width x rows, top to bottom in stored order).
static inline int ctiff_rgba_rows(TIFFRGBAImage *image, uint32_t *raster, uint32_t row, uint32_t rows) {
    image->row_offset = (int)row;
    image->col_offset = 0;
    return TIFFRGBAImageGet(image, raster, image->width, rows);
}
#endif
