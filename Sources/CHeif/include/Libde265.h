#ifndef CHEIF_LIBDE265_H
#define CHEIF_LIBDE265_H
// The part of libde265's C API (`<libde265/de265.h>`, 1.0) that ImagePrep's direct HEVC decode
// uses, declared here for the reason `Libheif.h` declares libheif's: no build needs the library's
// header, and the functions are looked up at run time (Loader.c).
//
// The names, values and signatures are libde265's, as its 1.0.11 header gives them.
// `LibheifDeclarationTests` compiles these declarations beside the real header: the prototypes
// must agree with libde265's, and every enumerator's value must print the same. A function added
// to `CDE265_FUNCTIONS` needs its prototype here.
#include <stdint.h>

#if !defined(CDE265_PROTOTYPES_ONLY)

typedef void de265_decoder_context;
struct de265_image;
typedef int64_t de265_PTS;

// Only the codes that ImagePrep tells apart; any other is a failure.
typedef enum {
    DE265_OK = 0,
    DE265_ERROR_WAITING_FOR_INPUT_DATA = 13,
} de265_error;

enum de265_chroma {
    de265_chroma_mono = 0,
    de265_chroma_420 = 1,
    de265_chroma_422 = 2,
    de265_chroma_444 = 3,
};

#endif  // CDE265_PROTOTYPES_ONLY

de265_error de265_init(void);
de265_decoder_context *de265_new_decoder(void);
de265_error de265_start_worker_threads(de265_decoder_context *, int number_of_threads);
de265_error de265_free_decoder(de265_decoder_context *);
de265_error de265_push_NAL(de265_decoder_context *, const void *data, int length, de265_PTS pts, void *user_data);
de265_error de265_flush_data(de265_decoder_context *);
de265_error de265_decode(de265_decoder_context *, int *more);
const struct de265_image *de265_get_next_picture(de265_decoder_context *);
void de265_release_next_picture(de265_decoder_context *);
int de265_get_image_width(const struct de265_image *, int channel);
int de265_get_image_height(const struct de265_image *, int channel);
enum de265_chroma de265_get_chroma_format(const struct de265_image *);
int de265_get_bits_per_pixel(const struct de265_image *, int channel);
const uint8_t *de265_get_image_plane(const struct de265_image *, int channel, int *out_stride);
int de265_get_image_full_range_flag(const struct de265_image *);
int de265_get_image_colour_primaries(const struct de265_image *);
int de265_get_image_transfer_characteristics(const struct de265_image *);
int de265_get_image_matrix_coefficients(const struct de265_image *);
de265_error de265_get_warning(de265_decoder_context *);

#endif
