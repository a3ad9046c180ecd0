// A VFS that gathers the writes SQLite makes to a write-ahead log.
//
// SQLite writes each WAL frame as two writes, its 24-byte header and then its page, so a commit
// of ten pages is twenty pwrite calls made by the writer, inside the commit every other writer
// waits for. This VFS forwards every file and every call to the default VFS unchanged, except
// that a log file keeps appends in a buffer and writes them out as one:
//
// - when the page of a commit frame (a frame header whose "database size after commit" field is
//   not zero) has been appended. SQLite writes all of a commit's frames before it publishes the
//   commit in the shared WAL index, so other connections, which read only published frames,
//   never miss a byte, and a commit's frames are in the file when its write call returns, as
//   without this VFS (durability and crash behaviour are unchanged);
// - before any other call on the file (read, sync, truncate, size, locks, file controls, close),
//   so the connection itself reads what it wrote and a sync covers everything;
// - when the next append would not fit in the buffer;
// - before any write that does not continue the last one: SQLite rewrites frame checksums and
//   overwrites pages in place after the appends of a transaction; those go straight through,
//   after everything before them.
//
// Only appends that start where the previous write ended are gathered; nothing is ever written
// out of order.

#include "StratusWALBuffer.h"
#include "sqlite_nio_sqlite3.h"
#include <string.h>

// The unix VFS writes at most 128 KiB - 1 bytes per call (seekAndWriteFd masks the length with
// 0x1ffff; SQLite itself never writes more than a page and a header), so a write out of the
// buffer must stay below that: 120 KiB, 29 frames of 4 KiB pages.
enum { bufferCapacity = 120 * 1024, frameHeaderSize = 24 };

typedef struct LogFile {
    sqlite3_file base;
    /// The default VFS's file, in the same allocation right after this struct.
    sqlite3_file *real;
    /// Pending appends: `used` bytes that belong at file offset `start`.
    unsigned char *buffer;
    int used;
    sqlite3_int64 start;
    /// Where the last write ended; an append starts exactly there.
    sqlite3_int64 lastEnd;
    /// The last append was a commit frame's header: write out once its page is appended.
    int commitHeaderPending;
} LogFile;

static sqlite3_vfs *defaultVFS;
static sqlite3_vfs bufferVFS;

static int flush(LogFile *file) {
    if (file->used == 0) return SQLITE_OK;
    int rc = file->real->pMethods->xWrite(file->real, file->buffer, file->used, file->start);
    file->used = 0;
    file->commitHeaderPending = 0;
    return rc;
}

static int isCommitFrameHeader(const void *data, int amount) {
    if (amount != frameHeaderSize) return 0;
    const unsigned char *header = data;
    return (header[4] | header[5] | header[6] | header[7]) != 0;
}

static int logWrite(sqlite3_file *pFile, const void *data, int amount, sqlite3_int64 offset) {
    LogFile *file = (LogFile *)pFile;
    int isAppend = offset == file->lastEnd && file->lastEnd > 0;
    // Decided before a flush for room clears the flag: this append is a commit frame's page.
    int completesCommit = isAppend && file->commitHeaderPending;
    int rc = SQLITE_OK;
    if (!isAppend || file->used + amount > bufferCapacity) {
        rc = flush(file);
        if (rc != SQLITE_OK) return rc;
    }
    file->lastEnd = offset + amount;
    if (!isAppend || amount > bufferCapacity) {
        return file->real->pMethods->xWrite(file->real, data, amount, offset);
    }
    if (file->buffer == NULL) {
        file->buffer = sqlite_nio_sqlite3_malloc(bufferCapacity);
        if (file->buffer == NULL) return file->real->pMethods->xWrite(file->real, data, amount, offset);
    }
    if (file->used == 0) file->start = offset;
    memcpy(file->buffer + file->used, data, (size_t)amount);
    file->used += amount;
    if (completesCommit) return flush(file);
    file->commitHeaderPending = isCommitFrameHeader(data, amount);
    return SQLITE_OK;
}

static int logClose(sqlite3_file *pFile) {
    LogFile *file = (LogFile *)pFile;
    int rc = flush(file);
    int closed = file->real->pMethods->xClose(file->real);
    sqlite_nio_sqlite3_free(file->buffer);
    file->buffer = NULL;
    return rc != SQLITE_OK ? rc : closed;
}

