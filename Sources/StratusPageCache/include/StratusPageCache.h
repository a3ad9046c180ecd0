#ifndef STRATUS_PAGE_CACHE_H
#define STRATUS_PAGE_CACHE_H

/// Installs Stratus's page cache in the bundled SQLite: SQLite's default cache, with a cheaper
/// end of transaction (see StratusPageCache.c). Must run before SQLite initializes, that is before
/// the process opens its first connection. Returns 1 if installed, 0 if SQLite was already
/// initialized (the default cache then stays, which is correct, only slower). Like any
/// sqlite3_config call it must not run while another thread uses SQLite; DirectConnection calls it
/// once, from a Swift static initializer, before its first open.
int stratus_page_cache_install(void);

#endif
