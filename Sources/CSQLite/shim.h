#ifndef CSQLITE_SHIM_H
#define CSQLITE_SHIM_H
#include <sqlite3.h>

/// SQLITE_TRANSIENT is a macro that casts -1 to a function pointer, which Swift cannot import.
/// Binding with it makes SQLite copy the bytes before the bind call returns, so a Swift buffer
/// only has to live for the length of that call.
static inline sqlite3_destructor_type csqlite_transient(void) { return SQLITE_TRANSIENT; }

/// sqlite3_db_config is variadic, which Swift cannot call. SQLITE_DBCONFIG_DEFENSIVE turns off what
/// only a hostile or broken database file would need: writing to the schema table, `PRAGMA
/// writable_schema`, and the like.
static inline int csqlite_enable_defensive(sqlite3 *db) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)0);
}

#endif
