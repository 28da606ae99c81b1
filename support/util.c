/* util.c — see util.h. */
#include "support/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static void out_of_memory(size_t n)
{
    fprintf(stderr, "hdgc: out of memory (asked for %zu bytes)\n", n);
    abort();
}

void *hdg_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) out_of_memory(n);
    return p;
}

void *hdg_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) out_of_memory(n * size);
    return p;
}

void *hdg_xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) out_of_memory(n);
    return q;
}

char *hdg_xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(hdg_xmalloc(n), s, n);
}

hdg_status hdg_fail(hdg_error *err, hdg_status code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        err->code = code;
    }
    return code;
}

void hdg_error_clear(hdg_error *err)
{
    if (!err) return;
    err->code = HDG_OK;
    err->msg[0] = '\0';
}

const char *hdg_status_name(hdg_status code)
{
    switch (code) {
    case HDG_OK: return "ok";
    case HDG_EINPUT: return "input error";
    case HDG_EIO: return "I/O error";
    case HDG_ENOMEM: return "out of memory";
    case HDG_ECOMPILE: return "compile error";
    case HDG_ESOLVER: return "solver error";
    case HDG_EDEVICE: return "device error";
    case HDG_EINTERNAL: return "internal error";
    }
    return "unknown error";
}

void hdg_str_init(hdg_str *b) { b->s = NULL; b->len = b->cap = 0; }

void hdg_str_free(hdg_str *b)
{
    free(b->s);
    hdg_str_init(b);
}

static void reserve(hdg_str *b, size_t extra)
{
    if (b->len + extra + 1 <= b->cap) return;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->len + extra + 1) cap *= 2;
    b->s = hdg_xrealloc(b->s, cap);
    b->cap = cap;
}

void hdg_str_putc(hdg_str *b, char c)
{
    reserve(b, 1);
    b->s[b->len++] = c;
    b->s[b->len] = '\0';
}

void hdg_str_puts(hdg_str *b, const char *s)
{
    size_t n = strlen(s);
    reserve(b, n);
    memcpy(b->s + b->len, s, n + 1);
    b->len += n;
}

void hdg_str_vprintf(hdg_str *b, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0) return;
    reserve(b, (size_t)n);
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
}

void hdg_str_printf(hdg_str *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    hdg_str_vprintf(b, fmt, ap);
    va_end(ap);
}

char *hdg_str_take(hdg_str *b)
{
    char *s = b->s ? b->s : hdg_xstrdup("");
    hdg_str_init(b);
    return s;
}

#define HDG_READ_MAX (1 << 30)

hdg_status hdg_read_file(const char *path, char **data, size_t *len, hdg_error *err)
{
    struct stat st;
    *data = NULL;
    if (len) *len = 0;
    if (stat(path, &st) != 0)
        return hdg_fail(err, HDG_EIO, "%s: cannot open: %s", path, strerror(errno));
    if (S_ISDIR(st.st_mode))
        return hdg_fail(err, HDG_EIO, "%s: is a directory, not a file", path);
    if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))
        return hdg_fail(err, HDG_EIO, "%s: is a device, not a file", path);
    FILE *f = fopen(path, "rb");
    if (!f) return hdg_fail(err, HDG_EIO, "%s: cannot open: %s", path, strerror(errno));
    hdg_str b;
    hdg_str_init(&b);
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (b.len + n > HDG_READ_MAX) {   /* e.g. an endless pipe */
            fclose(f);
            hdg_str_free(&b);
            return hdg_fail(err, HDG_EIO, "%s: larger than %d MiB, refused", path, HDG_READ_MAX >> 20);
        }
        reserve(&b, n);
        memcpy(b.s + b.len, chunk, n);
        b.len += n;
        b.s[b.len] = '\0';
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        hdg_str_free(&b);
        return hdg_fail(err, HDG_EIO, "%s: read error", path);
    }
    if (len) *len = b.len;
    *data = hdg_str_take(&b);
    return HDG_OK;
}

double hdg_wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

unsigned long long hdg_hash64(const void *data, size_t n, unsigned long long seed)
{
    const unsigned char *p = data;
    unsigned long long h = 1469598103934665603ULL ^ seed;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 1099511628211ULL;
    }
    return h;
}
