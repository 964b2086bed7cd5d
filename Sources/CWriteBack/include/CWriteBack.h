#ifndef C_WRITE_BACK_H
#define C_WRITE_BACK_H

/// Starts writing a file's dirty pages to the disk without waiting for them: Linux's
/// `sync_file_range(SYNC_FILE_RANGE_WRITE)`, which Swift's Glibc module leaves out (it needs
/// `_GNU_SOURCE`). Advice only, so that a later `fsync` of several files finds their data on its
/// way and commits them in one journal transaction; elsewhere it does nothing.
///
/// - Returns: 0, or -1 with `errno` set (which callers may ignore: the `fsync` still follows).
int cwb_start_write_back(int descriptor);

#endif
