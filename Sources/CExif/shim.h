#ifndef CEXIF_SHIM_H
#define CEXIF_SHIM_H
#include <libexif/exif-data.h>
#include <libexif/exif-loader.h>
#include <libexif/exif-log.h>
#include <libexif/exif-utils.h>

/// `exif_data_get_entry` is a macro; Swift cannot call macros.
static inline ExifEntry *cexif_data_get_entry(ExifData *data, ExifTag tag) {
    return exif_data_get_entry(data, tag);
}
#endif
