#include "Dav1d.h"
#include "Loading.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if __has_include(<dav1d/dav1d.h>)
#include <dav1d/dav1d.h>

/// The names dav1d goes by, most specific first: Debian 12's libdav1d6, then the development link.
static const char *const dav1dNames[] = {
#if defined(__APPLE__)
    "libdav1d.6.dylib",
    "libdav1d.dylib",
    "/opt/homebrew/lib/libdav1d.6.dylib",
    "@rpath/dav1d.framework/dav1d",
#else
    "libdav1d.so.6",
    "libdav1d.so",
#endif
};

#define CDAV1D_FUNCTIONS(X)                                                                                          \
    X(dav1d_default_settings)                                                                                        \
    X(dav1d_open)                                                                                                    \
    X(dav1d_close)                                                                                                   \
    X(dav1d_data_create)                                                                                             \
    X(dav1d_data_unref)                                                                                              \
    X(dav1d_send_data)                                                                                               \
    X(dav1d_get_picture)                                                                                             \
    X(dav1d_picture_unref)

typedef struct {
#define CDAV1D_FIELD(name) __typeof__(name) *name;
    CDAV1D_FUNCTIONS(CDAV1D_FIELD)
#undef CDAV1D_FIELD
} cdav1d_functions;

#define CDAV1D_SYMBOL(function) #function,
static const char *const dav1dSymbols[] = {CDAV1D_FUNCTIONS(CDAV1D_SYMBOL)};
#undef CDAV1D_SYMBOL
#define CDAV1D_COUNT(symbols) (sizeof symbols / sizeof symbols[0])

static bool loadDav1d(const char *name, void *table, char *reason, size_t capacity) {
    void *found[CDAV1D_COUNT(dav1dSymbols)];
    if (!cheif_open_resolving(name, dav1dSymbols, CDAV1D_COUNT(dav1dSymbols), found, "dav1d 1.0", reason, capacity)) {
        return false;
    }
    cdav1d_functions *functions = table;
    size_t index = 0;
#define CDAV1D_ASSIGN(function) functions->function = (__typeof__(function) *)found[index++];
    CDAV1D_FUNCTIONS(CDAV1D_ASSIGN)
#undef CDAV1D_ASSIGN
    return true;
}

static pthread_once_t dav1dOnce = PTHREAD_ONCE_INIT;
static cdav1d_functions dav1dFunctions;
static SharedLibrary dav1d;

static void loadSharedDav1d(void) {
    cheif_load_first(dav1dNames, CDAV1D_COUNT(dav1dNames), loadDav1d, &dav1dFunctions, &dav1d);
}

bool cdav1d_library(const char **reason) {
    pthread_once(&dav1dOnce, loadSharedDav1d);
    *reason = dav1d.reason;
    return dav1d.table != NULL;
}

struct cdav1d_decoded {
    Dav1dPicture picture;
};

/// libheif 1.15's largest image (`heif_limits.h`: MAX_IMAGE_WIDTH * MAX_IMAGE_HEIGHT), its plugin's frame size limit.
static const unsigned libheifFrameSizeLimit = 32768u * 32768u;

