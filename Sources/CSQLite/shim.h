#if !__has_include(<sqlite3.h>)
#error "sqlite3.h is missing: install Debian's libsqlite3-dev (sh scripts/install-deps.sh)"
#endif
#include <sqlite3.h>

/// Turns off SQLite's count of the memory it holds (a process-wide mutex taken at every
/// allocation and free, and a size look-up each); nothing here reads the count or sets a heap
/// limit. SQLITE_MISUSE when the library is already initialized (then it stays as it was).
static inline int rocket_sqlite_skip_memory_count(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
