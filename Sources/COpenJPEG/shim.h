#ifndef COPENJPEG_SHIM_H
#define COPENJPEG_SHIM_H
#include <stdint.h>
#include <string.h>
#include <openjpeg.h>

/// The bytes OpenJPEG reads, and how many errors it reported: its handlers count them and keep
/// its text off stderr (OpenJPEG reports by callback, never by longjmp).
typedef struct {
    const uint8_t *bytes;
    uint64_t size;
    uint64_t position;
    int errors;
} copj_source;

static OPJ_SIZE_T copj_read(void *buffer, OPJ_SIZE_T count, void *user) {
    copj_source *source = (copj_source *)user;
    if (source->position >= source->size) return (OPJ_SIZE_T)-1;
    uint64_t available = source->size - source->position;
    uint64_t n = (uint64_t)count < available ? (uint64_t)count : available;
    memcpy(buffer, source->bytes + source->position, (size_t)n);
    source->position += n;
    return (OPJ_SIZE_T)n;
}

static OPJ_OFF_T copj_skip(OPJ_OFF_T count, void *user) {
    copj_source *source = (copj_source *)user;
    if (count < 0) {
        if ((uint64_t)(-count) > source->position) return -1;
        source->position -= (uint64_t)(-count);
        return count;
    }
    uint64_t available = source->size - (source->position < source->size ? source->position : source->size);
    uint64_t n = (uint64_t)count < available ? (uint64_t)count : available;
    source->position += n;
    return (OPJ_OFF_T)n;
}

static OPJ_BOOL copj_seek(OPJ_OFF_T offset, void *user) {
    copj_source *source = (copj_source *)user;
    if (offset < 0 || (uint64_t)offset > source->size) return OPJ_FALSE;
    source->position = (uint64_t)offset;
    return OPJ_TRUE;
}

static void copj_on_error(const char *message, void *user) {
    (void)message;
    copj_source *source = (copj_source *)user;
    if (source->errors < INT32_MAX) source->errors += 1;
}

static void copj_quiet(const char *message, void *user) { (void)message; (void)user; }

/// A stream over `source`'s bytes.
static inline opj_stream_t *copj_stream(copj_source *source) {
    opj_stream_t *stream = opj_stream_create(1 << 16, OPJ_TRUE);
    if (!stream) return NULL;
    opj_stream_set_user_data(stream, source, NULL);
    opj_stream_set_user_data_length(stream, source->size);
    opj_stream_set_read_function(stream, copj_read);
    opj_stream_set_skip_function(stream, copj_skip);
    opj_stream_set_seek_function(stream, copj_seek);
    return stream;
}

/// A decoder of `format` whose messages go to `source`'s counters, never to stderr.
static inline opj_codec_t *copj_decoder(OPJ_CODEC_FORMAT format, copj_source *source) {
    opj_codec_t *codec = opj_create_decompress(format);
    if (!codec) return NULL;
    opj_set_error_handler(codec, copj_on_error, source);
    opj_set_warning_handler(codec, copj_quiet, source);
    opj_set_info_handler(codec, copj_quiet, source);
    opj_dparameters_t parameters;
    opj_set_default_decoder_parameters(&parameters);
    if (!opj_setup_decoder(codec, &parameters)) {
        opj_destroy_codec(codec);
        return NULL;
    }
    return codec;
}

/// The number of resolution levels of the first tile's first component (the most a decode can
/// reduce by is one less), or 0 when the codec has no codestream information.
static inline int copj_resolution_count(opj_codec_t *codec) {
    opj_codestream_info_v2_t *info = opj_get_cstr_info(codec);
    if (!info) return 0;
    int count = info->m_default_tile_info.tccp_info ? (int)info->m_default_tile_info.tccp_info[0].numresolutions : 0;
    opj_destroy_cstr_info(&info);
    return count;
}
#endif
