/* file.c — reading and writing files (declared in util.h): inputs are
 * checked for type and size before they are read (a FIFO cannot block, a
 * huge sparse file is refused), outputs are written to a temporary beside the
 * target and renamed when whole (hdg_ofile), so a failed write keeps the old
 * file. */
#define _XOPEN_SOURCE 700   /* realpath */
#include "support/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define HDG_READ_MAX (1ULL << 30)   /* the largest input file read */

/* A path as messages show it: a very long one is cut in the middle, so the
 * reason after it still fits the message. */
static const char *shown_path(const char *path, char *buf, size_t n)
{
    size_t len = strlen(path);
    if (len < 400) return path;
    snprintf(buf, n, "%.200s...%s", path, path + len - 150);
    return buf;
}
#define SHOWN(p) shown_path((p), (char[400]){0}, 400)

hdg_status hdg_open_regular(const char *path, unsigned long long limit, int *fd, size_t *size,
                            hdg_error *err)
{
    struct stat st;
    *fd = -1;
    *size = 0;
    /* O_NONBLOCK: opening a FIFO with no writer must not block */
    int f = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (f < 0) return hdg_fail(err, HDG_EIO, "%s: cannot open: %s", SHOWN(path), strerror(errno));
    if (fstat(f, &st) != 0) {
        int e = errno;
        close(f);
        return hdg_fail(err, HDG_EIO, "%s: cannot open: %s", SHOWN(path), strerror(e));
    }
    const char *why = S_ISDIR(st.st_mode) ? "is a directory, not a file"
                      : S_ISFIFO(st.st_mode) ? "is a FIFO, not a regular file"
                      : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "is a device, not a file"
                      : S_ISSOCK(st.st_mode) ? "is a socket, not a regular file"
                      : !S_ISREG(st.st_mode) ? "not a regular file" : NULL;
    if (!why && (unsigned long long)st.st_size > limit) {
        char have[32], max[32];
        hdg_format_bytes((double)st.st_size, have, sizeof have);
        hdg_format_bytes((double)limit, max, sizeof max);
        close(f);
        return hdg_fail(err, HDG_EIO, "%s: %s: larger than the %s limit", SHOWN(path), have, max);
    }
    if (why) {
        close(f);
        return hdg_fail(err, HDG_EIO, "%s: %s", SHOWN(path), why);
    }
    int flags = fcntl(f, F_GETFL);
    if (flags >= 0) fcntl(f, F_SETFL, flags & ~O_NONBLOCK);
    *fd = f;
    *size = (size_t)st.st_size;
    return HDG_OK;
}

hdg_status hdg_read_file(const char *path, char **data, size_t *len, hdg_error *err)
{
    int fd;
    size_t size;
    *data = NULL;
    if (len) *len = 0;
    hdg_status st = hdg_open_regular(path, HDG_READ_MAX, &fd, &size, err);
    if (st) return st;
    char *buf = hdg_try_malloc(size + 1);
    if (!buf) {
        close(fd);
        return hdg_fail(err, HDG_ENOMEM, "%s: out of memory reading %zu bytes", SHOWN(path), size);
    }
    size_t got = 0;
    while (got < size) {   /* the file may shrink or grow meanwhile: read what was stat'ed */
        ssize_t n = read(fd, buf + got, size - got);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            int e = errno;
            close(fd);
            free(buf);
            return hdg_fail(err, HDG_EIO, "%s: read error: %s", SHOWN(path), strerror(e));
        }
        if (n == 0) break;
        got += (size_t)n;
    }
    close(fd);
    buf[got] = '\0';
    if (len) *len = got;
    *data = buf;
    return HDG_OK;
}

/* ---- decimal numbers ------------------------------------------------------ */

/* ---- atomic output ---------------------------------------------------------- */

/* The path to write through: a symbolic link is followed to its target. */
static char *resolve(const char *path)
{
    char *real = realpath(path, NULL);
    return real ? real : hdg_xstrdup(path);
}

