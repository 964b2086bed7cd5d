#ifndef CRAW_SHIM_H
#define CRAW_SHIM_H
#include <libraw/libraw.h>

/// LibRaw keeps its settings and sizes in one large struct whose nested unions Swift imports
/// awkwardly; these read and set the few fields ImagePrep needs.
static inline void craw_set_output(libraw_data_t *raw, int halfSize) {
    raw->params.half_size = halfSize;
    raw->params.output_bps = 8;
    raw->params.output_color = 1;  // sRGB
    raw->params.use_camera_wb = 1;
    raw->params.user_flip = 0;  // stored orientation: the upload carries the file's own
    raw->params.no_auto_bright = 0;
}
static inline int craw_raw_width(const libraw_data_t *raw) { return raw->sizes.raw_width; }
static inline int craw_raw_height(const libraw_data_t *raw) { return raw->sizes.raw_height; }
static inline int craw_width(const libraw_data_t *raw) { return raw->sizes.width; }
static inline int craw_height(const libraw_data_t *raw) { return raw->sizes.height; }
static inline int craw_flip(const libraw_data_t *raw) { return raw->sizes.flip; }
static inline int craw_colors(const libraw_data_t *raw) { return raw->idata.colors; }
static inline int craw_is_foveon(const libraw_data_t *raw) { return raw->idata.is_foveon; }
static inline unsigned craw_filters(const libraw_data_t *raw) { return raw->idata.filters; }
static inline int craw_thumbnail_is_jpeg(const libraw_data_t *raw) {
    return raw->thumbnail.tformat == LIBRAW_THUMBNAIL_JPEG && raw->thumbnail.thumb && raw->thumbnail.tlength > 0;
}
static inline const void *craw_thumbnail_bytes(const libraw_data_t *raw) { return raw->thumbnail.thumb; }
static inline unsigned craw_thumbnail_length(const libraw_data_t *raw) { return raw->thumbnail.tlength; }

/// What LibRaw reported about the data while reading it; its default handlers print to stderr.
typedef struct {
    int dataErrors;
    int memoryErrors;
    /// Raised by the caller to stop a decode between LibRaw's stages.
    volatile int isCancelled;
} craw_report;

static void craw_on_data_error(void *data, const char *file, const int offset) {
    (void)file; (void)offset;
    craw_report *report = (craw_report *)data;
    if (report->dataErrors < 1000000) report->dataErrors += 1;
}

static void craw_on_memory_error(void *data, const char *file, const char *where) {
    (void)file; (void)where;
    craw_report *report = (craw_report *)data;
    if (report->memoryErrors < 1000000) report->memoryErrors += 1;
}

static int craw_on_progress(void *data, enum LibRaw_progress stage, int iteration, int expected) {
    (void)stage; (void)iteration; (void)expected;
    return ((craw_report *)data)->isCancelled ? 1 : 0;
}

/// A LibRaw handle whose messages go to `report`, never to stderr.
static inline libraw_data_t *craw_open(craw_report *report) {
    libraw_data_t *raw = libraw_init(0);
    if (!raw) return NULL;
    libraw_set_dataerror_handler(raw, craw_on_data_error, report);
    libraw_set_memerror_handler(raw, craw_on_memory_error, report);
    libraw_set_progress_handler(raw, craw_on_progress, report);
    return raw;
}
#endif
