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
#endif
