// A thin wrapper around SQLite's default page cache (pcache1) that skips needless truncations.
//
// Every transaction ends with the pager asking its cache to drop pages past the end of the
// database (xTruncate with the database's page count + 1). pcache1 skips that when its highest
// key is below the limit, and otherwise walks: a few hash buckets when its highest key is just
// past the end, its whole hash table when it is far past it.
//
// When SQLite rebalances a B-tree it swaps the page numbers of two new pages through a temporary
// key: the page number just past the lock-byte page, 262,145 with 4 KiB pages (btree.c,
// balance_nonroot, `pgnoTemp`). No page stays there, but pcache1's highest key is now 262,145,
// so with a database smaller than 1 GiB the next transaction's end walks every bucket of the
// writer's cache (thousands with a 32 MB cache). Under single-record creates that was about one
// walk per commit, 2.5% of the server's samples in a profile, inside the commit that every other
// writer waits for.
//
// The wrapper keeps its own highest key, leaving out that temporary key while no page holds it,
// and forwards a truncation only when a page past the limit may exist. Keys enter a cache only
// through xFetch and xRekey, so that key is an upper bound of the pages present and skipping is
// exact. Everything else is forwarded unchanged.

#include "StratusPageCache.h"
#include "sqlite_nio_sqlite3.h"

typedef struct WrappedCache {
    sqlite3_pcache *inner;
    /// Highest key fetched or rekeyed to, except rekeys to `temporaryKey`; an upper bound.
    unsigned highestKey;
    /// The page number balance_nonroot swaps through: PENDING_BYTE / page size + 1.
    unsigned temporaryKey;
    /// Pages currently rekeyed to `temporaryKey` (0 or 1 between the swap's steps).
    int pagesAtTemporaryKey;
} WrappedCache;

static sqlite3_pcache_methods2 defaultMethods;

static int wrappedInit(void *arg) { return defaultMethods.xInit(arg); }

static void wrappedShutdown(void *arg) {
    if (defaultMethods.xShutdown) defaultMethods.xShutdown(arg);
}

static sqlite3_pcache *wrappedCreate(int pageSize, int extraSize, int purgeable) {
    WrappedCache *cache = sqlite_nio_sqlite3_malloc(sizeof(WrappedCache));
    if (!cache) return 0;
    cache->inner = defaultMethods.xCreate(pageSize, extraSize, purgeable);
    if (!cache->inner) {
        sqlite_nio_sqlite3_free(cache);
        return 0;
    }
    cache->highestKey = 0;
    // SQLite's PENDING_BYTE is 0x40000000 unless a test build moves it.
    cache->temporaryKey = (unsigned)(0x40000000 / pageSize) + 1;
    cache->pagesAtTemporaryKey = 0;
    return (sqlite3_pcache *)cache;
}

static WrappedCache *wrapped(sqlite3_pcache *cache) { return (WrappedCache *)cache; }

static void wrappedCachesize(sqlite3_pcache *cache, int size) {
    defaultMethods.xCachesize(wrapped(cache)->inner, size);
}

static int wrappedPagecount(sqlite3_pcache *cache) {
    return defaultMethods.xPagecount(wrapped(cache)->inner);
}

static sqlite3_pcache_page *wrappedFetch(sqlite3_pcache *cache, unsigned key, int createFlag) {
    WrappedCache *w = wrapped(cache);
    sqlite3_pcache_page *page = defaultMethods.xFetch(w->inner, key, createFlag);
    if (page && key > w->highestKey) w->highestKey = key;
    return page;
}

static void wrappedUnpin(sqlite3_pcache *cache, sqlite3_pcache_page *page, int discard) {
    defaultMethods.xUnpin(wrapped(cache)->inner, page, discard);
}

static void wrappedRekey(sqlite3_pcache *cache, sqlite3_pcache_page *page, unsigned oldKey, unsigned newKey) {
    WrappedCache *w = wrapped(cache);
    defaultMethods.xRekey(w->inner, page, oldKey, newKey);
    if (oldKey == w->temporaryKey) w->pagesAtTemporaryKey--;
    if (newKey == w->temporaryKey) {
        w->pagesAtTemporaryKey++;
    } else if (newKey > w->highestKey) {
        w->highestKey = newKey;
    }
}

static void wrappedTruncate(sqlite3_pcache *cache, unsigned limit) {
    WrappedCache *w = wrapped(cache);
    int pageAtTemporaryKeyIsCut = w->pagesAtTemporaryKey != 0 && limit <= w->temporaryKey;
    if (limit > w->highestKey && !pageAtTemporaryKeyIsCut) return;  // no page at or past `limit`
    defaultMethods.xTruncate(w->inner, limit);
    if (limit <= w->highestKey) w->highestKey = limit - 1;
    if (pageAtTemporaryKeyIsCut) w->pagesAtTemporaryKey = 0;
}

static void wrappedDestroy(sqlite3_pcache *cache) {
    WrappedCache *w = wrapped(cache);
    defaultMethods.xDestroy(w->inner);
    sqlite_nio_sqlite3_free(w);
}

static void wrappedShrink(sqlite3_pcache *cache) {
    if (defaultMethods.xShrink) defaultMethods.xShrink(wrapped(cache)->inner);
}

int stratus_page_cache_install(void) {
    if (sqlite_nio_sqlite3_config(SQLITE_CONFIG_GETPCACHE2, &defaultMethods) != SQLITE_OK) return 0;
    if (defaultMethods.iVersion < 1 || !defaultMethods.xInit || !defaultMethods.xCreate) return 0;
    sqlite3_pcache_methods2 methods = {
        1, defaultMethods.pArg, wrappedInit, wrappedShutdown, wrappedCreate, wrappedCachesize,
        wrappedPagecount, wrappedFetch, wrappedUnpin, wrappedRekey, wrappedTruncate, wrappedDestroy,
        wrappedShrink,
    };
    return sqlite_nio_sqlite3_config(SQLITE_CONFIG_PCACHE2, &methods) == SQLITE_OK;
}
