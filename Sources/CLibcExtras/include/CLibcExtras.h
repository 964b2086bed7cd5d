#ifndef C_LIBC_EXTRAS_H
#define C_LIBC_EXTRAS_H

/// The C library calls that Swift's Glibc module leaves out (they need `_GNU_SOURCE`, or a
/// header it does not include), for the platform layer alone; elsewhere they do nothing.

/// Starts writing a file's dirty pages to the disk without waiting for them: Linux's
/// `sync_file_range(SYNC_FILE_RANGE_WRITE)`. Advice only, so that a later `fsync` of several
/// files finds their data on its way and commits them in one journal transaction.
///
/// - Returns: 0, or -1 with `errno` set (which callers may ignore: the `fsync` still follows).
int cle_start_write_back(int descriptor);

/// glibc's `mallopt(M_MMAP_THRESHOLD, mmapThreshold)` and `mallopt(M_TRIM_THRESHOLD,
/// trimThreshold)` (`malloc.h`): blocks of up to `mmapThreshold` bytes come from malloc's heaps,
/// and up to `trimThreshold` bytes free at a heap's top stay in the process.
void cle_keep_freed_memory(int mmapThreshold, int trimThreshold);

/// glibc's `mallopt(M_PERTURB, fill)` (`malloc.h`): while `fill` is not 0, every block malloc hands
/// out is filled with `fill ^ 0xFF` (and every freed block with `fill`); 0 stops it.
void cle_set_malloc_perturb(int fill);

#endif
