#ifndef CHEIF_LIBHEIF_H
#define CHEIF_LIBHEIF_H
// The part of libheif 1.15's C API (`<libheif/heif.h>`) that ImagePrep uses, declared here so that
// building needs no libheif header: an Xcode package dependency has no setting that would put one
// on the compiler's search path, and the functions are looked up at run time anyway (Loader.c).
//
// The names, values and layouts are libheif's, as its 1.15 header gives them; only what ImagePrep
// touches is here. `LibheifDeclarationTests` compiles these declarations beside the real header:
// the functions' prototypes must agree with libheif's, and every enumerator's value and every
// field's offset must print the same. A function added to `CHEIF_FUNCTIONS` needs its prototype
// here.
#include <stddef.h>
#include <stdint.h>

// With the real header included first (the test), only the prototypes below are declared, so the
// compiler checks each against libheif's own.
#if !defined(CHEIF_PROTOTYPES_ONLY)

typedef uint32_t heif_item_id;

struct heif_context;
struct heif_image_handle;
struct heif_image;
struct heif_init_params;
struct heif_reading_options;

enum heif_error_code {
    heif_error_Ok = 0,
    heif_error_Input_does_not_exist = 1,
    heif_error_Invalid_input = 2,
    heif_error_Unsupported_filetype = 3,
    heif_error_Unsupported_feature = 4,
    heif_error_Usage_error = 5,
    heif_error_Memory_allocation_error = 6,
    heif_error_Decoder_plugin_error = 7,
    heif_error_Encoder_plugin_error = 8,
    heif_error_Encoding_error = 9,
    heif_error_Color_profile_does_not_exist = 10,
    heif_error_Plugin_loading_error = 11,
};

enum heif_suberror_code {
    heif_suberror_Unspecified = 0,
    heif_suberror_End_of_data = 100,
    heif_suberror_Invalid_box_size = 101,
    heif_suberror_No_ftyp_box = 102,
    heif_suberror_No_idat_box = 103,
    heif_suberror_No_meta_box = 104,
    heif_suberror_No_hdlr_box = 105,
    heif_suberror_No_hvcC_box = 106,
    heif_suberror_No_pitm_box = 107,
    heif_suberror_No_ipco_box = 108,
    heif_suberror_No_ipma_box = 109,
    heif_suberror_No_iloc_box = 110,
    heif_suberror_No_iinf_box = 111,
    heif_suberror_No_iprp_box = 112,
    heif_suberror_No_iref_box = 113,
    heif_suberror_No_pict_handler = 114,
    heif_suberror_Ipma_box_references_nonexisting_property = 115,
    heif_suberror_No_properties_assigned_to_item = 116,
    heif_suberror_No_item_data = 117,
    heif_suberror_Invalid_grid_data = 118,
    heif_suberror_Missing_grid_images = 119,
    heif_suberror_Invalid_clean_aperture = 120,
    heif_suberror_Invalid_overlay_data = 121,
    heif_suberror_Overlay_image_outside_of_canvas = 122,
    heif_suberror_Auxiliary_image_type_unspecified = 123,
    heif_suberror_No_or_invalid_primary_item = 124,
    heif_suberror_No_infe_box = 125,
    heif_suberror_Unknown_color_profile_type = 126,
    heif_suberror_Wrong_tile_image_chroma_format = 127,
    heif_suberror_Invalid_fractional_number = 128,
    heif_suberror_Invalid_image_size = 129,
    heif_suberror_Invalid_pixi_box = 130,
    heif_suberror_No_av1C_box = 131,
    heif_suberror_Wrong_tile_image_pixel_depth = 132,
    heif_suberror_Unknown_NCLX_color_primaries = 133,
    heif_suberror_Unknown_NCLX_transfer_characteristics = 134,
    heif_suberror_Unknown_NCLX_matrix_coefficients = 135,
    heif_suberror_Security_limit_exceeded = 1000,
    heif_suberror_Nonexisting_item_referenced = 2000,
    heif_suberror_Null_pointer_argument = 2001,
    heif_suberror_Nonexisting_image_channel_referenced = 2002,
    heif_suberror_Unsupported_plugin_version = 2003,
    heif_suberror_Unsupported_writer_version = 2004,
    heif_suberror_Unsupported_parameter = 2005,
    heif_suberror_Invalid_parameter_value = 2006,
    heif_suberror_Unsupported_codec = 3000,
    heif_suberror_Unsupported_image_type = 3001,
    heif_suberror_Unsupported_data_version = 3002,
    heif_suberror_Unsupported_color_conversion = 3003,
    heif_suberror_Unsupported_item_construction_method = 3004,
    heif_suberror_Unsupported_header_compression_method = 3005,
    heif_suberror_Unsupported_bit_depth = 4000,
    heif_suberror_Cannot_write_output_data = 5000,
    heif_suberror_Plugin_loading_error = 6000,
    heif_suberror_Plugin_is_not_loaded = 6001,
    heif_suberror_Cannot_read_plugin_directory = 6002,
};

