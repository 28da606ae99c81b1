/* cmd_common.c — checks shared by the subcommands (see commands.h): output
 * paths looked at before any work is done, options given twice, --order and
 * --set, a problem loaded with its diagnostics printed. A client of include/hdgc.h. */
#define _XOPEN_SOURCE 700   /* realpath */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/commands.h"
#include "hdgc.h"
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

int hdg_cli_settings_option(const char *cmd, int argc, char **argv, int *i, hdg_cli_settings *c)
{
    const char *a = argv[*i];
    if (strcmp(a, "--order") && strcmp(a, "--set")) return 0;
    if (*i + 1 >= argc) {
        fprintf(stderr, "hdgc %s: %s needs a value\n", cmd, a);
        return -1;
    }
    char *v = argv[++*i];
    if (!strcmp(a, "--order")) {
        long k;
        if (!hdg_parse_long(v, 1, 20, &k)) {   /* decimal digits only */
            fprintf(stderr, "hdgc %s: --order %s: expected an integer between 1 and 20\n", cmd, v);
            return -1;
        }
        c->order = (int)k;
        return 1;
    }
    char *eq = strchr(v, '=');
    double d = 0;
    if (!eq || eq == v || !hdg_parse_double(eq + 1, &d)) {   /* no hex, inf, nan */
        fprintf(stderr, "hdgc %s: --set %s: expected name=number\n", cmd, v);
        return -1;
    }
    *eq = '\0';
    for (int k = 0; k < c->nsets; k++)
        if (!strcmp(c->names[k], v)) {
            fprintf(stderr, "hdgc %s: --set %s given twice\n", cmd, v);
            return -1;
        }
    c->names[c->nsets] = v, c->values[c->nsets++] = d;
    return 1;
}

hdgc_problem *hdg_cli_load(const char *path, const hdg_cli_settings *c)
{
    hdgc_problem *p = NULL;
    char *diags = NULL;
    hdg_error err = {0};
    hdg_status st = hdgc_problem_load_with(path, c->order, c->nsets, c->names, c->values, &p, &diags, &err);
    if (diags && *diags) fputs(diags, stderr);   /* warnings too, as hdgc check prints them */
    else if (st) fprintf(stderr, "%s\n", err.msg);
    hdgc_free(diags);
    return p;
}

void hdg_cli_settings_init(hdg_cli_settings *c, int argc)
{
    c->order = c->nsets = 0;
    c->names = calloc((size_t)argc + 1, sizeof *c->names);
    c->values = calloc((size_t)argc + 1, sizeof *c->values);
}

void hdg_cli_settings_free(hdg_cli_settings *c)
{
    free((void *)c->names), free(c->values);
}
