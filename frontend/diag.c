/* diag.c — diagnostics: collecting them, rendering them with the source line
 * and a caret, and the "did you mean" search over names. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/internal.h"
#include "support/util.h"

void hdg_diags_init(hdg_diags *d)
{
    memset(d, 0, sizeof *d);
    d->max_errors = 50;
}

void hdg_diags_free(hdg_diags *d)
{
    for (int i = 0; i < d->count; i++) free(d->items[i].msg);
    free(d->items);
    free(d->file);
    free(d->src);
    int max = d->max_errors;
    memset(d, 0, sizeof *d);
    d->max_errors = max;
}

void hdg_diags_set_source(hdg_diags *d, const char *file, const char *src, size_t len)
{
    free(d->file);
    free(d->src);
    d->file = file ? hdg_xstrdup(file) : NULL;
    d->src = NULL;
    d->srclen = 0;
    if (src) {
        d->src = hdg_xmalloc(len + 1);
        memcpy(d->src, src, len);
        d->src[len] = '\0';
        d->srclen = len;
    }
}

void hdg_diag_add(hdg_diags *d, hdg_severity sev, hdg_loc loc, const char *fmt, ...)
{
    if (sev == HDG_DIAG_ERROR && ++d->nerrors > d->max_errors) return;
    if (sev == HDG_DIAG_WARNING && ++d->nwarnings > d->max_errors) return;
    if (d->count == d->cap) {
        d->cap = d->cap ? 2 * d->cap : 16;
        d->items = hdg_xrealloc(d->items, (size_t)d->cap * sizeof(hdg_diag));
    }
    hdg_str b;
    hdg_str_init(&b);
    va_list ap;
    va_start(ap, fmt);
    hdg_str_vprintf(&b, fmt, ap);
    va_end(ap);
    d->items[d->count++] = (hdg_diag){sev, loc, hdg_str_take(&b)};
}

/* The bytes of line `line` (1-based) of the source, or NULL. */
static const char *find_line(const hdg_diags *d, int line, size_t *len)
{
    if (!d->src || line < 1) return NULL;
    const char *s = d->src, *end = d->src + d->srclen;
    for (int l = 1; l < line; l++) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        if (!nl) return NULL;
        s = nl + 1;
    }
    const char *nl = memchr(s, '\n', (size_t)(end - s));
    *len = (size_t)((nl ? nl : end) - s);
    if (*len && s[*len - 1] == '\r') (*len)--;
    return s;
}

/* Echoes the line (a window of it when long) and a caret under column col. */
static void render_source(hdg_str *b, const hdg_diags *d, hdg_loc loc)
{
    size_t len;
    const char *s = find_line(d, loc.line, &len);
    if (!s) return;
    size_t col = loc.col > 0 ? (size_t)loc.col - 1 : 0;
    if (col > len) col = len;
    size_t from = 0, to = len;
    if (len > 160) {                       /* a window of about 160 bytes around col */
        from = col > 80 ? col - 80 : 0;
        to = from + 160 < len ? from + 160 : len;
    }
    hdg_str_puts(b, from ? "..." : "");
    for (size_t i = from; i < to; i++) {
        unsigned char c = (unsigned char)s[i];
        hdg_str_putc(b, c == '\t' || (c >= 32 && c < 127) ? (char)c : '?');
    }
    hdg_str_puts(b, to < len ? "...\n" : "\n");
    hdg_str_puts(b, from ? "   " : "");
    for (size_t i = from; i < col; i++) hdg_str_putc(b, s[i] == '\t' ? '\t' : ' ');
    hdg_str_puts(b, "^\n");
}

static const char *severity_name(hdg_severity s)
{
    return s == HDG_DIAG_ERROR ? "error" : s == HDG_DIAG_WARNING ? "warning" : "note";
}

char *hdg_diags_render(const hdg_diags *d)
{
    hdg_str b;
    hdg_str_init(&b);
    for (int i = 0; i < d->count; i++) {
        const hdg_diag *g = &d->items[i];
        if (g->loc.line > 0 && d->file)
            hdg_str_printf(&b, "%s:%d:%d: ", d->file, g->loc.line, g->loc.col);
        hdg_str_printf(&b, "%s: %s\n", severity_name(g->severity), g->msg);
        if (g->loc.line > 0) render_source(&b, d, g->loc);
    }
    if (d->nerrors > d->max_errors)
        hdg_str_printf(&b, "note: %d more errors not shown\n", d->nerrors - d->max_errors);
    return hdg_str_take(&b);
}

static int edit_distance(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b);
    if (n > 64 || m > 64) return 1000;
    int row[65];
    for (size_t j = 0; j <= m; j++) row[j] = (int)j;
    for (size_t i = 1; i <= n; i++) {
        int diag = row[0];
        row[0] = (int)i;
        for (size_t j = 1; j <= m; j++) {
            int up = row[j];
            int best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best) best = up + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return (int)row[m];
}

const char *hdg_closest_name(const char *s, const char *const *names, int n)
{
    const char *best = NULL;
    int bestd = 1000;
    int limit = (int)strlen(s) / 3 + 1;
    if (limit > 3) limit = 3;
    for (int i = 0; i < n; i++) {
        if (!names[i] || !strcmp(names[i], s)) continue;
        int dist = edit_distance(s, names[i]);
        size_t longer = strlen(s) > strlen(names[i]) ? strlen(s) : strlen(names[i]);
        if (2 * (size_t)dist > longer) continue;   /* 'tau' is not a misspelt 'u' */
        if (dist <= limit && dist < bestd) best = names[i], bestd = dist;
    }
    return best;
}
