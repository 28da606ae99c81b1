/* cmd_common.c — checks shared by the subcommands (see commands.h): output
 * paths looked at before any work is done, options given twice. */
#define _XOPEN_SOURCE 700   /* realpath */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/commands.h"
#include "runtime/report.h"
#include "support/util.h"

/* The absolute, resolved form of a path whose last component may not exist
 * yet: realpath of its directory + its name; NULL when the directory does not
 * resolve (errno tells why). */
static char *resolve_out(const char *path)
{
    char *full = realpath(path, NULL);
    if (full) return full;
    char *a = hdg_xstrdup(path), *b = hdg_xstrdup(path);
    char *dir = realpath(dirname(a), NULL);
    struct stat st;
    if (dir && (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))) free(dir), dir = NULL, errno = ENOTDIR;
    int saved = errno;
    char *out = NULL;
    if (dir) {
        hdg_str s;
        hdg_str_init(&s);
        hdg_str_printf(&s, "%s/%s", strcmp(dir, "/") ? dir : "", basename(b));
        out = hdg_str_take(&s);
    }
    free(dir), free(a), free(b);
    errno = saved;
    return out;
}

int hdg_cli_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    if (!a || !b) return 0;
    if (stat(a, &sa) == 0 && stat(b, &sb) == 0) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    char *ra = resolve_out(a), *rb = resolve_out(b);
    int same = ra && rb ? !strcmp(ra, rb) : !strcmp(a, b);
    free(ra), free(rb);
    return same;
}

static int refuse(const char *cmd, const char *opt, const char *path, const char *why)
{
    fprintf(stderr, "hdgc %s: %s '%s': %s\n", cmd, opt, path, why);
    return 2;
}

int hdg_cli_check_output(const char *cmd, const char *opt, const char *path, const char *input)
{
    if (input && path && !strcmp(input, path) && *path) return refuse(cmd, opt, path, "is an input file");
    struct stat st;
    if (!path) return 0;
    if (!*path) return refuse(cmd, opt, path, "empty path");
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) return refuse(cmd, opt, path, "is a directory");
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    if (strlen(base) > 200 || strlen(path) > 3800)   /* room for the temporary's name */
        return refuse(cmd, opt, path, "file name too long");
    char *r = resolve_out(path);
    if (!r) {
        char why[300];
        snprintf(why, sizeof why, "its directory is not usable: %s", strerror(errno));
        return refuse(cmd, opt, path, why);
    }
    free(r);
    if (input && hdg_cli_same_file(path, input)) return refuse(cmd, opt, path, "is an input file");
    return 0;
}

int hdg_cli_twice(const char *cmd, const char **seen, int *nseen, const char *opt)
{
    for (int k = 0; k < *nseen; k++)
        if (!strcmp(seen[k], opt)) {
            fprintf(stderr, "hdgc %s: %s given twice\n", cmd, opt);
            return 2;
        }
    seen[(*nseen)++] = opt;
    return 0;
}

int hdg_cli_write_report(struct hdg_report *r, const char *path)
{
    hdg_error err = {0};
    hdg_status st = hdg_report_write(r, path, &err);
    hdg_report_free(r);
    if (st) fprintf(stderr, "hdgc: error: %s\n", err.msg);
    return st ? 1 : 0;
}

int hdg_cli_range(const char *s, int lo, int hi, int *a, int *b)
{
    const char *dots = strstr(s, "..");
    char first[24];
    long x, y;
    if (!dots) {
        if (!hdg_parse_long(s, lo, hi, &x)) return 0;
        *a = *b = (int)x;
        return 1;
    }
    if (dots - s >= (long)sizeof first) return 0;
    memcpy(first, s, (size_t)(dots - s));
    first[dots - s] = '\0';
    if (!hdg_parse_long(first, lo, hi, &x) || !hdg_parse_long(dots + 2, x, hi, &y)) return 0;
    *a = (int)x, *b = (int)y;
    return 1;
}