// Every other call writes out pending appends first, then forwards.
#define FLUSH_OR_RETURN(pFile) \
    do { int flushed = flush((LogFile *)(pFile)); if (flushed != SQLITE_OK) return flushed; } while (0)
#define REAL(pFile) (((LogFile *)(pFile))->real)

static int logRead(sqlite3_file *f, void *data, int amount, sqlite3_int64 offset) {
    FLUSH_OR_RETURN(f); return REAL(f)->pMethods->xRead(REAL(f), data, amount, offset);
}
static int logTruncate(sqlite3_file *f, sqlite3_int64 size) {
    FLUSH_OR_RETURN(f); ((LogFile *)f)->lastEnd = 0; return REAL(f)->pMethods->xTruncate(REAL(f), size);
}
static int logSync(sqlite3_file *f, int flags) {
    FLUSH_OR_RETURN(f); return REAL(f)->pMethods->xSync(REAL(f), flags);
}
static int logFileSize(sqlite3_file *f, sqlite3_int64 *size) {
    FLUSH_OR_RETURN(f); return REAL(f)->pMethods->xFileSize(REAL(f), size);
}
static int logLock(sqlite3_file *f, int level) {
    FLUSH_OR_RETURN(f); return REAL(f)->pMethods->xLock(REAL(f), level);
}
static int logUnlock(sqlite3_file *f, int level) {
    FLUSH_OR_RETURN(f); return REAL(f)->pMethods->xUnlock(REAL(f), level);
}
static int logCheckReservedLock(sqlite3_file *f, int *reserved) {
    FLUSH_OR_RETURN(f); return REAL(f)->pMethods->xCheckReservedLock(REAL(f), reserved);
}
static int logFileControl(sqlite3_file *f, int op, void *arg) {
    FLUSH_OR_RETURN(f); return REAL(f)->pMethods->xFileControl(REAL(f), op, arg);
}
static int logSectorSize(sqlite3_file *f) { return REAL(f)->pMethods->xSectorSize(REAL(f)); }
static int logDeviceCharacteristics(sqlite3_file *f) { return REAL(f)->pMethods->xDeviceCharacteristics(REAL(f)); }
static int logShmMap(sqlite3_file *f, int region, int size, int extend, void volatile **out) {
    FLUSH_OR_RETURN(f); return REAL(f)->pMethods->xShmMap(REAL(f), region, size, extend, out);
}
static int logShmLock(sqlite3_file *f, int offset, int n, int flags) {
    FLUSH_OR_RETURN(f); return REAL(f)->pMethods->xShmLock(REAL(f), offset, n, flags);
}
static void logShmBarrier(sqlite3_file *f) {
    flush((LogFile *)f); REAL(f)->pMethods->xShmBarrier(REAL(f));
}
static int logShmUnmap(sqlite3_file *f, int deleteFlag) {
    FLUSH_OR_RETURN(f); return REAL(f)->pMethods->xShmUnmap(REAL(f), deleteFlag);
}
static int logFetch(sqlite3_file *f, sqlite3_int64 offset, int amount, void **out) {
    FLUSH_OR_RETURN(f); return REAL(f)->pMethods->xFetch(REAL(f), offset, amount, out);
}
static int logUnfetch(sqlite3_file *f, sqlite3_int64 offset, void *page) {
    FLUSH_OR_RETURN(f); return REAL(f)->pMethods->xUnfetch(REAL(f), offset, page);
}

static const sqlite3_io_methods logMethods = {
    3, logClose, logRead, logWrite, logTruncate, logSync, logFileSize, logLock, logUnlock,
    logCheckReservedLock, logFileControl, logSectorSize, logDeviceCharacteristics,
    logShmMap, logShmLock, logShmBarrier, logShmUnmap, logFetch, logUnfetch,
};

static int bufferOpen(sqlite3_vfs *vfs, sqlite3_filename name, sqlite3_file *pFile, int flags, int *outFlags) {
    (void)vfs;
    if (!(flags & SQLITE_OPEN_WAL)) {
        // Not a log: the default VFS's file fills this allocation and uses its own methods.
        return defaultVFS->xOpen(defaultVFS, name, pFile, flags, outFlags);
    }
    LogFile *file = (LogFile *)pFile;
    memset(file, 0, sizeof(LogFile));
    file->real = (sqlite3_file *)(file + 1);
    int rc = defaultVFS->xOpen(defaultVFS, name, file->real, flags, outFlags);
    // On failure pMethods stays NULL, so SQLite does not call xClose on this file.
    if (rc == SQLITE_OK && file->real->pMethods != NULL) file->base.pMethods = &logMethods;
    return rc;
}

