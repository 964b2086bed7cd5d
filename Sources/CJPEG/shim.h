#ifndef CJPEG_SHIM_H
#define CJPEG_SHIM_H
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <jpeglib.h>
#include <jerror.h>

/// libjpeg's API (libjpeg62-turbo, the same libjpeg-turbo 2.1 that TurboJPEG wraps), for what
/// TurboJPEG 2.x does not tell: every warning of a decode by its code, and whether the decode
/// reached its last row. libjpeg reports a fatal error by calling `error_exit`, which must not
/// return; it `longjmp`s back here, and a `longjmp` must never cross Swift frames, so the whole
/// decode runs in this one C function.

/// One libjpeg message: its `J_MESSAGE_CODE` and the first two of its integer parameters.
typedef struct {
    int code;
    int parameters[2];
} cjpeg_message;

enum { CJPEG_KEPT_WARNINGS = 16 };

/// What a survey decode found.
typedef struct {
    /// The first warnings, in order (`warningCount` may be larger).
    cjpeg_message warnings[CJPEG_KEPT_WARNINGS];
    int warningCount;
    /// The fatal error that stopped the decode; code -1 when it ran to the end.
    cjpeg_message fatal;
    /// Whether it stopped because the file has more scans than the limit.
    int exceededScanLimit;
    /// Rows decoded out of `height` (at the survey's 1/8 scale).
    unsigned int rowsDecoded;
    unsigned int height;
    /// Where the data first ran out (JWRN_JPEG_EOF): the scan being read (1 for the first; 0
    /// when it never ran out), the first full-size row of the band of rows being read and the
    /// band's height, the image's height, and whether the file is progressive.
    int endScan;
    unsigned int endRow;
    unsigned int endBandHeight;
    unsigned int imageHeight;
    int isProgressive;
} cjpeg_survey;

typedef struct {
    struct jpeg_error_mgr manager;
    jmp_buf jump;
    cjpeg_survey *survey;
} cjpeg_errors;

typedef struct {
    struct jpeg_progress_mgr manager;
    cjpeg_errors *errors;
    int scanLimit;
} cjpeg_progress;

static inline void cjpeg_keep(cjpeg_message *message, j_common_ptr info) {
    message->code = info->err->msg_code;
    message->parameters[0] = info->err->msg_parm.i[0];
    message->parameters[1] = info->err->msg_parm.i[1];
}

static inline void cjpeg_error_exit(j_common_ptr info) {
    cjpeg_errors *errors = (cjpeg_errors *)info->err;
    cjpeg_keep(&errors->survey->fatal, info);
    longjmp(errors->jump, 1);
}

/// Warnings (level -1) are kept, never printed; trace messages are dropped.
static inline void cjpeg_emit_message(j_common_ptr info, int level) {
    if (level >= 0) return;
    cjpeg_survey *survey = ((cjpeg_errors *)info->err)->survey;
    if (survey->warningCount < CJPEG_KEPT_WARNINGS) cjpeg_keep(&survey->warnings[survey->warningCount], info);
    if (survey->warningCount < 0x7FFFFFFF) survey->warningCount++;
    if (info->err->msg_code == JWRN_JPEG_EOF && survey->endScan == 0 && info->is_decompressor) {
        j_decompress_ptr decompress = (j_decompress_ptr)info;
        unsigned long row = (unsigned long)decompress->input_iMCU_row * (unsigned long)decompress->max_v_samp_factor * DCTSIZE;
        survey->endScan = decompress->input_scan_number > 0 ? decompress->input_scan_number : 1;
        survey->endRow = row < decompress->image_height ? (unsigned int)row : decompress->image_height;
        survey->endBandHeight = (unsigned int)decompress->max_v_samp_factor * DCTSIZE;
        survey->imageHeight = decompress->image_height;
        survey->isProgressive = decompress->progressive_mode ? 1 : 0;
    }
}

static inline void cjpeg_output_message(j_common_ptr info) { (void)info; }

/// The scan limit that TurboJPEG's TJFLAG_LIMITSCANS keeps: a progressive file of thousands of
/// tiny scans takes minutes to decode.
static inline void cjpeg_monitor_progress(j_common_ptr info) {
    cjpeg_progress *progress = (cjpeg_progress *)info->progress;
    if (info->is_decompressor && ((j_decompress_ptr)info)->input_scan_number > progress->scanLimit) {
        progress->errors->survey->exceededScanLimit = 1;
        progress->errors->survey->fatal.code = JMSG_NOMESSAGE;
        longjmp(progress->errors->jump, 1);
    }
}

