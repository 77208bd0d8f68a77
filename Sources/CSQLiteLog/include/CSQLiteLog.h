#ifndef ROCKET_SQLITE_LOG_H
#define ROCKET_SQLITE_LOG_H

#include <sqlite3.h>

/// Registers the VFS named "rocket-log" (once; later calls return the first result): the
/// system's default VFS, except that a connection's writes to its write-ahead log are gathered
/// in memory and handed to the kernel in one call when a transaction's commit frame is written
/// (or sooner, when the log is read, synced, truncated, its size asked, or the gathered bytes
/// would pass 64 KiB). SQLite writes each frame as two calls (its header, then the page); a commit
/// of many pages was one system call per half frame. Nothing is acknowledged earlier than
/// before: the commit frame's write returns only once everything before it is written, and its
/// error, if any, is the commit's. 0 (SQLITE_OK) or SQLite's error code.
int rocket_sqlite_log_vfs_register(void);

/// For tests: the next `count` writes of connection `db`'s write-ahead log fail as a broken disk
/// would (SQLITE_IOERR_WRITE, nothing written). SQLITE_NOTFOUND when the connection has no log
/// opened through the VFS yet (it opens with the first write transaction in WAL mode).
int rocket_sqlite_log_fail_writes(sqlite3 *db, int count);

#endif