// The rest of the VFS forwards to the default one.
static int bufferDelete(sqlite3_vfs *v, const char *name, int syncDir) { (void)v; return defaultVFS->xDelete(defaultVFS, name, syncDir); }
static int bufferAccess(sqlite3_vfs *v, const char *name, int flags, int *out) { (void)v; return defaultVFS->xAccess(defaultVFS, name, flags, out); }
static int bufferFullPathname(sqlite3_vfs *v, const char *name, int n, char *out) { (void)v; return defaultVFS->xFullPathname(defaultVFS, name, n, out); }
static void *bufferDlOpen(sqlite3_vfs *v, const char *name) { (void)v; return defaultVFS->xDlOpen(defaultVFS, name); }
static void bufferDlError(sqlite3_vfs *v, int n, char *out) { (void)v; defaultVFS->xDlError(defaultVFS, n, out); }
static void (*bufferDlSym(sqlite3_vfs *v, void *handle, const char *symbol))(void) { (void)v; return defaultVFS->xDlSym(defaultVFS, handle, symbol); }
static void bufferDlClose(sqlite3_vfs *v, void *handle) { (void)v; defaultVFS->xDlClose(defaultVFS, handle); }
static int bufferRandomness(sqlite3_vfs *v, int n, char *out) { (void)v; return defaultVFS->xRandomness(defaultVFS, n, out); }
static int bufferSleep(sqlite3_vfs *v, int microseconds) { (void)v; return defaultVFS->xSleep(defaultVFS, microseconds); }
static int bufferCurrentTime(sqlite3_vfs *v, double *out) { (void)v; return defaultVFS->xCurrentTime(defaultVFS, out); }
static int bufferGetLastError(sqlite3_vfs *v, int n, char *out) { (void)v; return defaultVFS->xGetLastError(defaultVFS, n, out); }
static int bufferCurrentTimeInt64(sqlite3_vfs *v, sqlite3_int64 *out) { (void)v; return defaultVFS->xCurrentTimeInt64(defaultVFS, out); }
static int bufferSetSystemCall(sqlite3_vfs *v, const char *name, sqlite3_syscall_ptr call) { (void)v; return defaultVFS->xSetSystemCall(defaultVFS, name, call); }
static sqlite3_syscall_ptr bufferGetSystemCall(sqlite3_vfs *v, const char *name) { (void)v; return defaultVFS->xGetSystemCall(defaultVFS, name); }
static const char *bufferNextSystemCall(sqlite3_vfs *v, const char *name) { (void)v; return defaultVFS->xNextSystemCall(defaultVFS, name); }

int stratus_wal_buffer_install(void) {
    if (sqlite_nio_sqlite3_vfs_find("stratus-wal-buffer") != NULL) return 1;
    defaultVFS = sqlite_nio_sqlite3_vfs_find(NULL);
    if (defaultVFS == NULL || defaultVFS->iVersion < 3) return 0;
    int realFileSize = defaultVFS->szOsFile;
    bufferVFS = (sqlite3_vfs){
        .iVersion = 3,
        .szOsFile = (int)sizeof(LogFile) + realFileSize,
        .mxPathname = defaultVFS->mxPathname,
        .zName = "stratus-wal-buffer",
        .xOpen = bufferOpen, .xDelete = bufferDelete, .xAccess = bufferAccess,
        .xFullPathname = bufferFullPathname, .xDlOpen = bufferDlOpen, .xDlError = bufferDlError,
        .xDlSym = bufferDlSym, .xDlClose = bufferDlClose, .xRandomness = bufferRandomness,
        .xSleep = bufferSleep, .xCurrentTime = bufferCurrentTime, .xGetLastError = bufferGetLastError,
        .xCurrentTimeInt64 = bufferCurrentTimeInt64, .xSetSystemCall = bufferSetSystemCall,
        .xGetSystemCall = bufferGetSystemCall, .xNextSystemCall = bufferNextSystemCall,
    };
    return sqlite_nio_sqlite3_vfs_register(&bufferVFS, 1) == SQLITE_OK;
}