/// Decodes `size` bytes of JPEG at 1/8 scale, the pixels thrown away, into `survey`.
static inline void cjpeg_survey_decode(
    const unsigned char *jpeg, unsigned long size, int scanLimit, cjpeg_survey *survey) {
    struct jpeg_decompress_struct info;
    cjpeg_errors errors;
    cjpeg_progress progress;
    /// Read after a longjmp, so volatile.
    volatile int hasStarted = 0;
    *survey = (cjpeg_survey){0};
    survey->fatal.code = -1;
    info.err = jpeg_std_error(&errors.manager);
    errors.manager.error_exit = cjpeg_error_exit;
    errors.manager.emit_message = cjpeg_emit_message;
    errors.manager.output_message = cjpeg_output_message;
    errors.survey = survey;
    if (setjmp(errors.jump)) {
        survey->rowsDecoded = hasStarted ? info.output_scanline : 0;
        jpeg_destroy_decompress(&info);
        return;
    }
    jpeg_create_decompress(&info);
    progress.manager.progress_monitor = cjpeg_monitor_progress;
    progress.errors = &errors;
    progress.scanLimit = scanLimit;
    info.progress = &progress.manager;
    jpeg_mem_src(&info, jpeg, size);
    jpeg_read_header(&info, TRUE);
    info.scale_num = 1;
    info.scale_denom = 8;
    info.dct_method = JDCT_IFAST;
    info.do_fancy_upsampling = FALSE;
    info.do_block_smoothing = FALSE;
    jpeg_calc_output_dimensions(&info);
    survey->height = info.output_height;
    hasStarted = 1;
    jpeg_start_decompress(&info);
    JSAMPARRAY row = (*info.mem->alloc_sarray)(
        (j_common_ptr)&info, JPOOL_IMAGE, info.output_width * (JDIMENSION)info.output_components, 1);
    while (info.output_scanline < info.output_height) {
        if (jpeg_read_scanlines(&info, row, 1) == 0) break;
    }
    survey->rowsDecoded = info.output_scanline;
    jpeg_finish_decompress(&info);
    jpeg_destroy_decompress(&info);
}

/// How many strips a decoder can hold at once, so that one thread can decode the next strips
/// while another still reads the earlier ones.
enum { CJPEG_STRIP_SLOTS = 16 };

/// A source of JPEG bytes in two parts, read one after the other: the headers made for the
/// bottom of a photo cut at a restart marker, then the original's entropy-coded data from the
/// cut on, which is not copied. Past the end it gives an EOI with a warning, as `jpeg_mem_src`.
typedef struct {
    struct jpeg_source_mgr manager;
    const JOCTET *tail;
    size_t tailSize;
    int isInTail;
} cjpeg_two_part_source;

static inline void cjpeg_source_nothing(j_decompress_ptr info) { (void)info; }

static inline boolean cjpeg_source_fill(j_decompress_ptr info) {
    static const JOCTET endOfImage[2] = {0xFF, (JOCTET)JPEG_EOI};
    cjpeg_two_part_source *source = (cjpeg_two_part_source *)info->src;
    if (!source->isInTail && source->tailSize > 0) {
        source->isInTail = 1;
        source->manager.next_input_byte = source->tail;
        source->manager.bytes_in_buffer = source->tailSize;
        return TRUE;
    }
    source->isInTail = 1;
    WARNMS(info, JWRN_JPEG_EOF);
    source->manager.next_input_byte = endOfImage;
    source->manager.bytes_in_buffer = 2;
    return TRUE;
}

/// As libjpeg's own memory source skips (jdatasrc.c).
static inline void cjpeg_source_skip(j_decompress_ptr info, long count) {
    struct jpeg_source_mgr *source = info->src;
    if (count <= 0) return;
    while (count > (long)source->bytes_in_buffer) {
        count -= (long)source->bytes_in_buffer;
        (void)(*source->fill_input_buffer)(info);
    }
    source->next_input_byte += (size_t)count;
    source->bytes_in_buffer -= (size_t)count;
}

/// A libjpeg decode that hands over its YCbCr or gray planes one strip (an iMCU row: 8 or 16
/// rows of luma, fewer at a DCT scale) at a time, never as a whole image. Each strip goes into
/// one of `CJPEG_STRIP_SLOTS` slots, which the caller chooses.
///
/// Every function that calls into libjpeg sets its own `setjmp` and returns a status, so a
/// `longjmp` never leaves C. After a failure the decoder must only be destroyed. Its memory
/// (the strips included) belongs to libjpeg's pool and goes with `cjpeg_strip_decoder_destroy`.
typedef struct {
    struct jpeg_decompress_struct info;
    cjpeg_errors errors;
    cjpeg_progress progress;
    /// The warnings and the fatal error, as a survey gives them.
    cjpeg_survey report;
    cjpeg_two_part_source source;
    int isCreated;
    JSAMPARRAY strips[CJPEG_STRIP_SLOTS][3];
} cjpeg_strip_decoder;

