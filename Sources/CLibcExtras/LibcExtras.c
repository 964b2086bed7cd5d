#define _GNU_SOURCE
#include "CLibcExtras.h"

#if defined(__linux__)
#include <fcntl.h>

int cle_start_write_back(int descriptor) { return sync_file_range(descriptor, 0, 0, SYNC_FILE_RANGE_WRITE); }
#else
int cle_start_write_back(int descriptor) {
    (void)descriptor;
    return 0;
}
#endif

#if defined(__GLIBC__)
#include <malloc.h>

void cle_keep_freed_memory(int mmapThreshold, int trimThreshold) {
    mallopt(M_MMAP_THRESHOLD, mmapThreshold);
    mallopt(M_TRIM_THRESHOLD, trimThreshold);
}

void cle_set_malloc_perturb(int fill) { mallopt(M_PERTURB, fill); }
#else
void cle_keep_freed_memory(int mmapThreshold, int trimThreshold) {
    (void)mmapThreshold;
    (void)trimThreshold;
}

void cle_set_malloc_perturb(int fill) { (void)fill; }
#endif
