// The "rocket-log" VFS: see CSQLiteLog.h.
#include "CSQLiteLog.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

// At most 64 KiB a write: the default VFS writes at most 128 KiB - 1 bytes a call (it masks the
// count to 17 bits) and answers SQLITE_FULL to more.
enum { GATHER_LIMIT = 1 << 16, WAL_HEADER = 32, FRAME_HEADER = 24 };

typedef struct {
    sqlite3_file base;
    sqlite3_file *real;       // the default VFS's file, in the memory right after this struct
    int log;                  // 1 for a write-ahead log
    unsigned char *gathered;  // bytes not yet written, from `from` on
    sqlite3_int64 from;
    int count, capacity;
    int commitNext;           // 1 when the next write is the page of a commit frame
    int failing;              // writes still to refuse (rocket_sqlite_log_fail_writes)
} GatherFile;

static sqlite3_vfs *defaultVFS;
static sqlite3_vfs logVFS;
static sqlite3_io_methods gatherMethods;
static int registered = -1;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static int writeOut(GatherFile *f) {
    if (f->count == 0) return SQLITE_OK;
    if (f->failing > 0) {
        f->failing -= 1;
        f->count = 0;
        return SQLITE_IOERR_WRITE;
    }
    int rc = f->real->pMethods->xWrite(f->real, f->gathered, f->count, f->from);
    f->count = 0;
    return rc;
}

static int gClose(sqlite3_file *file) {
    GatherFile *f = (GatherFile *)file;
    int rc = writeOut(f);
    int closed = f->real->pMethods ? f->real->pMethods->xClose(f->real) : SQLITE_OK;
    free(f->gathered);
    f->gathered = NULL;
    return rc != SQLITE_OK ? rc : closed;
}

static int gRead(sqlite3_file *file, void *buffer, int amount, sqlite3_int64 offset) {
    GatherFile *f = (GatherFile *)file;
    int rc = writeOut(f);
    if (rc != SQLITE_OK) return rc;
    return f->real->pMethods->xRead(f->real, buffer, amount, offset);
}

static int gWrite(sqlite3_file *file, const void *data, int amount, sqlite3_int64 offset) {
    GatherFile *f = (GatherFile *)file;
    if (f->log && !f->gathered) {
        // Made at the first write: connections that only read the log never need it.
        f->gathered = malloc(GATHER_LIMIT);
        f->log = f->gathered != NULL;
    }
    if (!f->log) return f->real->pMethods->xWrite(f->real, data, amount, offset);
    const unsigned char *bytes = data;
    // A frame header whose "database size after commit" (bytes 4–7) is not zero: the page
    // that follows ends a transaction.
    int commitHeader = amount == FRAME_HEADER && offset >= WAL_HEADER && (bytes[4] | bytes[5] | bytes[6] | bytes[7]) != 0;
    int endsCommit = f->commitNext && amount != FRAME_HEADER;
    f->commitNext = 0;
    if (f->count > 0 && (offset != f->from + f->count || f->count + amount > f->capacity)) {
        int rc = writeOut(f);
        if (rc != SQLITE_OK) return rc;
    }
    if (amount > f->capacity) return f->real->pMethods->xWrite(f->real, data, amount, offset);
    if (f->count == 0) f->from = offset;
    memcpy(f->gathered + f->count, data, (size_t)amount);
    f->count += amount;
    if (commitHeader) f->commitNext = 1;
    return endsCommit ? writeOut(f) : SQLITE_OK;
}

static int gTruncate(sqlite3_file *file, sqlite3_int64 size) {
    GatherFile *f = (GatherFile *)file;
    int rc = writeOut(f);
    return rc != SQLITE_OK ? rc : f->real->pMethods->xTruncate(f->real, size);
}

static int gSync(sqlite3_file *file, int flags) {
    GatherFile *f = (GatherFile *)file;
    int rc = writeOut(f);
    return rc != SQLITE_OK ? rc : f->real->pMethods->xSync(f->real, flags);
}

static int gFileSize(sqlite3_file *file, sqlite3_int64 *size) {
    GatherFile *f = (GatherFile *)file;
    int rc = writeOut(f);
    return rc != SQLITE_OK ? rc : f->real->pMethods->xFileSize(f->real, size);
}

