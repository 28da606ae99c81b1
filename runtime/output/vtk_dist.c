/* vtk_dist.c — VTK output of a distributed mesh: pieces and a .pvtu, or one
 * .vtu gathered on rank 0 (vtk_dist.h). */
#include "runtime/output/vtk_dist.h"

#include <stdlib.h>
#include <string.h>

#include "runtime/parallel/comm.h"
#include "support/util.h"

enum { TAG_GATHER = 900 };   /* tags 900..904 */

static int ends_with(const char *s, const char *tail)
{
    size_t n = s ? strlen(s) : 0, t = strlen(tail);
    return n > t && !strcmp(s + n - t, tail);
}

int hdg_vtk_is_parallel(const char *path)
{
    return ends_with(path, ".pvtu");
}

/* base.pvtu over the pieces base_p<r>.vtu, r < size; collective. */
static hdg_status write_pvtu(const char *base, const hdg_vtk_data *D, hdg_error *err)
{
    int size = hdg_comm_size(), rank = hdg_comm_rank();
    hdg_str name;
    hdg_str_init(&name);
    hdg_str_printf(&name, "%s_p%d.vtu", base, rank);
    hdg_status st = hdg_comm_agree(hdg_vtk_write_data(name.s, D, err), err);
    hdg_str_free(&name);
    if (st) return st;
    if (rank == 0) {
        char **files = hdg_xmalloc(sizeof(char *) * (size_t)size);
        for (int r = 0; r < size; r++) {
            hdg_str_init(&name);
            hdg_str_printf(&name, "%s_p%d.vtu", base, r);
            files[r] = hdg_str_take(&name);
        }
        hdg_str_init(&name);
        hdg_str_printf(&name, "%s.pvtu", base);
        st = hdg_pvtu_write(name.s, size, (const char *const *)files, D, err);
        hdg_str_free(&name);
        for (int r = 0; r < size; r++) free(files[r]);
        free(files);
    }
    return hdg_comm_agree(st, err);
}

/* path.pvd: the snapshot path_00000.pvtu and a collection listing it. */
static hdg_status write_pvd(const char *path, const hdg_vtk_data *D, hdg_error *err)
{
    hdg_str base;
    hdg_str_init(&base);
    hdg_str_printf(&base, "%.*s_00000", (int)(strlen(path) - 4), path);
    hdg_status st = write_pvtu(base.s, D, err);
    if (!st && hdg_comm_rank() == 0) {
        hdg_str_puts(&base, ".pvtu");
        const char *files[1] = {base.s};
        st = hdg_pvd_write(path, 1, files, NULL, err);
    }
    hdg_str_free(&base);
    return hdg_comm_agree(st, err);
}

/* The gathered output on rank 0: every array in global element order. */
typedef struct whole {
    long long ne;
    int nlat, ncol, nval;   /* ncol: the fields' components; nval: ncol + cell fields */
    int nvx;                /* vertex coordinates per element: (dim+1) dim */
    double *vxy;
    double **val;           /* nval arrays: the components (ne * nlat), then the cell fields (ne) */
} whole;

static int val_width(const whole *w, int i)
{
    return i < w->ncol ? w->nlat : 1;
}

/* The number of component arrays of D's fields. */
static int columns(const hdg_vtk_data *D)
{
    int n = 0;
    for (int f = 0; f < D->nfields; f++) n += D->ncomp ? D->ncomp[f] : 1;
    return n;
}

/* Places n elements with ids id (vxy, then the arrays of vals) into w. */
static void place(whole *w, int n, const long long *id, const double *vxy,
                  const double *const *vals)
{
    for (int e = 0; e < n; e++)
        memcpy(w->vxy + (size_t)w->nvx * id[e], vxy + (size_t)w->nvx * e, (size_t)w->nvx * sizeof(double));
    for (int i = 0; i < w->nval; i++) {
        int k = val_width(w, i);
        for (int e = 0; e < n; e++)
            memcpy(w->val[i] + (size_t)k * id[e], vals[i] + (size_t)k * e, (size_t)k * sizeof(double));
    }
}

/* This rank's arrays, the fields' components then cell fields. */
static void own_arrays(const hdg_vtk_data *D, const double **vals)
{
    int nc = D->cells ? D->cells->n : 0, ncol = columns(D);
    for (int i = 0; i < ncol; i++) vals[i] = D->values[i];
    for (int i = 0; i < nc; i++) vals[ncol + i] = D->cells->values[i];
}

static void send_rank(const hdg_vtk_data *D, const long long *egid, int nval, int nlat, int nvx)
{
    const double *vals[96];
    int ncol = columns(D);
    own_arrays(D, vals);
    hdg_comm_send(&D->ne, sizeof D->ne, 0, TAG_GATHER);
    if (D->ne <= 0) return;
    hdg_comm_send(egid, sizeof(long long) * (size_t)D->ne, 0, TAG_GATHER + 1);
    hdg_comm_send(D->vxy, sizeof(double) * (size_t)nvx * (size_t)D->ne, 0, TAG_GATHER + 2);
    for (int i = 0; i < nval; i++)
        hdg_comm_send(vals[i], sizeof(double) * (size_t)D->ne * (i < ncol ? nlat : 1), 0, TAG_GATHER + 3);
}