cdav1d_decoded *cdav1d_decode(
    const void *const *pieces, const size_t *sizes, size_t count, int threads, cdav1d_picture *out) {
    const char *reason;
    if (!cdav1d_library(&reason)) return NULL;
    const cdav1d_functions *f = &dav1dFunctions;
    Dav1dSettings settings;
    f->dav1d_default_settings(&settings);
    settings.frame_size_limit = libheifFrameSizeLimit;
    settings.all_layers = 0;
    // One frame in flight, where libheif's default lets dav1d decode frames on several threads
    // (two frame contexts on two cores): the same picture, without the coefficients of the
    // whole frame that dav1d keeps between its two passes then (8 bytes a pixel for 10-bit
    // 4:2:2; a 20 MP AVIF peaked at 332 MB with them). Tile and filter threads stay.
    settings.max_frame_delay = 1;
    // Threads of the caller's choice, where libheif takes one a core: the samples are the same
    // whatever their number, and what dav1d holds for each does not grow with the machine.
    settings.n_threads = threads;
    // No log: what dav1d would print on stderr changes nothing it decodes.
    settings.logger.callback = NULL;
    Dav1dContext *context = NULL;
    if (f->dav1d_open(&context, &settings) != 0) return NULL;
    size_t total = 0;
    for (size_t index = 0; index < count; index++) {
        if (sizes[index] > SIZE_MAX / 2 - total) {
            f->dav1d_close(&context);
            return NULL;
        }
        total += sizes[index];
    }
    Dav1dData data;
    memset(&data, 0, sizeof data);
    uint8_t *bytes = total > 0 ? f->dav1d_data_create(&data, total) : NULL;
    if (bytes == NULL) {
        f->dav1d_close(&context);
        return NULL;
    }
    for (size_t index = 0, offset = 0; index < count; offset += sizes[index], index++) {
        if (sizes[index] > 0) memcpy(bytes + offset, pieces[index], sizes[index]);
    }
    Dav1dPicture picture;
    memset(&picture, 0, sizeof picture);
    // libheif's loop: send what is left, ask for a picture, and once all is sent ask once more.
    bool flushed = false;
    bool decoded = false;
    for (;;) {
        int result = f->dav1d_send_data(context, &data);
        if (result < 0 && result != DAV1D_ERR(EAGAIN)) break;
        result = f->dav1d_get_picture(context, &picture);
        if (!flushed && result == DAV1D_ERR(EAGAIN)) {
            if (data.sz == 0) flushed = true;
            continue;
        }
        decoded = result >= 0;
        break;
    }
    // libheif's dav1d, decoding frames on several threads, reads all the data before it gives a
    // picture, and refuses the image for an error anywhere in it; with one frame in flight dav1d
    // gives the picture as soon as it is decoded. So what follows it is read too: data that holds
    // an error or a second picture is left to libheif.
    if (decoded) {
        Dav1dPicture next;
        memset(&next, 0, sizeof next);
        int result = f->dav1d_get_picture(context, &next);
        if (result >= 0) f->dav1d_picture_unref(&next);
        if (result != DAV1D_ERR(EAGAIN) || data.sz > 0) {
            f->dav1d_picture_unref(&picture);
            decoded = false;
        }
    }
    // What dav1d did not take is ours to give back, whatever is left of it (nothing, once all was sent).
    f->dav1d_data_unref(&data);
    // The picture outlives its decoder (dav1d's pools are freed with their last picture), so that
    // dav1d's own per-frame data is gone before the picture is read.
    f->dav1d_close(&context);
    if (!decoded) return NULL;
    cdav1d_decoded *held = malloc(sizeof *held);
    if (held == NULL) {
        f->dav1d_picture_unref(&picture);
        return NULL;
    }
    held->picture = picture;
    for (int plane = 0; plane < 3; plane++) out->planes[plane] = picture.data[plane];
    out->strides[0] = picture.stride[0];
    out->strides[1] = picture.stride[1];
    out->width = picture.p.w;
    out->height = picture.p.h;
    out->bitsPerSample = picture.p.bpc;
    out->layout = (int)picture.p.layout;
    out->primaries = picture.seq_hdr != NULL ? (int)picture.seq_hdr->pri : -1;
    out->transfer = picture.seq_hdr != NULL ? (int)picture.seq_hdr->trc : -1;
    out->matrix = picture.seq_hdr != NULL ? (int)picture.seq_hdr->mtrx : -1;
    out->isFullRange = picture.seq_hdr != NULL && picture.seq_hdr->color_range != 0;
    return held;
}

void cdav1d_release(cdav1d_decoded *decoded) {
    dav1dFunctions.dav1d_picture_unref(&decoded->picture);
    free(decoded);
}

#else

bool cdav1d_library(const char **reason) {
    *reason = "ImagePrep was built without dav1d's header (Debian: libdav1d-dev)";
    return false;
}

cdav1d_decoded *cdav1d_decode(
    const void *const *pieces, const size_t *sizes, size_t count, int threads, cdav1d_picture *out) {
    (void)pieces, (void)sizes, (void)count, (void)threads, (void)out;
    return NULL;
}

void cdav1d_release(cdav1d_decoded *decoded) { (void)decoded; }

#endif