hdg_status hdg_ofile_open(hdg_ofile *o, const char *path, hdg_error *err)
{
    struct stat st;
    memset(o, 0, sizeof *o);
    if (!path || !*path) return hdg_fail(err, HDG_EINPUT, "no output path given");
    o->path = resolve(path);
    o->name = hdg_xstrdup(path);
    if (stat(o->path, &st) == 0 && S_ISDIR(st.st_mode)) {
        hdg_ofile_abort(o);
        return hdg_fail(err, HDG_EIO, "%s: cannot open for writing: %s", path, strerror(EISDIR));
    }
    if (stat(o->path, &st) == 0 && !S_ISREG(st.st_mode)) {
        /* a device or FIFO (/dev/null, /dev/stdout): written in place, never
         * replaced; O_NONBLOCK so that a FIFO nobody reads fails (ENXIO) instead
         * of blocking */
        int fd = open(o->path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
        if (fd >= 0) {
            int flags = fcntl(fd, F_GETFL);
            if (flags >= 0) fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
            o->f = fdopen(fd, "w");
            if (!o->f) close(fd);
        }
        if (!o->f) {
            int e = errno;
            hdg_ofile_abort(o);
            return hdg_fail(err, HDG_EIO, "%s: cannot open for writing: %s", path, strerror(e));
        }
        return HDG_OK;
    }
    const char *slash = strrchr(o->path, '/');
    size_t dlen = slash ? (size_t)(slash - o->path) + 1 : 0;
    hdg_str t;
    hdg_str_init(&t);
    hdg_str_printf(&t, "%.*s.%s.tmp-XXXXXX", (int)dlen, o->path, o->path + dlen);
    o->tmp = hdg_str_take(&t);
    int fd = mkstemp(o->tmp);
    if (fd < 0) {
        int e = errno;
        free(o->tmp), o->tmp = NULL;
        hdg_ofile_abort(o);
        return hdg_fail(err, HDG_EIO, "%s: cannot open for writing: %s", path, strerror(e));
    }
    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, 0666 & ~mask);
    o->f = fdopen(fd, "w");
    if (!o->f) {
        int e = errno;
        close(fd);
        hdg_ofile_abort(o);
        return hdg_fail(err, HDG_EIO, "%s: cannot open for writing: %s", path, strerror(e));
    }
    return HDG_OK;
}

hdg_status hdg_ofile_commit(hdg_ofile *o, hdg_error *err)
{
    int bad = ferror(o->f), saved = bad ? errno : 0;
    if (fclose(o->f) != 0 && !bad) bad = 1, saved = errno;
    o->f = NULL;
    if (!bad && o->tmp && rename(o->tmp, o->path) != 0) bad = 1, saved = errno;
    if (bad) {
        char *path = hdg_xstrdup(o->name);
        const char *kept = o->tmp ? " (the previous file, if any, is unchanged)" : "";
        hdg_ofile_abort(o);
        hdg_status st = hdg_fail(err, HDG_EIO, "%s: write error: %s%s", path, strerror(saved ? saved : EIO),
                                 kept);
        free(path);
        return st;
    }
    free(o->tmp);
    free(o->path);
    free(o->name);
    memset(o, 0, sizeof *o);
    return HDG_OK;
}

void hdg_ofile_abort(hdg_ofile *o)
{
    if (o->f) fclose(o->f);
    if (o->tmp) unlink(o->tmp);
    free(o->tmp);
    free(o->path);
    free(o->name);
    memset(o, 0, sizeof *o);
}

int hdg_make_dirs(char *path)
{
    struct stat st;
    if (!*path) {
        errno = ENOENT;
        return -1;
    }
    for (char *p = path + 1;; p++) {
        if (*p != '/' && *p != '\0') continue;
        char c = *p;
        *p = '\0';
        int ok = mkdir(path, 0755) == 0 || (errno == EEXIST && stat(path, &st) == 0 &&
                                           S_ISDIR(st.st_mode));
        if (!ok && errno == EEXIST) errno = ENOTDIR;
        *p = c;
        if (!ok) return -1;
        if (c == '\0') return 0;
    }
}
