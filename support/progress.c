/* progress.c — the live status line of progress.h. */
#include "support/progress.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support/util.h"

int hdg_progress_tty(void)
{
    const char *term = getenv("TERM");
    return isatty(STDERR_FILENO) && !(term && !strcmp(term, "dumb"));
}

void hdg_progress_begin(hdg_progress *p, FILE *f)
{
    memset(p, 0, sizeof *p);
    p->f = f;
    p->start = hdg_wtime();
    p->last = -1e300;
}

int hdg_progress_update(hdg_progress *p, int force, const char *fmt, ...)
{
    if (!p->f) return 0;
    double now = hdg_wtime();
    if (!force && now - p->last < 0.2) return 0;
    char line[200];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0) return 0;
    if (n >= (int)sizeof line) n = (int)sizeof line - 1;
    int pad = p->width > n ? p->width - n : 0;
    fprintf(p->f, "\r%s%*s", line, pad, "");
    if (pad) fprintf(p->f, "\r%s", line);
    fflush(p->f);
    p->width = n;
    p->last = now;
    return 1;
}

static void clock_text(double s, char *buf, size_t n)
{
    if (s < 60) snprintf(buf, n, "%.0fs", s);
    else if (s < 3600) snprintf(buf, n, "%dm%02ds", (int)(s / 60), (int)s % 60);
    else snprintf(buf, n, "%dh%02dm", (int)(s / 3600), (int)(s / 60) % 60);
}

void hdg_progress_eta(const hdg_progress *p, double done, double total, char *buf, size_t n)
{
    double el = hdg_wtime() - p->start;
    if (done <= 0 || el <= 0 || total < done) { snprintf(buf, n, "ETA -"); return; }
    char t[32];
    clock_text(el * (total - done) / done, t, sizeof t);
    snprintf(buf, n, "ETA %s", t);
}

void hdg_progress_end(hdg_progress *p)
{
    if (!p->f || !p->width) return;
    fprintf(p->f, "\r%*s\r", p->width, "");
    fflush(p->f);
    p->width = 0;
}
