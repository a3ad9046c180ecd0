#ifndef STRATUS_WAL_BUFFER_H
#define STRATUS_WAL_BUFFER_H

/// Registers, as the default VFS of the bundled SQLite, a VFS that forwards everything to the
/// default one ("unix") except writes to write-ahead logs, which it gathers so that a commit's
/// frames reach the file in one write instead of two per frame (see StratusWALBuffer.c). Call it
/// before the process opens its first connection. Returns 1 when registered (or already), 0 if
/// there is no default VFS or it is older than version 3 (whose methods this one forwards).
int stratus_wal_buffer_install(void);

#endif
