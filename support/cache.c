/* cache.c — the on-disk blob cache (see cache.h).
 *
 * File layout, little-endian:
 *   0  "HDGCACHE"   magic
 *   8  u32          format version
 *   12 u32          header size (40)
 *   16 u64          key
 *   24 u64          payload length
 *   32 u64          checksum of the payload (hdg_hash64 seeded with the key)
 *   40 payload */
#include "support/cache.h"
#include "support/util.h"

#include <errno.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

enum { HEADER = HDG_CACHE_HEADER, FORMAT = 1 };
static const char MAGIC[8] = {'H', 'D', 'G', 'C', 'A', 'C', 'H', 'E'};

/* ---- directory ---------------------------------------------------------- */

static int env_says_off(void)
{
    const char *v = getenv("HDGC_CACHE");
    if (!v) return 0;
    return !strcasecmp(v, "off") || !strcmp(v, "0") || !strcasecmp(v, "no") ||
           !strcasecmp(v, "false");
}

static const char *home_dir(void)
{
    const char *h = getenv("HOME");
    if (h && *h) return h;
    struct passwd *pw = getpwuid(getuid());
    return pw && pw->pw_dir && *pw->pw_dir ? pw->pw_dir : NULL;
}

hdg_status hdg_cache_dir(const char *override, char *out, size_t n, hdg_error *err)
{
    char path[4096];
    const char *env;
    int len;
    if (n) out[0] = '\0';
    if (env_says_off() || (override && !*override)) return HDG_OK;
    if (override)
        len = snprintf(path, sizeof path, "%s", override);
    else if ((env = getenv("HDGC_CACHE_DIR")) != NULL) {
        if (!*env) return HDG_OK;
        len = snprintf(path, sizeof path, "%s", env);
    } else if ((env = getenv("XDG_CACHE_HOME")) != NULL && *env)
        len = snprintf(path, sizeof path, "%s/hdgc", env);
    else if ((env = home_dir()) != NULL)
        len = snprintf(path, sizeof path, "%s/.cache/hdgc", env);
    else
        return hdg_fail(err, HDG_EIO, "kernel cache disabled: HOME is not set");
    if (len < 0 || (size_t)len >= sizeof path || (size_t)len >= n)
        return hdg_fail(err, HDG_EIO, "kernel cache disabled: %.60s...: path too long (%d bytes)", path,
                        len);
    while (len > 1 && path[len - 1] == '/') path[--len] = '\0';
    if (hdg_make_dirs(path) != 0)
        return hdg_fail(err, HDG_EIO, "kernel cache disabled: %s: %s", path, strerror(errno));
    if (access(path, W_OK | X_OK) != 0)
        return hdg_fail(err, HDG_EIO, "kernel cache disabled: %s: not writable: %s", path, strerror(errno));
    memcpy(out, path, (size_t)len + 1);
    return HDG_OK;
}

/* ---- keys and entry files ----------------------------------------------- */

unsigned long long hdg_cache_key(const char *const *parts, int nparts)
{
    unsigned long long h = hdg_hash64("hdgc-cache", 10, 0);
    for (int i = 0; i < nparts; i++) {
        const char *s = parts[i] ? parts[i] : "";
        unsigned long long len = strlen(s);
        h = hdg_hash64(&len, sizeof len, h);
        h = hdg_hash64(s, len, h);
    }
    return h;
}

static int valid_kind(const char *kind)
{
    if (!kind || !*kind || strlen(kind) > 16) return 0;
    for (const char *p = kind; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_')) return 0;
    return 1;
}

int hdg_cache_path(const char *dir, const char *kind, unsigned long long key, char *out,
                   size_t n)
{
    if (!dir || !*dir || !valid_kind(kind)) return -1;
    int len = snprintf(out, n, "%s/%016llx.%s", dir, key, kind);
    return len < 0 || (size_t)len >= n ? -1 : 0;
}

static void put64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static void put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get32(const unsigned char *p)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) v |= (uint32_t)p[i] << (8 * i);
    return v;
}

/* Reads the whole entry; returns its bytes (malloc'd) or NULL; *bad = 1 when a
 * file is there but is not a regular file of a sane size or cannot be read
 * (a FIFO must not block, a huge sparse file must not be slurped), with the
 * reason in why. */