static int gLock(sqlite3_file *file, int level) { return ((GatherFile *)file)->real->pMethods->xLock(((GatherFile *)file)->real, level); }
static int gUnlock(sqlite3_file *file, int level) { return ((GatherFile *)file)->real->pMethods->xUnlock(((GatherFile *)file)->real, level); }
static int gCheckReservedLock(sqlite3_file *file, int *out) {
    return ((GatherFile *)file)->real->pMethods->xCheckReservedLock(((GatherFile *)file)->real, out);
}
static int gFileControl(sqlite3_file *file, int op, void *arg) {
    GatherFile *f = (GatherFile *)file;
    int rc = writeOut(f);
    return rc != SQLITE_OK ? rc : f->real->pMethods->xFileControl(f->real, op, arg);
}
static int gSectorSize(sqlite3_file *file) { return ((GatherFile *)file)->real->pMethods->xSectorSize(((GatherFile *)file)->real); }
static int gDeviceCharacteristics(sqlite3_file *file) {
    return ((GatherFile *)file)->real->pMethods->xDeviceCharacteristics(((GatherFile *)file)->real);
}
// Shared memory (version 2) and memory-mapped pages (version 3) only where the default VFS's
// file has them: otherwise refused, and nothing mapped.
static int realVersion(sqlite3_file *file) { return ((GatherFile *)file)->real->pMethods->iVersion; }

static int gShmMap(sqlite3_file *file, int page, int size, int extend, void volatile **out) {
    if (realVersion(file) < 2) return SQLITE_IOERR_SHMMAP;
    return ((GatherFile *)file)->real->pMethods->xShmMap(((GatherFile *)file)->real, page, size, extend, out);
}
static int gShmLock(sqlite3_file *file, int offset, int n, int flags) {
    if (realVersion(file) < 2) return SQLITE_IOERR_SHMLOCK;
    return ((GatherFile *)file)->real->pMethods->xShmLock(((GatherFile *)file)->real, offset, n, flags);
}
static void gShmBarrier(sqlite3_file *file) {
    if (realVersion(file) >= 2) ((GatherFile *)file)->real->pMethods->xShmBarrier(((GatherFile *)file)->real);
}
static int gShmUnmap(sqlite3_file *file, int deleteFlag) {
    if (realVersion(file) < 2) return SQLITE_OK;
    return ((GatherFile *)file)->real->pMethods->xShmUnmap(((GatherFile *)file)->real, deleteFlag);
}
static int gFetch(sqlite3_file *file, sqlite3_int64 offset, int amount, void **out) {
    GatherFile *f = (GatherFile *)file;
    *out = NULL;
    int rc = writeOut(f);
    if (rc != SQLITE_OK || realVersion(file) < 3) return rc;
    return f->real->pMethods->xFetch(f->real, offset, amount, out);
}
static int gUnfetch(sqlite3_file *file, sqlite3_int64 offset, void *page) {
    if (realVersion(file) < 3) return SQLITE_OK;
    return ((GatherFile *)file)->real->pMethods->xUnfetch(((GatherFile *)file)->real, offset, page);
}

static int gOpen(sqlite3_vfs *vfs, const char *name, sqlite3_file *file, int flags, int *outFlags) {
    (void)vfs;
    GatherFile *f = (GatherFile *)file;
    memset(f, 0, sizeof(*f));
    f->real = (sqlite3_file *)(f + 1);
    int rc = defaultVFS->xOpen(defaultVFS, name, f->real, flags, outFlags);
    if (rc != SQLITE_OK) {
        // The default VFS may have set methods on failure: they must be called to clean up.
        if (f->real->pMethods) f->real->pMethods->xClose(f->real);
        file->pMethods = NULL;
        return rc;
    }
    if (flags & SQLITE_OPEN_WAL) {
        f->log = 1;
        f->capacity = GATHER_LIMIT;
    }
    file->pMethods = &gatherMethods;
    return SQLITE_OK;
}

static void setUp(void) {
    defaultVFS = sqlite3_vfs_find(NULL);
    if (!defaultVFS) {
        registered = SQLITE_ERROR;
        return;
    }
    gatherMethods = (sqlite3_io_methods){
        3, gClose, gRead, gWrite, gTruncate, gSync, gFileSize, gLock, gUnlock, gCheckReservedLock, gFileControl, gSectorSize,
        gDeviceCharacteristics, gShmMap, gShmLock, gShmBarrier, gShmUnmap, gFetch, gUnfetch,
    };
    logVFS = *defaultVFS;
    logVFS.szOsFile = (int)sizeof(GatherFile) + defaultVFS->szOsFile;
    logVFS.zName = "rocket-log";
    logVFS.pNext = NULL;
    logVFS.xOpen = gOpen;
    registered = sqlite3_vfs_register(&logVFS, 0);
}

int rocket_sqlite_log_vfs_register(void) {
    pthread_once(&once, setUp);
    return registered;
}

int rocket_sqlite_log_fail_writes(sqlite3 *db, int count) {
    sqlite3_file *file = NULL;
    if (sqlite3_file_control(db, "main", SQLITE_FCNTL_JOURNAL_POINTER, &file) != SQLITE_OK || !file || file->pMethods != &gatherMethods)
        return SQLITE_NOTFOUND;
    GatherFile *f = (GatherFile *)file;
    if (!f->log) return SQLITE_NOTFOUND;
    f->failing = count;
    return SQLITE_OK;
}
