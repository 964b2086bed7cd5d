#ifndef CEXIF_SHIM_H
#define CEXIF_SHIM_H
#include <stddef.h>
#include <libexif/exif-data.h>
#include <libexif/exif-loader.h>
#include <libexif/exif-log.h>
#include <libexif/exif-utils.h>

/// The entry for `tag` in one IFD only, or NULL.
///
/// libexif's own `exif_data_get_entry` is a macro (Swift cannot call it) that searches every IFD in
/// turn, so a thumbnail's IFD1 Orientation would stand in for a missing IFD0 one, and the GPS tag
/// numbers 0x00-0x1F would match unrelated tags elsewhere. `ExifData.ifd` is a C array, which Swift
/// imports as a tuple that cannot be indexed by an `ExifIfd`.
static inline ExifEntry *cexif_entry_in_ifd(ExifData *data, ExifIfd ifd, ExifTag tag) {
    if (!data || ifd < 0 || ifd >= EXIF_IFD_COUNT) return NULL;
    return exif_content_get_entry(data->ifd[ifd], tag);
}

/// How many entries libexif loaded into one IFD.
static inline unsigned int cexif_entry_count(ExifData *data, ExifIfd ifd) {
    if (!data || ifd < 0 || ifd >= EXIF_IFD_COUNT || !data->ifd[ifd]) return 0;
    return data->ifd[ifd]->count;
}
#endif
