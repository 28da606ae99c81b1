/* progress.h — one live status line on a terminal ("\r" + text, cleared at the end).
 * The caller decides whether it is on (hdg_progress_tty: stderr is a terminal and TERM is
 * not "dumb"); when off every call does nothing, so logs and CI never see it. Updates are
 * limited to a few per second; no global state. Internal to libhdgc. */
#ifndef HDG_PROGRESS_H
#define HDG_PROGRESS_H

#include <stdio.h>

typedef struct hdg_progress {
    FILE *f;        /* NULL: off */
    double last;    /* time of the last line written (hdg_wtime) */
    double start;   /* time of hdg_progress_begin */
    int width;      /* characters of the line on screen, to clear */
} hdg_progress;

/* 1 when stderr is a terminal (and TERM is not "dumb"). */
int hdg_progress_tty(void);

/* Starts a line on f (NULL: off). */
void hdg_progress_begin(hdg_progress *p, FILE *f);

/* Replaces the line with printf(fmt, ...) when at least 0.2 s passed since the last one
 * (force = 1: now). Returns 1 when it wrote. */
int hdg_progress_update(hdg_progress *p, int force, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* "ETA 1m23s" style remaining time for done of total units since begin, into buf. */
void hdg_progress_eta(const hdg_progress *p, double done, double total, char *buf, size_t n);

/* Erases the line (the terminal is left as before). */
void hdg_progress_end(hdg_progress *p);

#endif