/// The shape of one component's samples, as the decoder delivers them.
typedef struct {
    /// Samples per row and rows of the component at the chosen scale.
    unsigned int width;
    unsigned int height;
    /// Rows of this component in one strip.
    int stripRows;
    /// Samples across and down per MCU: compared with the luma's, how many of this component's
    /// samples an output pixel spans. At a DCT scale libjpeg-turbo may decode chroma at a larger
    /// scale than luma (a 4:2:0 photo at 1/8 gives chroma as large as luma), so this is not the
    /// sampling factors alone.
    int horizontalScale;
    int verticalScale;
} cjpeg_component_shape;

static inline cjpeg_strip_decoder *cjpeg_strip_decoder_create(void) {
    return (cjpeg_strip_decoder *)calloc(1, sizeof(cjpeg_strip_decoder));
}

static inline void cjpeg_strip_decoder_destroy(cjpeg_strip_decoder *decoder) {
    if (decoder == NULL) return;
    if (decoder->isCreated) jpeg_destroy_decompress(&decoder->info);
    free(decoder);
}

/// Reads the headers of `size` bytes of JPEG and starts a decode at 1/`scaleDenominator`
/// (1, 2, 4 or 8), as TurboJPEG's planar decode does it (raw data, the accurate integer DCT),
/// into `slots` (1 to `CJPEG_STRIP_SLOTS`) strip slots. `tail`, when not NULL, is read after
/// the `size` bytes of `jpeg` as their continuation (`cjpeg_two_part_source`). Both must stay
/// valid until the decoder is destroyed.
///
/// Returns 0 when started; 1 when the image is not YCbCr or gray with every chroma sample once
/// per MCU (the caller decodes it otherwise); -1 when libjpeg failed (`report.fatal`).
static inline int cjpeg_strip_decoder_start(
    cjpeg_strip_decoder *decoder, const unsigned char *jpeg, unsigned long size, const unsigned char *tail,
    unsigned long tailSize, int scaleDenominator, int scanLimit, int slots) {
    struct jpeg_decompress_struct *info = &decoder->info;
    if (slots < 1) slots = 1;
    if (slots > CJPEG_STRIP_SLOTS) slots = CJPEG_STRIP_SLOTS;
    decoder->report = (cjpeg_survey){0};
    decoder->report.fatal.code = -1;
    info->err = jpeg_std_error(&decoder->errors.manager);
    decoder->errors.manager.error_exit = cjpeg_error_exit;
    decoder->errors.manager.emit_message = cjpeg_emit_message;
    decoder->errors.manager.output_message = cjpeg_output_message;
    decoder->errors.survey = &decoder->report;
    if (setjmp(decoder->errors.jump)) return -1;
    jpeg_create_decompress(info);
    decoder->isCreated = 1;
    decoder->progress.manager.progress_monitor = cjpeg_monitor_progress;
    decoder->progress.errors = &decoder->errors;
    decoder->progress.scanLimit = scanLimit;
    info->progress = &decoder->progress.manager;
    if (tail == NULL) {
        jpeg_mem_src(info, jpeg, size);
    } else {
        decoder->source = (cjpeg_two_part_source){
            .manager =
                {
                    .next_input_byte = jpeg,
                    .bytes_in_buffer = size,
                    .init_source = cjpeg_source_nothing,
                    .fill_input_buffer = cjpeg_source_fill,
                    .skip_input_data = cjpeg_source_skip,
                    .resync_to_restart = jpeg_resync_to_restart,
                    .term_source = cjpeg_source_nothing,
                },
            .tail = tail,
            .tailSize = tailSize,
        };
        info->src = &decoder->source.manager;
    }
    jpeg_read_header(info, TRUE);
    int isGray = info->num_components == 1 && info->jpeg_color_space == JCS_GRAYSCALE;
    int isYCbCr = info->num_components == 3 && info->jpeg_color_space == JCS_YCbCr;
    if (!isGray && !isYCbCr) return 1;
    if (info->comp_info[0].h_samp_factor != info->max_h_samp_factor ||
        info->comp_info[0].v_samp_factor != info->max_v_samp_factor)
        return 1;
    for (int component = 1; component < info->num_components; component++) {
        if (info->comp_info[component].h_samp_factor != 1 || info->comp_info[component].v_samp_factor != 1) return 1;
    }
    info->raw_data_out = TRUE;
    info->do_fancy_upsampling = FALSE;
    info->out_color_space = info->jpeg_color_space;
    info->scale_num = 1;
    info->scale_denom = (unsigned int)scaleDenominator;
    info->dct_method = JDCT_ISLOW;
    jpeg_start_decompress(info);
    decoder->report.height = info->output_height;
    for (int slot = 0; slot < slots; slot++) {
        for (int component = 0; component < info->num_components; component++) {
            jpeg_component_info *compptr = &info->comp_info[component];
            decoder->strips[slot][component] = (*info->mem->alloc_sarray)(
                (j_common_ptr)info, JPOOL_IMAGE, compptr->width_in_blocks * (JDIMENSION)compptr->DCT_scaled_size,
                (JDIMENSION)(compptr->v_samp_factor * compptr->DCT_scaled_size));
        }
    }
    return 0;
}

