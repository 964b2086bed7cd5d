#ifndef CWEBP_SHIM_H
#define CWEBP_SHIM_H
#include <stddef.h>
#include <stdint.h>
#include <webp/decode.h>
#include <webp/demux.h>

// libwebp's entry points are static inline functions that pass its ABI version; these give
// Swift one plain function each.

static inline int cwebp_init_config(WebPDecoderConfig *config) { return WebPInitDecoderConfig(config); }

static inline VP8StatusCode cwebp_features(const uint8_t *data, size_t size, WebPBitstreamFeatures *features) {
    return WebPGetFeatures(data, size, features);
}

/// The demuxer over a file (NULL when it is not a valid WebP, or, unless `allowPartial`, not a
/// complete one); `state` says how far it got.
static inline WebPDemuxer *cwebp_demux(const uint8_t *bytes, size_t size, int allowPartial, WebPDemuxState *state) {
    WebPData data = {bytes, size};
    return WebPDemuxInternal(&data, allowPartial, state, WEBP_DEMUX_ABI_VERSION);
}
#endif
