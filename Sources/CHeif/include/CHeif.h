#ifndef CHEIF_H
#define CHEIF_H
#include <stdbool.h>
#include <stddef.h>
#include "Libde265.h"
#include "Libheif.h"
#include "Dav1d.h"

/// libheif, and libde265 for the HEVC images ImagePrep decodes itself, loaded when the first HEIF
/// file is decoded rather than when the process starts.
///
/// Linking libheif maps it and what it needs (libde265 and its static initialisers, libx265,
/// dav1d, libaom, libstdc++) into every process: about 9 ms a start, paid by every JPEG. So
/// nothing links it: `Libheif.h` declares the types and the functions' signatures, and the
/// functions are called through a table that `dlsym` fills. No function here has a libheif name, so no
/// definition of ours can stand in for libheif's.

#pragma clang assume_nonnull begin

/// Every libheif function ImagePrep calls (libheif 1.15 has them all).
#define CHEIF_FUNCTIONS(X)                                                                                           \
    X(heif_init)                                                                                                     \
    X(heif_have_decoder_for_format)                                                                                  \
    X(heif_context_alloc)                                                                                            \
    X(heif_context_free)                                                                                             \
    X(heif_context_set_max_decoding_threads)                                                                         \
    X(heif_context_set_maximum_image_size_limit)                                                                     \
    X(heif_context_read_from_memory_without_copy)                                                                    \
    X(heif_context_read_from_reader)                                                                                 \
    X(heif_context_get_primary_image_handle)                                                                         \
    X(heif_image_handle_release)                                                                                     \
    X(heif_image_handle_get_width)                                                                                   \
    X(heif_image_handle_get_height)                                                                                  \
    X(heif_image_handle_get_nclx_color_profile)                                                                      \
    X(heif_nclx_color_profile_free)                                                                                  \
    X(heif_image_handle_get_color_profile_type)                                                                      \
    X(heif_image_handle_get_raw_color_profile_size)                                                                  \
    X(heif_image_handle_get_raw_color_profile)                                                                       \
    X(heif_image_handle_get_list_of_metadata_block_IDs)                                                              \
    X(heif_image_handle_get_metadata_size)                                                                           \
    X(heif_image_handle_get_metadata)                                                                                \
    X(heif_image_handle_get_auxiliary_type)                                                                          \
    X(heif_image_handle_free_auxiliary_types)                                                                        \
    X(heif_image_handle_get_auxiliary_image_handle)                                                                  \
    X(heif_decoding_options_alloc)                                                                                   \
    X(heif_decoding_options_free)                                                                                    \
    X(heif_decode_image)                                                                                             \
    X(heif_image_release)                                                                                            \
    X(heif_image_get_colorspace)                                                                                     \
    X(heif_image_get_chroma_format)                                                                                  \
    X(heif_image_get_width)                                                                                          \
    X(heif_image_get_height)                                                                                         \
    X(heif_image_get_bits_per_pixel_range)                                                                           \
    X(heif_image_get_plane_readonly)                                                                                 \
    X(heif_image_get_decoding_warnings)

/// libheif's functions, each field named and typed as the function in `heif.h`.
typedef struct {
#define CHEIF_FIELD(name) __typeof__(name) *name;
    CHEIF_FUNCTIONS(CHEIF_FIELD)
#undef CHEIF_FIELD
} cheif_functions;

/// The process's libheif, loaded and started (`heif_init`) by the first call, from any thread;
/// the later calls give the same answer. Null when it cannot be loaded, and then `*reason` says
/// why for every name tried (the dynamic loader's words). The table and the reason last as long
/// as the process.
const cheif_functions *_Nullable cheif_library(const char *_Nullable *_Nonnull reason);

/// Loads the library `name` (as `dlopen` takes it) into `table`, without starting it: false,
/// with the reason in `reason`, when it cannot be opened or lacks one of the functions (then it
/// is closed again). A library loaded stays loaded for the process. `cheif_library` tries the
/// platform's names with it; tests try names of their own.
bool cheif_load(const char *name, cheif_functions *table, char *reason, size_t capacity);

/// Every libde265 function ImagePrep's direct HEVC decode calls (libde265 1.0.7 and later have
/// them all). libheif links libde265, so loading it maps nothing that libheif had not mapped.
#define CDE265_FUNCTIONS(X)                                                                                          \
    X(de265_init)                                                                                                    \
    X(de265_new_decoder)                                                                                             \
    X(de265_start_worker_threads)                                                                                    \
    X(de265_free_decoder)                                                                                            \
    X(de265_push_NAL)                                                                                                \
    X(de265_flush_data)                                                                                              \
    X(de265_decode)                                                                                                  \
    X(de265_get_next_picture)                                                                                        \
    X(de265_release_next_picture)                                                                                    \
    X(de265_get_image_width)                                                                                         \
    X(de265_get_image_height)                                                                                        \
    X(de265_get_chroma_format)                                                                                       \
    X(de265_get_bits_per_pixel)                                                                                      \
    X(de265_get_image_plane)                                                                                         \
    X(de265_get_image_full_range_flag)                                                                               \
    X(de265_get_image_colour_primaries)                                                                              \
    X(de265_get_image_transfer_characteristics)                                                                      \
    X(de265_get_image_matrix_coefficients)                                                                           \
    X(de265_get_warning)

/// libde265's functions, each field named and typed as the function in `de265.h`.
typedef struct {
#define CDE265_FIELD(name) __typeof__(name) *name;
    CDE265_FUNCTIONS(CDE265_FIELD)
#undef CDE265_FIELD
} cde265_functions;

/// The process's libde265, loaded and started (`de265_init`) by the first call, as `cheif_library`
/// loads libheif; null, with the reasons, when it cannot be loaded (ImagePrep then decodes HEVC
/// through libheif).
const cde265_functions *_Nullable cde265_library(const char *_Nullable *_Nonnull reason);

/// Loads the library `name` into `table`, as `cheif_load` does libheif.
bool cde265_load(const char *name, cde265_functions *table, char *reason, size_t capacity);

#pragma clang assume_nonnull end
#endif