struct heif_error {
    enum heif_error_code code;
    enum heif_suberror_code subcode;
    const char *message;
};

enum heif_compression_format {
    heif_compression_undefined = 0,
    heif_compression_HEVC = 1,
    heif_compression_AVC = 2,
    heif_compression_JPEG = 3,
    heif_compression_AV1 = 4,
    heif_compression_VVC = 5,
    heif_compression_EVC = 6,
    heif_compression_JPEG2000 = 7,
};

enum heif_colorspace {
    heif_colorspace_undefined = 99,
    heif_colorspace_YCbCr = 0,
    heif_colorspace_RGB = 1,
    heif_colorspace_monochrome = 2,
};

enum heif_chroma {
    heif_chroma_undefined = 99,
    heif_chroma_monochrome = 0,
    heif_chroma_420 = 1,
    heif_chroma_422 = 2,
    heif_chroma_444 = 3,
    heif_chroma_interleaved_RGB = 10,
    heif_chroma_interleaved_RGBA = 11,
    heif_chroma_interleaved_RRGGBB_BE = 12,
    heif_chroma_interleaved_RRGGBBAA_BE = 13,
    heif_chroma_interleaved_RRGGBB_LE = 14,
    heif_chroma_interleaved_RRGGBBAA_LE = 15,
};

enum heif_channel {
    heif_channel_Y = 0,
    heif_channel_Cb = 1,
    heif_channel_Cr = 2,
    heif_channel_R = 3,
    heif_channel_G = 4,
    heif_channel_B = 5,
    heif_channel_Alpha = 6,
    heif_channel_interleaved = 10,
};

// Four-character codes: 'nclx', 'rICC', 'prof'.
enum heif_color_profile_type {
    heif_color_profile_type_not_present = 0,
    heif_color_profile_type_nclx = 0x6E636C78,
    heif_color_profile_type_rICC = 0x72494343,
    heif_color_profile_type_prof = 0x70726F66,
};

