/* cache.h — a small on-disk cache of compiled blobs (host objects, PTX, CUBIN).
 *
 * Entries live in one directory as <16 hex digits of the key>.<kind>. Each file
 * holds a header (magic, format version, key, payload length, payload checksum)
 * and the payload. Writes go to a temporary file that is renamed into place,
 * so readers never see half an entry; a damaged entry reads as a miss and is
 * deleted. Failing to write is never an error: the caller gets a warning text
 * and simply runs uncached. Internal to libhdgc. */
#ifndef HDG_CACHE_H
#define HDG_CACHE_H

#include <stddef.h>
#include "hdg.h"

/* Resolves the cache directory and creates it (mkdir -p).
 *   override != NULL: that directory ("" disables the cache);
 *   otherwise $HDGC_CACHE_DIR, else $XDG_CACHE_HOME/hdgc, else ~/.cache/hdgc.
 * HDGC_CACHE=off (or 0, no, false) in the environment disables the cache in
 * every case. A disabled cache gives HDG_OK and out = "". A directory that
 * cannot be created or written, or a path too long, gives HDG_EIO with
 * "kernel cache disabled: DIR: why" (callers warn and run uncached). */
hdg_status hdg_cache_dir(const char *override, char *out, size_t n, hdg_error *err);

/* 64-bit key over the parts in order (each part is length-prefixed, so
 * {"ab","c"} and {"a","bc"} differ): pass the source, the compiler version
 * and the flags. NULL parts count as empty strings. */
unsigned long long hdg_cache_key(const char *const *parts, int nparts);

/* Looks up an entry. Returns 1 on a hit with *data (malloc'd, caller frees)
 * and *n set; 0 on a miss. A truncated or corrupt entry is a miss and is
 * deleted. kind is the file extension ("o", "ptx", "cubin"). */
int hdg_cache_get(const char *dir, const char *kind, unsigned long long key,
                  void **data, size_t *n);

/* The same, and when an entry was there but unusable (damaged, truncated, not
 * a regular file -- a FIFO or a device never blocks the reader --, or larger
 * than HDG_CACHE_MAX_ENTRY) a one-line warning naming it and why (the entry is
 * removed, so the caller's recompile replaces it). warning may be NULL. */
#define HDG_CACHE_MAX_ENTRY (1ULL << 30)
int hdg_cache_get_warn(const char *dir, const char *kind, unsigned long long key,
                       void **data, size_t *n, char *warning, size_t wn);

/* Checks the bytes of an entry file (header + payload) for key: returns 1 when
 * it is whole and intact, with *payload = the payload's length (it starts at
 * byte HDG_CACHE_HEADER), else 0. hdg_cache_get's parser (fuzz/cache.c fuzzes it). */
#define HDG_CACHE_HEADER 40
int hdg_cache_check(const void *entry, size_t len, unsigned long long key, size_t *payload);

/* Stores an entry atomically (temporary file + rename). Returns 0 on success,
 * -1 on failure with a one-line reason in warning (if non-NULL). */
int hdg_cache_put(const char *dir, const char *kind, unsigned long long key,
                  const void *data, size_t n, char *warning, size_t wn);

/* The path of an entry (for tools and tests). Returns 0, or -1 if it does not fit. */
int hdg_cache_path(const char *dir, const char *kind, unsigned long long key,
                   char *out, size_t n);

#endif
