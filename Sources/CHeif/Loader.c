#include "CHeif.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

/// The names libheif goes by, most specific first: the ABI ImagePrep was built for (Debian 12's
/// libheif1 has `libheif.so.1`), then the development link, which a build of one's own may be.
static const char *const libraryNames[] = {
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

bool cheif_load(const char *name, cheif_functions *table, char *reason, size_t capacity) {
    // RTLD_NOW: a library whose own dependencies are missing fails here, not at a later call.
    void *library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *error = dlerror();
        snprintf(reason, capacity, "%s", error != NULL ? error : name);
        return false;
    }
    cheif_functions loaded;
#define CHEIF_RESOLVE(function)                                                                                      \
    loaded.function = (__typeof__(function) *)dlsym(library, #function);                                             \
    if (loaded.function == NULL) {                                                                                   \
        snprintf(reason, capacity, "%s has no %s (libheif 1.15 has it)", name, #function);                           \
        dlclose(library);                                                                                            \
        return false;                                                                                                \
    }
    CHEIF_FUNCTIONS(CHEIF_RESOLVE)
#undef CHEIF_RESOLVE
    *table = loaded;
    return true;
}

static pthread_once_t loadOnce = PTHREAD_ONCE_INIT;
static cheif_functions sharedFunctions;
static const cheif_functions *sharedTable;
static char sharedReason[1024];

static void loadShared(void) {
    size_t used = 0;
    for (size_t index = 0; index < sizeof libraryNames / sizeof libraryNames[0]; index++) {
        char reason[512];
        if (cheif_load(libraryNames[index], &sharedFunctions, reason, sizeof reason)) {
            // libheif registers its built-in decoders (libde265, dav1d, libaom in Debian 12) here.
            // The reference it takes is never given back: the process ends first.
            (void)sharedFunctions.heif_init(NULL);
            sharedTable = &sharedFunctions;
            return;
        }
        if (used < sizeof sharedReason) {
            int written = snprintf(
                sharedReason + used, sizeof sharedReason - used, "%s%s", used == 0 ? "" : "; ", reason);
            if (written > 0) used += (size_t)written;
        }
    }
}

const cheif_functions *cheif_library(const char **reason) {
    pthread_once(&loadOnce, loadShared);
    *reason = sharedReason;
    return sharedTable;
}