// Every code point libheif 1.15 knows: its decoder plugin warns of any other in a stream's VUI.
enum heif_color_primaries {
    heif_color_primaries_ITU_R_BT_709_5 = 1,
    heif_color_primaries_unspecified = 2,
    heif_color_primaries_ITU_R_BT_470_6_System_M = 4,
    heif_color_primaries_ITU_R_BT_470_6_System_B_G = 5,
    heif_color_primaries_ITU_R_BT_601_6 = 6,
    heif_color_primaries_SMPTE_240M = 7,
    heif_color_primaries_generic_film = 8,
    heif_color_primaries_ITU_R_BT_2020_2_and_2100_0 = 9,
    heif_color_primaries_SMPTE_ST_428_1 = 10,
    heif_color_primaries_SMPTE_RP_431_2 = 11,
    heif_color_primaries_SMPTE_EG_432_1 = 12,
    heif_color_primaries_EBU_Tech_3213_E = 22,
};
enum heif_transfer_characteristics {
    heif_transfer_characteristic_ITU_R_BT_709_5 = 1,
    heif_transfer_characteristic_unspecified = 2,
    heif_transfer_characteristic_ITU_R_BT_470_6_System_M = 4,
    heif_transfer_characteristic_ITU_R_BT_470_6_System_B_G = 5,
    heif_transfer_characteristic_ITU_R_BT_601_6 = 6,
    heif_transfer_characteristic_SMPTE_240M = 7,
    heif_transfer_characteristic_linear = 8,
    heif_transfer_characteristic_logarithmic_100 = 9,
    heif_transfer_characteristic_logarithmic_100_sqrt10 = 10,
    heif_transfer_characteristic_IEC_61966_2_4 = 11,
    heif_transfer_characteristic_ITU_R_BT_1361 = 12,
    heif_transfer_characteristic_IEC_61966_2_1 = 13,
    heif_transfer_characteristic_ITU_R_BT_2020_2_10bit = 14,
    heif_transfer_characteristic_ITU_R_BT_2020_2_12bit = 15,
    heif_transfer_characteristic_ITU_R_BT_2100_0_PQ = 16,
    heif_transfer_characteristic_SMPTE_ST_428_1 = 17,
    heif_transfer_characteristic_ITU_R_BT_2100_0_HLG = 18,
};
enum heif_matrix_coefficients {
    heif_matrix_coefficients_RGB_GBR = 0,
    heif_matrix_coefficients_ITU_R_BT_709_5 = 1,
    heif_matrix_coefficients_unspecified = 2,
    heif_matrix_coefficients_US_FCC_T47 = 4,
    heif_matrix_coefficients_ITU_R_BT_470_6_System_B_G = 5,
    heif_matrix_coefficients_ITU_R_BT_601_6 = 6,
    heif_matrix_coefficients_SMPTE_240M = 7,
    heif_matrix_coefficients_YCgCo = 8,
    heif_matrix_coefficients_ITU_R_BT_2020_2_non_constant_luminance = 9,
    heif_matrix_coefficients_ITU_R_BT_2020_2_constant_luminance = 10,
    heif_matrix_coefficients_SMPTE_ST_2085 = 11,
    heif_matrix_coefficients_chromaticity_derived_non_constant_luminance = 12,
    heif_matrix_coefficients_chromaticity_derived_constant_luminance = 13,
    heif_matrix_coefficients_ICtCp = 14,
};

struct heif_color_profile_nclx {
    uint8_t version;
    enum heif_color_primaries color_primaries;
    enum heif_transfer_characteristics transfer_characteristics;
    enum heif_matrix_coefficients matrix_coefficients;
    uint8_t full_range_flag;
    float color_primary_red_x, color_primary_red_y;
    float color_primary_green_x, color_primary_green_y;
    float color_primary_blue_x, color_primary_blue_y;
    float color_primary_white_x, color_primary_white_y;
};

enum heif_progress_step {
    heif_progress_step_total = 0,
    heif_progress_step_load_tile = 1,
};

enum heif_reader_grow_status {
    heif_reader_grow_status_size_reached = 0,
    heif_reader_grow_status_timeout = 1,
    heif_reader_grow_status_size_beyond_eof = 2,
};

// Version 1 of a reader: libheif reads the file through these calls, each given `userdata`;
// `read` and `seek` return 0 on success. Before it reads an item's data (a grid's tile, as it
// decodes it) libheif asks `wait_for_file_size`, and takes `size_beyond_eof` as the end of the
// file: the answer ImagePrep gives once a prepare is cancelled.
struct heif_reader {
    int reader_api_version;
    int64_t (*get_position)(void *userdata);
    int (*read)(void *data, size_t size, void *userdata);
    int (*seek)(int64_t position, void *userdata);
    enum heif_reader_grow_status (*wait_for_file_size)(int64_t target_size, void *userdata);
};

// Version 4 of the options, as libheif 1.15 allocates them (`heif_decoding_options_alloc`): only
// libheif makes one, so later versions' fields, which come after these, never matter here.
struct heif_decoding_options {
    uint8_t version;
    uint8_t ignore_transformations;
    void (*start_progress)(enum heif_progress_step step, int max_progress, void *progress_user_data);
    void (*on_progress)(enum heif_progress_step step, int progress, void *progress_user_data);
    void (*end_progress)(enum heif_progress_step step, void *progress_user_data);
    void *progress_user_data;
    uint8_t convert_hdr_to_8bit;
    uint8_t strict_decoding;
    const char *decoder_id;
};