/// The started decode's output size and component count.
static inline void cjpeg_strip_decoder_size(
    const cjpeg_strip_decoder *decoder, unsigned int *width, unsigned int *height, int *components) {
    *width = decoder->info.output_width;
    *height = decoder->info.output_height;
    *components = decoder->info.num_components;
}

static inline cjpeg_component_shape cjpeg_strip_decoder_component(
    const cjpeg_strip_decoder *decoder, int component) {
    const jpeg_component_info *compptr = &decoder->info.comp_info[component];
    return (cjpeg_component_shape){
        .width = compptr->downsampled_width,
        .height = compptr->downsampled_height,
        .stripRows = compptr->v_samp_factor * compptr->DCT_scaled_size,
        .horizontalScale = compptr->h_samp_factor * compptr->DCT_scaled_size,
        .verticalScale = compptr->v_samp_factor * compptr->DCT_scaled_size,
    };
}

/// Row `row` of component `component` in the strip last read into `slot`.
static inline const unsigned char *cjpeg_strip_decoder_row(
    const cjpeg_strip_decoder *decoder, int slot, int component, int row) {
    return decoder->strips[slot][component][row];
}

/// Decodes the next strip into `slot` (one of those started). Returns how many output rows it
/// spans (the last strip may reach past the image's end), 0 when every row is delivered, -1
/// when libjpeg failed (`report.fatal`).
static inline int cjpeg_strip_decoder_read(cjpeg_strip_decoder *decoder, int slot) {
    struct jpeg_decompress_struct *info = &decoder->info;
    if (setjmp(decoder->errors.jump)) return -1;
    if (info->output_scanline >= info->output_height) return 0;
    JDIMENSION lines = (JDIMENSION)(info->max_v_samp_factor * info->min_DCT_scaled_size);
    JDIMENSION read = jpeg_read_raw_data(info, decoder->strips[slot], lines);
    decoder->report.rowsDecoded = info->output_scanline < info->output_height ? info->output_scanline
                                                                             : info->output_height;
    return (int)read;
}

/// Finishes a decode that delivered every row, so that what follows the image data is read
/// (and warned about) as a whole decode would. Returns 0, or -1 when libjpeg failed.
static inline int cjpeg_strip_decoder_finish(cjpeg_strip_decoder *decoder) {
    if (setjmp(decoder->errors.jump)) return -1;
    jpeg_finish_decompress(&decoder->info);
    return 0;
}

/// A libjpeg compressor fed one iMCU row (16 rows of luma and 8 of chroma for 4:2:0, 8 for gray)
/// at a time, so that the upload can be encoded while its rows are still being made. It is set up
/// as TurboJPEG's `tjCompressFromYUVPlanes` sets up the same libjpeg (turbojpeg.c's
/// `setCompDefaults`: the defaults, `jpeg_set_quality(q, TRUE)`, the fast DCT below quality 96,
/// YCbCr or gray, 2x2 or 1x1 sampling, raw data in), so that it writes the same bytes; the tests
/// hold it to that. The output goes into a buffer the caller owns, which must hold the worst case
/// (`tjBufSize`); a fuller one is a fatal error, not a reallocation.
typedef struct {
    struct jpeg_compress_struct info;
    struct {
        struct jpeg_error_mgr manager;
        jmp_buf jump;
    } errors;
    struct jpeg_destination_mgr destination;
    unsigned char *buffer;
    size_t capacity;
    /// The bytes written, once finished.
    size_t length;
    /// Whether `info` was created, and so must be destroyed.
    int isCreated;
} cjpeg_stream_encoder;

