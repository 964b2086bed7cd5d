#include "CHeif.h"
#include "Loading.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

/// The names libheif goes by, most specific first: the ABI ImagePrep was built for (Debian 12's
/// libheif1 has `libheif.so.1`), then the development link, which a build of one's own may be.
static const char *const libheifNames[] = {
#if defined(__APPLE__)
    "libheif.1.dylib",
    "libheif.dylib",
    // Homebrew on Apple silicon, which the dynamic loader's default search does not cover
    // (it covers /usr/local/lib, Homebrew's prefix on Intel).
    "/opt/homebrew/lib/libheif.1.dylib",
    // An iOS app's own copy, embedded as a framework.
    "@rpath/libheif.framework/libheif",
#else
    "libheif.so.1",
    "libheif.so",
#endif
};

/// libde265's, in the same order (Debian 12's libde265-0 has `libde265.so.0`).
static const char *const libde265Names[] = {
#if defined(__APPLE__)
    "libde265.0.dylib",
    "libde265.dylib",
    "/opt/homebrew/lib/libde265.0.dylib",
    "@rpath/libde265.framework/libde265",
#else
    "libde265.so.0",
    "libde265.so",
#endif
};

bool cheif_open_resolving(
    const char *name, const char *const *symbols, size_t count, void **found, const char *version, char *reason,
    size_t capacity) {
    // RTLD_NOW: a library whose own dependencies are missing fails here, not at a later call.
    void *library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *error = dlerror();
        snprintf(reason, capacity, "%s", error != NULL ? error : name);
        return false;
    }
    for (size_t index = 0; index < count; index++) {
        found[index] = dlsym(library, symbols[index]);
        if (found[index] == NULL) {
            snprintf(reason, capacity, "%s has no %s (%s has it)", name, symbols[index], version);
            dlclose(library);
            return false;
        }
    }
    return true;
}

#define CHEIF_SYMBOL(function) #function,
static const char *const libheifSymbols[] = {CHEIF_FUNCTIONS(CHEIF_SYMBOL)};
static const char *const libde265Symbols[] = {CDE265_FUNCTIONS(CHEIF_SYMBOL)};
#undef CHEIF_SYMBOL
#define CHEIF_COUNT(symbols) (sizeof symbols / sizeof symbols[0])

bool cheif_load(const char *name, cheif_functions *table, char *reason, size_t capacity) {
    void *found[CHEIF_COUNT(libheifSymbols)];
    if (!cheif_open_resolving(
            name, libheifSymbols, CHEIF_COUNT(libheifSymbols), found, "libheif 1.15", reason, capacity)) {
        return false;
    }
    size_t index = 0;
#define CHEIF_ASSIGN(function) table->function = (__typeof__(function) *)found[index++];
    CHEIF_FUNCTIONS(CHEIF_ASSIGN)
    return true;
}

bool cde265_load(const char *name, cde265_functions *table, char *reason, size_t capacity) {
    void *found[CHEIF_COUNT(libde265Symbols)];
    if (!cheif_open_resolving(
            name, libde265Symbols, CHEIF_COUNT(libde265Symbols), found, "libde265 1.0.7", reason, capacity)) {
        return false;
    }
    size_t index = 0;
    CDE265_FUNCTIONS(CHEIF_ASSIGN)
#undef CHEIF_ASSIGN
    return true;
}

void cheif_load_first(
    const char *const *names, size_t count, bool (*load)(const char *, void *, char *, size_t), void *table,
    SharedLibrary *shared) {
    size_t used = 0;
    for (size_t index = 0; index < count; index++) {
        char reason[512];
        if (load(names[index], table, reason, sizeof reason)) {
            shared->table = table;
            return;
        }
        if (used < sizeof shared->reason) {
            int written = snprintf(
                shared->reason + used, sizeof shared->reason - used, "%s%s", used == 0 ? "" : "; ", reason);
            if (written > 0) used += (size_t)written;
        }
    }
}

static bool loadLibheif(const char *name, void *table, char *reason, size_t capacity) {
    return cheif_load(name, table, reason, capacity);
}

static bool loadLibde265(const char *name, void *table, char *reason, size_t capacity) {
    return cde265_load(name, table, reason, capacity);
}

static pthread_once_t libheifOnce = PTHREAD_ONCE_INIT;
static cheif_functions libheifFunctions;
static SharedLibrary libheif;

static void loadSharedLibheif(void) {
    cheif_load_first(libheifNames, CHEIF_COUNT(libheifNames), loadLibheif, &libheifFunctions, &libheif);
    // libheif registers its built-in decoders (libde265, dav1d, libaom in Debian 12) here. The
    // reference it takes is never given back: the process ends first.
    if (libheif.table != NULL) (void)libheifFunctions.heif_init(NULL);
}

const cheif_functions *cheif_library(const char **reason) {
    pthread_once(&libheifOnce, loadSharedLibheif);
    *reason = libheif.reason;
    return libheif.table;
}

static pthread_once_t libde265Once = PTHREAD_ONCE_INIT;
static cde265_functions libde265Functions;
static SharedLibrary libde265;

static void loadSharedLibde265(void) {
    cheif_load_first(libde265Names, CHEIF_COUNT(libde265Names), loadLibde265, &libde265Functions, &libde265);
    // Its tables, made once for the process, as libheif's plugin makes them: a decoder made
    // without them makes them and frees them again with itself (24 million instructions a tile).
    // The reference is never given back.
    if (libde265.table != NULL) (void)libde265Functions.de265_init();
}

const cde265_functions *cde265_library(const char **reason) {
    pthread_once(&libde265Once, loadSharedLibde265);
    *reason = libde265.reason;
    return libde265.table;
}