static void recv_rank(whole *w, int r)
{
    int n = 0;
    hdg_comm_recv(&n, sizeof n, r, TAG_GATHER);
    if (n <= 0) return;
    long long *id = hdg_xmalloc(sizeof(long long) * (size_t)n);
    double *vxy = hdg_xmalloc(sizeof(double) * (size_t)w->nvx * (size_t)n);
    double *vals[96];
    hdg_comm_recv(id, sizeof(long long) * (size_t)n, r, TAG_GATHER + 1);
    hdg_comm_recv(vxy, sizeof(double) * (size_t)w->nvx * (size_t)n, r, TAG_GATHER + 2);
    for (int i = 0; i < w->nval; i++) {
        size_t bytes = sizeof(double) * (size_t)n * val_width(w, i);
        vals[i] = hdg_xmalloc(bytes);
        hdg_comm_recv(vals[i], bytes, r, TAG_GATHER + 3);
    }
    place(w, n, id, vxy, (const double *const *)vals);
    for (int i = 0; i < w->nval; i++) free(vals[i]);
    free(id), free(vxy);
}

static hdg_status write_whole(const char *path, const whole *w, const hdg_vtk_data *D, hdg_error *err)
{
    if (w->ne > 0x7fffffff) return hdg_fail(err, HDG_EINPUT, "vtk: %lld elements do not fit one .vtu file: "
                                            "ask for a .pvtu", w->ne);
    hdg_vtk_cells cells = {D->cells ? D->cells->n : 0, D->cells ? D->cells->names : NULL,
                           (const double *const *)w->val + w->ncol};
    hdg_vtk_data G = *D;
    G.ne = (int)w->ne, G.vxy = w->vxy, G.values = (const double *const *)w->val, G.cells = &cells;
    return hdg_vtk_write_snapshot_data(path, &G, err);
}

/* One .vtu on rank 0 from every rank's elements. */
static hdg_status write_gathered(const char *path, const hdg_vtk_data *D, const long long *egid, long long ne_global,
                                 hdg_error *err)
{
    int nc = D->cells ? D->cells->n : 0;
    int dim = D->dim ? D->dim : 2;
    whole w = {ne_global, hdg_vtk_lattice_count(dim, D->p), columns(D), columns(D) + nc, (dim + 1) * dim, NULL, NULL};
    if (w.nval > 96) return hdg_comm_agree(hdg_fail(err, HDG_EINPUT, "vtk: too many fields (%d)", w.nval), err);
    if (hdg_comm_rank() != 0) {
        send_rank(D, egid, w.nval, w.nlat, w.nvx);
        return hdg_comm_agree(HDG_OK, err);
    }
    w.vxy = hdg_xcalloc((size_t)w.ne * w.nvx, sizeof(double));
    w.val = hdg_xmalloc(sizeof(double *) * (size_t)(w.nval ? w.nval : 1));
    for (int i = 0; i < w.nval; i++) w.val[i] = hdg_xcalloc((size_t)w.ne * val_width(&w, i), sizeof(double));
    const double *vals[96];
    own_arrays(D, vals);
    place(&w, D->ne, egid, D->vxy, vals);
    for (int r = 1; r < hdg_comm_size(); r++) recv_rank(&w, r);
    hdg_status st = write_whole(path, &w, D, err);
    for (int i = 0; i < w.nval; i++) free(w.val[i]);
    free(w.val), free(w.vxy);
    return hdg_comm_agree(st, err);
}

int hdg_vtk_dist_pieces(const char *path)
{
    return hdg_vtk_is_parallel(path) || (hdg_comm_size() > 1 && ends_with(path, ".pvd")) ? hdg_comm_size() : 1;
}

hdg_status hdg_vtk_write_dist(const char *path, const hdg_vtk_data *D, const long long *egid, long long ne_global,
                              hdg_error *err)
{
    int size = hdg_comm_size();
    if (hdg_vtk_is_parallel(path)) {
        hdg_str base;
        hdg_str_init(&base);
        hdg_str_printf(&base, "%.*s", (int)(strlen(path) - 5), path);
        hdg_status st = write_pvtu(base.s, D, err);
        hdg_str_free(&base);
        return st;
    }
    if (size > 1 && ends_with(path, ".pvd")) return write_pvd(path, D, err);
    if (size > 1 && egid) return write_gathered(path, D, egid, ne_global, err);
    return hdg_comm_agree(hdg_vtk_write_snapshot_data(path, D, err), err);
}
