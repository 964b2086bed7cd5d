#ifndef CGIF_SHIM_H
#define CGIF_SHIM_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <gif_lib.h>

/// The bytes giflib reads from: a GIF in memory, never a file descriptor.
typedef struct {
    const uint8_t *bytes;
    size_t count;
    size_t offset;
} cgif_memory;

/// giflib's InputFunc over a `cgif_memory` in `UserData`: it gives what is left when asked for
/// more, which giflib reports as a read error (a file cut short).
static inline int cgif_read(GifFileType *file, GifByteType *into, int wanted) {
    cgif_memory *memory = (cgif_memory *)file->UserData;
    if (!memory || wanted <= 0) return 0;
    size_t left = memory->count - memory->offset;
    size_t given = (size_t)wanted < left ? (size_t)wanted : left;
    memcpy(into, memory->bytes + memory->offset, given);
    memory->offset += given;
    return (int)given;
}

/// Opens the GIF in `memory` (which must outlive the handle): its screen descriptor is read.
static inline GifFileType *cgif_open(cgif_memory *memory, int *error) {
    return DGifOpen(memory, cgif_read, error);
}

/// The one colour map's entry `index` as three bytes, or 0 when it has none.
static inline int cgif_color(const ColorMapObject *map, int index, uint8_t *rgb) {
    if (!map || !map->Colors || index < 0 || index >= map->ColorCount) return 0;
    rgb[0] = map->Colors[index].Red;
    rgb[1] = map->Colors[index].Green;
    rgb[2] = map->Colors[index].Blue;
    return 1;
}
#endif
