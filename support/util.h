/* util.h — small helpers shared by every layer: checked allocation, growable
 * strings, file slurping, wall-clock time. Internal to libhdgc. */
#ifndef HDG_UTIL_H
#define HDG_UTIL_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stdarg.h>
#include <stddef.h>
#include "hdg.h"

/* Allocation that aborts the process only when the system is out of memory
 * (the one failure no caller can handle meaningfully). */
void *hdg_xmalloc(size_t n);
void *hdg_xcalloc(size_t n, size_t size);
void *hdg_xrealloc(void *p, size_t n);
char *hdg_xstrdup(const char *s);

/* A growable NUL-terminated string. */
typedef struct hdg_str {
    char *s;
    size_t len, cap;
} hdg_str;

void hdg_str_init(hdg_str *b);
void hdg_str_free(hdg_str *b);
void hdg_str_putc(hdg_str *b, char c);
void hdg_str_puts(hdg_str *b, const char *s);
void hdg_str_printf(hdg_str *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void hdg_str_vprintf(hdg_str *b, const char *fmt, va_list ap);
/* Hands the buffer to the caller (who frees it) and resets b. */
char *hdg_str_take(hdg_str *b);

/* Reads a whole regular file. Fails with a clear message on a missing file,
 * a directory, or a read error. *len gets the byte count (the buffer is also
 * NUL-terminated, but may contain NUL bytes). */
hdg_status hdg_read_file(const char *path, char **data, size_t *len, hdg_error *err);

/* Seconds since an arbitrary epoch, monotonic. */
double hdg_wtime(void);

/* 64-bit FNV-1a hash (cache keys, checksums). */
unsigned long long hdg_hash64(const void *data, size_t n, unsigned long long seed);

#ifdef __cplusplus
}
#endif

#endif
