/* run_png_hdg.c — the --png frame series of transient HDG (run_png.h). */
#include "drivers/run_png.h"

#include <stdio.h>
#include <string.h>

hdg_status hdg_png_hdg_frames_open(hdg_png_hdg_frames *F, const hdg_run_options *o, hdg_error *err)
{
    memset(F, 0, sizeof *F);
    if (!o->png || !strchr(o->png, '%')) return HDG_OK;
    if (!hdg_png_pattern_ok(o->png))
        return hdg_fail(err, HDG_EINPUT, "--png %s: a frame pattern has one %%d (e.g. %%04d) and no other %%", o->png);
    F->series = 1;
    return HDG_OK;
}

int hdg_png_hdg_frame_due(const hdg_png_hdg_frames *F, const hdg_run_options *o, long long step, long long nsteps)
{
    return F->series && (step == 0 || step == nsteps || (o->every > 0 && step % o->every == 0));
}

hdg_status hdg_png_hdg_frame(hdg_png_hdg_frames *F, const hdg_problem *p, const hdg_lowered *L, const hdg_mesh *mesh,
                             const double *xe, const double *xp, double t, const hdg_run_options *o, hdg_report *rep,
                             hdg_error *err)
{
    char path[4096];
    snprintf(path, sizeof path, o->png, F->nframes);
    hdg_status st = hdg_png_hdg_to(p, L, mesh, xe, xp, t, o, path, &F->range, rep, err);
    if (st) return st;
    F->nframes++;
    F->nclamped += F->range.clamped;
    hdg_report_int(rep, "output.png_frames", F->nframes);
    hdg_report_int(rep, "output.png_frames_clamped", F->nclamped);
    return HDG_OK;
}
