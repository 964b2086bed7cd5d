#ifndef CJPEG_SHIM_H
#define CJPEG_SHIM_H
#include <stddef.h>
#include <stdio.h>
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
#endif
