/* util.h — small helpers shared by every layer: checked allocation, growable
 * strings, file slurping, wall-clock time. Internal to libhdgc. */
#ifndef HDG_UTIL_H
#define HDG_UTIL_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include "hdg.h"

/* Allocation that ends the process only when the system is out of memory:
 * through the handler set by hdg_set_oom_handler (the CLI's prints the size and
 * exits with status 1), else abort(). Large allocations whose size depends on
 * the input (meshes, matrices) are checked beforehand against the memory
 * available (hdg_memory_check) or use hdg_try_* and return HDG_ENOMEM. */
typedef void (*hdg_oom_handler)(size_t bytes);
void hdg_set_oom_handler(hdg_oom_handler h);
void hdg_out_of_memory(size_t bytes);           /* the handler, then abort() (never returns) */
void *hdg_try_malloc(size_t n);                 /* NULL on failure */
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

/* Reads a whole regular file of at most 1 GiB. Fails with a message naming
 * the path and why on a missing file, a directory, a FIFO, a device or socket
 * ("not a regular file"), a file over the limit, or a read error. *len gets
 * the byte count (the buffer is also NUL-terminated, but may contain NUL bytes). */
hdg_status hdg_read_file(const char *path, char **data, size_t *len, hdg_error *err);

/* Opens path for reading only if it is a regular file of at most limit bytes
 * (opened with O_NONBLOCK, so a FIFO cannot block, then checked with fstat).
 * *fd is a blocking descriptor the caller closes; *size its size. */
hdg_status hdg_open_regular(const char *path, unsigned long long limit, int *fd, size_t *size,
                            hdg_error *err);

/* "512 B", "3.4 MiB", "9.8 GiB". */
void hdg_format_bytes(double n, char *buf, size_t len);

/* Decimal numbers only ([+-]digits[.digits][e[+-]digits]): no hex, inf, nan,
 * spaces or trailing text. hdg_decimal_span: the length of the decimal number
 * at the start of s (0: none). hdg_parse_double: s is exactly one finite
 * decimal number. hdg_parse_long: s is a decimal integer in [lo, hi]. All
 * return 1 on success (and set *v), else 0. */
size_t hdg_decimal_span(const char *s);
int hdg_parse_double(const char *s, double *v);
int hdg_parse_long(const char *s, long lo, long hi, long *v);

/* Memory: the bytes available to this process ($HDGC_MEMORY_LIMIT when set,
 * for tests; else MemAvailable of /proc/meminfo, lowered to the cgroup's
 * room; 0 when unknown). hdg_memory_check fails with HDG_ENOMEM,
 * "WHAT needs about 9.8 GiB, more than the 7.1 GiB available", when need
 * exceeds it (a bad HDGC_MEMORY_LIMIT is HDG_EINPUT). */
hdg_status hdg_memory_available(double *bytes, hdg_error *err);
hdg_status hdg_memory_check(const char *what, double need, hdg_error *err);

/* Atomic output: hdg_ofile_open writes to a temporary file beside path (a
 * symbolic link is followed to its target); hdg_ofile_commit closes it and
 * renames it over path, or on any write error removes it and leaves the
 * previous file as it was. A path that is a device or FIFO (/dev/null,
 * /dev/stdout) is written in place; a directory is refused. */
typedef struct hdg_ofile {
    FILE *f;
    char *path, *tmp, *name;   /* resolved target, temporary, the path as given */
} hdg_ofile;
hdg_status hdg_ofile_open(hdg_ofile *o, const char *path, hdg_error *err);
hdg_status hdg_ofile_commit(hdg_ofile *o, hdg_error *err);
void hdg_ofile_abort(hdg_ofile *o);

/* mkdir -p (path is modified while it runs, and restored): 0, or -1 with errno
 * telling why (ENOTDIR when a part of it exists and is not a directory). */
int hdg_make_dirs(char *path);

/* Seconds since an arbitrary epoch, monotonic. */
double hdg_wtime(void);
/* A switch in the environment (HDGC_NO_FUSE=1, ...): set, and not empty or "0". */
int hdg_env_flag(const char *name);

/* 64-bit FNV-1a hash (cache keys, checksums). */
unsigned long long hdg_hash64(const void *data, size_t n, unsigned long long seed);

#ifdef __cplusplus
}
#endif

#endif