static unsigned char *slurp(const char *path, size_t *len, int *bad, char *why, size_t wn)
{
    hdg_error err;
    int fd;
    struct stat st;
    *bad = 0;
    if (lstat(path, &st) != 0 && errno == ENOENT) return NULL;   /* the common miss */
    if (hdg_open_regular(path, HDG_CACHE_MAX_ENTRY, &fd, len, &err) != HDG_OK) {
        *bad = lstat(path, &st) == 0;   /* something is there (a dangling link too) */
        snprintf(why, wn, "%s", err.msg);
        return NULL;
    }
    unsigned char *buf = *len >= HEADER ? hdg_try_malloc(*len) : NULL;
    size_t got = 0;
    while (buf && got < *len) {
        ssize_t n = read(fd, buf + got, *len - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        got += (size_t)n;
    }
    close(fd);
    if (!buf || got != *len) {
        free(buf);
        *bad = 1;
        snprintf(why, wn, "%s: truncated or unreadable", path);
        return NULL;
    }
    return buf;
}

int hdg_cache_check(const void *entry, size_t len, unsigned long long key, size_t *payload)
{
    const unsigned char *buf = entry;
    *payload = 0;
    if (len < HEADER) return 0;
    uint64_t size = get64(buf + 24);
    if (memcmp(buf, MAGIC, 8) || get32(buf + 8) != FORMAT || get32(buf + 12) != HEADER ||
        get64(buf + 16) != key || size != len - HEADER ||
        get64(buf + 32) != hdg_hash64(buf + HEADER, (size_t)size, key))
        return 0;
    *payload = (size_t)size;
    return 1;
}

int hdg_cache_get_warn(const char *dir, const char *kind, unsigned long long key, void **data,
                       size_t *n, char *warning, size_t wn)
{
    char path[4200], why[4400] = "";
    size_t len = 0;
    int bad;
    *data = NULL;
    *n = 0;
    if (warning && wn) warning[0] = '\0';
    if (hdg_cache_path(dir, kind, key, path, sizeof path) != 0) return 0;
    unsigned char *buf = slurp(path, &len, &bad, why, sizeof why);
    size_t size = 0;
    if (buf && !hdg_cache_check(buf, len, key, &size)) {
        free(buf);
        buf = NULL;
        bad = 1;
        snprintf(why, sizeof why, "%s: damaged entry", path);
    }
    if (!buf) {
        if (bad) {
            remove(path);   /* an empty directory in its place too */
            if (warning && wn) snprintf(warning, wn, "cache: %s; removed, compiling again", why);
        }
        return 0;
    }
    memmove(buf, buf + HEADER, size);
    *data = buf;
    *n = size;
    return 1;
}

int hdg_cache_get(const char *dir, const char *kind, unsigned long long key, void **data,
                  size_t *n)
{
    return hdg_cache_get_warn(dir, kind, key, data, n, NULL, 0);
}

static int warn(char *warning, size_t wn, const char *what, const char *path)
{
    if (warning && wn) snprintf(warning, wn, "cache: %s %s: %s", what, path, strerror(errno));
    return -1;
}

int hdg_cache_put(const char *dir, const char *kind, unsigned long long key, const void *data,
                  size_t n, char *warning, size_t wn)
{
    char path[4200], tmp[4200];
    unsigned char head[HEADER];
    if (warning && wn) warning[0] = '\0';
    if (hdg_cache_path(dir, kind, key, path, sizeof path) != 0 ||
        snprintf(tmp, sizeof tmp, "%s/.tmp-XXXXXX", dir) >= (int)sizeof tmp) {
        errno = EINVAL;
        return warn(warning, wn, "bad entry path in", dir ? dir : "(null)");
    }
    memcpy(head, MAGIC, 8);
    put32(head + 8, FORMAT);
    put32(head + 12, HEADER);
    put64(head + 16, key);
    put64(head + 24, n);
    put64(head + 32, hdg_hash64(data, n, key));

    int fd = mkstemp(tmp);
    if (fd < 0) return warn(warning, wn, "cannot write to", dir);
    FILE *f = fdopen(fd, "wb");
    if (!f) {
        close(fd);
        unlink(tmp);
        return warn(warning, wn, "cannot write to", dir);
    }
    int ok = fwrite(head, 1, HEADER, f) == HEADER && (n == 0 || fwrite(data, 1, n, f) == n);
    int saved = errno;
    if (fclose(f) != 0) ok = 0, saved = errno;
    if (ok && rename(tmp, path) == 0) return 0;
    if (ok) saved = errno;
    unlink(tmp);
    errno = saved;
    return warn(warning, wn, "cannot write", path);
}