/// A failed stream is dropped and the upload encoded whole by TurboJPEG, which reports its own
/// errors: libjpeg's message is not kept.
static inline void cjpeg_stream_error_exit(j_common_ptr info) {
    cjpeg_stream_encoder *encoder = (cjpeg_stream_encoder *)info->client_data;
    longjmp(encoder->errors.jump, 1);
}

static inline void cjpeg_stream_silent(j_common_ptr info) { (void)info; }

static inline void cjpeg_stream_destination_start(j_compress_ptr info) {
    cjpeg_stream_encoder *encoder = (cjpeg_stream_encoder *)info->client_data;
    encoder->destination.next_output_byte = encoder->buffer;
    encoder->destination.free_in_buffer = encoder->capacity;
}

static inline boolean cjpeg_stream_destination_full(j_compress_ptr info) {
    ERREXIT(info, JERR_BUFFER_SIZE);
    return FALSE;
}

static inline void cjpeg_stream_destination_end(j_compress_ptr info) {
    cjpeg_stream_encoder *encoder = (cjpeg_stream_encoder *)info->client_data;
    encoder->length = encoder->capacity - encoder->destination.free_in_buffer;
}

static inline cjpeg_stream_encoder *cjpeg_stream_encoder_create(void) {
    return (cjpeg_stream_encoder *)calloc(1, sizeof(cjpeg_stream_encoder));
}

static inline void cjpeg_stream_encoder_destroy(cjpeg_stream_encoder *encoder) {
    if (encoder == NULL) return;
    if (encoder->isCreated) jpeg_destroy_compress(&encoder->info);
    free(encoder);
}

/// Starts the encode of a `width` x `height` image (`isGray`, else 4:2:0) into `buffer`.
/// Returns 0, or -1 when libjpeg failed.
static inline int cjpeg_stream_encoder_start(
    cjpeg_stream_encoder *encoder, unsigned char *buffer, size_t capacity, int width, int height, int isGray,
    int quality) {
    struct jpeg_compress_struct *info = &encoder->info;
    encoder->buffer = buffer;
    encoder->capacity = capacity;
    info->err = jpeg_std_error(&encoder->errors.manager);
    encoder->errors.manager.error_exit = cjpeg_stream_error_exit;
    encoder->errors.manager.output_message = cjpeg_stream_silent;
    // Before the create, which keeps it, since the error handler reads it.
    info->client_data = encoder;
    if (setjmp(encoder->errors.jump)) return -1;
    jpeg_create_compress(info);
    encoder->isCreated = 1;
    encoder->destination.init_destination = cjpeg_stream_destination_start;
    encoder->destination.empty_output_buffer = cjpeg_stream_destination_full;
    encoder->destination.term_destination = cjpeg_stream_destination_end;
    info->dest = &encoder->destination;
    info->image_width = (JDIMENSION)width;
    info->image_height = (JDIMENSION)height;
    // What TurboJPEG sets for planar input (TJPF_RGB); raw data never converts colour.
    info->in_color_space = JCS_RGB;
    info->input_components = 3;
    jpeg_set_defaults(info);
    jpeg_set_quality(info, quality, TRUE);
    info->dct_method = quality >= 96 ? JDCT_ISLOW : JDCT_FASTEST;
    jpeg_set_colorspace(info, isGray ? JCS_GRAYSCALE : JCS_YCbCr);
    int factor = isGray ? 1 : 2;
    info->comp_info[0].h_samp_factor = factor;
    info->comp_info[0].v_samp_factor = factor;
    if (!isGray) {
        for (int component = 1; component < 3; component++) {
            info->comp_info[component].h_samp_factor = 1;
            info->comp_info[component].v_samp_factor = 1;
        }
    }
    info->raw_data_in = TRUE;
    jpeg_start_compress(info, TRUE);
    return 0;
}

/// Encodes the next iMCU row: `rows[component]` holds its rows (16 and 8, or 8 for gray).
/// Returns 0, or -1 when libjpeg failed.
static inline int cjpeg_stream_encoder_write(cjpeg_stream_encoder *encoder, JSAMPARRAY *rows) {
    struct jpeg_compress_struct *info = &encoder->info;
    if (setjmp(encoder->errors.jump)) return -1;
    JDIMENSION lines = (JDIMENSION)(info->max_v_samp_factor * DCTSIZE);
    return jpeg_write_raw_data(info, rows, lines) == lines ? 0 : -1;
}

/// Writes the end of the file; `length` then holds its size. Returns 0, or -1 when libjpeg failed.
static inline int cjpeg_stream_encoder_finish(cjpeg_stream_encoder *encoder) {
    if (setjmp(encoder->errors.jump)) return -1;
    jpeg_finish_compress(&encoder->info);
    return 0;
}

#endif
