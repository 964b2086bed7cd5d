#define _GNU_SOURCE
#include "CWriteBack.h"

#if defined(__linux__)
#include <fcntl.h>

int cwb_start_write_back(int descriptor) { return sync_file_range(descriptor, 0, 0, SYNC_FILE_RANGE_WRITE); }
#else
int cwb_start_write_back(int descriptor) {
    (void)descriptor;
    return 0;
}
#endif
