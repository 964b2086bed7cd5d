#ifndef CSQLITE_SHIM_H
#define CSQLITE_SHIM_H
#include <sqlite3.h>

/// SQLITE_TRANSIENT is a macro that casts -1 to a function pointer, which Swift cannot import.
/// Binding with it makes SQLite copy the bytes before the bind call returns, so a Swift buffer
/// only has to live for the length of that call.
static inline sqlite3_destructor_type csqlite_transient(void) { return SQLITE_TRANSIENT; }

#endif
