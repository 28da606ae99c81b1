/* util.c — see util.h. */
#define _DEFAULT_SOURCE   /* madvise */
#include "support/util.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__linux__)
#include <stdint.h>
#include <sys/mman.h>
#endif

static hdg_oom_handler oom_handler;

void hdg_set_oom_handler(hdg_oom_handler h) { oom_handler = h; }

void hdg_out_of_memory(size_t n)
{
    if (oom_handler) oom_handler(n);   /* the CLI's: a message and exit status 1 */
    fprintf(stderr, "hdgc: out of memory (asked for %zu bytes)\n", n);
    abort();
}

void *hdg_try_malloc(size_t n) { return malloc(n ? n : 1); }

/* Large arrays (element matrices, the trace matrix, vectors) are streamed
 * over again and again; on 4 KiB pages that costs a page fault per page at
 * first touch and a TLB miss per page after, and the hardware prefetchers stop
 * at every page boundary. Where the kernel gives transparent huge pages on
 * request (/sys/kernel/mm/transparent_hugepage/enabled = madvise, Debian's
 * default), ask for them on the 2 MiB-aligned part of every block of 4 MiB or
 * more. HDGC_NO_HUGEPAGES=1 turns this off. */
#define HUGE_PAGE ((uintptr_t)2 << 20)
#define HUGE_MIN ((size_t)4 << 20)

static void advise_huge(void *p, size_t n)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (n < HUGE_MIN || !p || hdg_env_flag("HDGC_NO_HUGEPAGES")) return;
    uintptr_t a = ((uintptr_t)p + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
    uintptr_t b = ((uintptr_t)p + n) & ~(HUGE_PAGE - 1);
    if (b > a) (void)madvise((void *)a, b - a, MADV_HUGEPAGE);   /* advice only: a refusal changes nothing */
#else
    (void)p, (void)n;
#endif
}

void *hdg_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) hdg_out_of_memory(n);
    advise_huge(p, n);
    return p;
}

void *hdg_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) hdg_out_of_memory(n * size);
    advise_huge(p, n * size);
    return p;
}

void *hdg_xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) hdg_out_of_memory(n);
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

void hdg_format_bytes(double n, char *buf, size_t len)
{
    static const char *unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    int u = 0;
    while (n >= 1024 && u < 5) n /= 1024, u++;
    if (u == 0) snprintf(buf, len, "%.0f B", n);
    else snprintf(buf, len, "%.1f %s", n, unit[u]);
}

size_t hdg_decimal_span(const char *s)
{
    size_t i = 0, digits = 0;
    if (s[i] == '+' || s[i] == '-') i++;
    while (isdigit((unsigned char)s[i])) i++, digits++;
    if (s[i] == '.') {
        i++;
        while (isdigit((unsigned char)s[i])) i++, digits++;
    }
    if (!digits) return 0;
    if (s[i] == 'e' || s[i] == 'E') {
        size_t j = i + 1;
        if (s[j] == '+' || s[j] == '-') j++;
        if (isdigit((unsigned char)s[j])) {
            while (isdigit((unsigned char)s[j])) j++;
            i = j;
        }
    }
    return i;
}

int hdg_parse_double(const char *s, double *v)
{
    if (!s || !*s || s[hdg_decimal_span(s)] != '\0') return 0;
    errno = 0;
    double d = strtod(s, NULL);
    if (errno == ERANGE && (d > 1 || d < -1)) return 0;   /* overflow; underflow reads as ~0 */
    if (!isfinite(d)) return 0;
    *v = d;
    return 1;
}

int hdg_parse_long(const char *s, long lo, long hi, long *v)
{
    size_t i = (s && (*s == '+' || *s == '-')) ? 1 : 0;
    if (!s || !isdigit((unsigned char)s[i])) return 0;
    while (isdigit((unsigned char)s[i])) i++;
    if (s[i]) return 0;
    errno = 0;
    long x = strtol(s, NULL, 10);
    if (errno == ERANGE || x < lo || x > hi) return 0;
    *v = x;
    return 1;
}

/* ---- memory ----------------------------------------------------------------- */

/* MemAvailable of /proc/meminfo, and the cgroup v2 limit when lower; 0 if unknown. */
static double system_available(void)
{
    double avail = 0;
    FILE *f = fopen("/proc/meminfo", "r");
    if (f) {
        char line[256];
        unsigned long long kb;
        while (fgets(line, sizeof line, f))
            if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) avail = 1024.0 * (double)kb;
        fclose(f);
    }
    f = fopen("/sys/fs/cgroup/memory.max", "r");
    if (f) {
        unsigned long long max, cur = 0;
        if (fscanf(f, "%llu", &max) == 1) {
            FILE *g = fopen("/sys/fs/cgroup/memory.current", "r");
            if (g && fscanf(g, "%llu", &cur) != 1) cur = 0;
            if (g) fclose(g);
            double room = max > cur ? (double)(max - cur) : 0;
            if (avail == 0 || room < avail) avail = room;
        }
        fclose(f);
    }
    return avail;
}

hdg_status hdg_memory_available(double *bytes, hdg_error *err)
{
    const char *env = getenv("HDGC_MEMORY_LIMIT");
    *bytes = 0;
    if (env && *env) {
        double v;
        if (!hdg_parse_double(env, &v) || v <= 0)
            return hdg_fail(err, HDG_EINPUT, "HDGC_MEMORY_LIMIT=%.64s: expected a positive number of bytes",
                            env);
        *bytes = v;
        return HDG_OK;
    }
    *bytes = system_available();
    return HDG_OK;
}

hdg_status hdg_memory_check(const char *what, double need, hdg_error *err)
{
    double avail;
    hdg_status st = hdg_memory_available(&avail, err);
    if (st || avail <= 0 || need <= avail) return st;
    char n[32], a[32];
    hdg_format_bytes(need, n, sizeof n);
    hdg_format_bytes(avail, a, sizeof a);
    return hdg_fail(err, HDG_ENOMEM, "%s needs about %s, more than the %s available%s", what, n, a,
                    getenv("HDGC_MEMORY_LIMIT") ? " (HDGC_MEMORY_LIMIT)" : "");
}

int hdg_env_flag(const char *name)
{
    const char *s = getenv(name);
    return s && *s && strcmp(s, "0") != 0;
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
