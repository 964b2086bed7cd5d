#ifndef CHEIF_LOADING_H
#define CHEIF_LOADING_H
#include <stdbool.h>
#include <stddef.h>

// What Loader.c and Dav1d.c share to load a library at run time; not part of the module.

/// Opens `name` and finds each of `symbols` in it, into `found`; false, with the reason, when it
/// cannot be opened or lacks one (then it is closed again). `version` names the release that
/// has them all, for the reason.
bool cheif_open_resolving(
    const char *name, const char *const *symbols, size_t count, void **found, const char *version, char *reason,
    size_t capacity);

/// One library loaded once for the process: its table, or why none of its names could be loaded.
typedef struct {
    const void *table;
    char reason[1024];
} SharedLibrary;

/// Tries each name with `load` until one loads into `table`, which `shared` then points at;
/// else `shared` keeps the reason of every name tried.
void cheif_load_first(
    const char *const *names, size_t count, bool (*load)(const char *, void *, char *, size_t), void *table,
    SharedLibrary *shared);

#endif