#endif  // CHEIF_PROTOTYPES_ONLY

struct heif_error heif_init(struct heif_init_params *);
int heif_have_decoder_for_format(enum heif_compression_format format);
struct heif_context *heif_context_alloc(void);
void heif_context_free(struct heif_context *);
void heif_context_set_max_decoding_threads(struct heif_context *ctx, int max_threads);
void heif_context_set_maximum_image_size_limit(struct heif_context *ctx, int maximum_width);
struct heif_error heif_context_read_from_memory_without_copy(
    struct heif_context *, const void *mem, size_t size, const struct heif_reading_options *);
struct heif_error heif_context_read_from_reader(
    struct heif_context *, const struct heif_reader *reader, void *userdata, const struct heif_reading_options *);
struct heif_error heif_context_get_primary_image_handle(struct heif_context *ctx, struct heif_image_handle **);
void heif_image_handle_release(const struct heif_image_handle *);
int heif_image_handle_get_width(const struct heif_image_handle *handle);
int heif_image_handle_get_height(const struct heif_image_handle *handle);
struct heif_error heif_image_handle_get_nclx_color_profile(
    const struct heif_image_handle *handle, struct heif_color_profile_nclx **out_data);
void heif_nclx_color_profile_free(struct heif_color_profile_nclx *nclx_profile);
enum heif_color_profile_type heif_image_handle_get_color_profile_type(const struct heif_image_handle *handle);
size_t heif_image_handle_get_raw_color_profile_size(const struct heif_image_handle *handle);
struct heif_error heif_image_handle_get_raw_color_profile(const struct heif_image_handle *handle, void *out_data);
int heif_image_handle_get_list_of_metadata_block_IDs(
    const struct heif_image_handle *handle, const char *type_filter, heif_item_id *ids, int count);
size_t heif_image_handle_get_metadata_size(const struct heif_image_handle *handle, heif_item_id metadata_id);
struct heif_error heif_image_handle_get_metadata(
    const struct heif_image_handle *handle, heif_item_id metadata_id, void *out_data);
// The auxiliary images (alpha, depth, an HDR gain map) of an image. libheif 1.15 names the free
// function `heif_image_handle_free_auxiliary_types`; later versions call it
// `heif_image_handle_release_auxiliary_type`.
struct heif_error heif_image_handle_get_auxiliary_type(const struct heif_image_handle *handle, const char **out_type);
void heif_image_handle_free_auxiliary_types(const struct heif_image_handle *handle, const char **out_type);
struct heif_error heif_image_handle_get_auxiliary_image_handle(
    const struct heif_image_handle *main_image_handle, heif_item_id auxiliary_id,
    struct heif_image_handle **out_auxiliary_handle);
struct heif_decoding_options *heif_decoding_options_alloc(void);
void heif_decoding_options_free(struct heif_decoding_options *);
struct heif_error heif_decode_image(
    const struct heif_image_handle *in_handle, struct heif_image **out_img, enum heif_colorspace colorspace,
    enum heif_chroma chroma, const struct heif_decoding_options *options);
void heif_image_release(const struct heif_image *);
enum heif_colorspace heif_image_get_colorspace(const struct heif_image *);
enum heif_chroma heif_image_get_chroma_format(const struct heif_image *);
int heif_image_get_width(const struct heif_image *, enum heif_channel channel);
int heif_image_get_height(const struct heif_image *, enum heif_channel channel);
int heif_image_get_bits_per_pixel_range(const struct heif_image *, enum heif_channel channel);
const uint8_t *heif_image_get_plane_readonly(const struct heif_image *, enum heif_channel channel, int *out_stride);
int heif_image_get_decoding_warnings(
    struct heif_image *image, int first_warning_idx, struct heif_error *out_warnings, int max_output_buffer_entries);

#endif
