/* vtk.c — writes discontinuous high-order triangle fields as VTK XML
 * UnstructuredGrid files (.vtu) and time series as ParaView collections
 * (.pvd). See vtk.h for the lattice the caller samples its fields on. */
#include "runtime/output/vtk.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support/util.h"

enum { VTK_TRIANGLE = 5, VTK_LAGRANGE_TRIANGLE = 69 };

/* ---- the lattice and VTK's point order ------------------------------------ */

int hdg_vtk_lattice_size(int p)
{
    return p < 0 ? 0 : (p + 1) * (p + 2) / 2;
}

/* Lattice index of point (i, j): rows j = 0..p hold p+1-j points each. */
static int lattice_index(int i, int j, int p)
{
    return j * (p + 1) - j * (j - 1) / 2 + i;
}

void hdg_vtk_lattice(int p, double *r, double *s)
{
    if (p == 0) {
        r[0] = s[0] = -1.0 / 3.0;
        return;
    }
    for (int j = 0, k = 0; j <= p; j++)
        for (int i = 0; i <= p - j; i++, k++) {
            r[k] = -1.0 + 2.0 * i / p;
            s[k] = -1.0 + 2.0 * j / p;
        }
}

/* VTK's index of the point with barycentric index b (b[0] + b[1] + b[2] = p;
 * b[0] counts toward v1, b[1] toward v2, b[2] toward v0). Rings are peeled
 * from the outside in: each ring of order q holds 3 vertices and 3 edges of
 * q-1 points, and the next ring is the triangle of order q-3 inside it. */
static int vtk_index(const int b[3], int p)
{
    int index = 0, lo = 0, hi = p, order = p;
    int bmin = b[0] < b[1] ? b[0] : b[1];
    if (b[2] < bmin) bmin = b[2];
    while (bmin > lo) {             /* skip the outer rings */
        index += 3 * order;
        hi -= 2;
        lo++;
        order -= 3;
    }
    for (int d = 0; d < 3; d++, index++)   /* vertices v0, v1, v2 */
        if (b[(d + 2) % 3] == hi) return index;
    for (int d = 0; d < 3; d++) {          /* edges v0-v1, v1-v2, v2-v0 */
        if (b[(d + 1) % 3] == lo) return index + b[d] - (lo + 1);
        index += hi - lo - 1;
    }
    return index;   /* not reached for a valid b */
}

void hdg_vtk_lagrange_order(int p, int *lat)
{
    if (p == 0) {
        lat[0] = 0;
        return;
    }
    for (int j = 0; j <= p; j++)
        for (int i = 0; i <= p - j; i++) {
            int b[3] = {i, j, p - i - j};
            lat[vtk_index(b, p)] = lattice_index(i, j, p);
        }
}

/* ---- checks before writing ------------------------------------------------ */

static hdg_status check_name(const char *what, const char *name, hdg_error *err)
{
    if (!name || !*name) return hdg_fail(err, HDG_EINPUT, "vtk: %s has no name", what);
    for (const unsigned char *c = (const unsigned char *)name; *c; c++)
        if (*c < 0x20 || *c == 0x7f)
            return hdg_fail(err, HDG_EINPUT, "vtk: %s '%s' contains a control character",
                            what, name);
    return HDG_OK;
}

/* Named, without control characters, distinct. */
static hdg_status check_field_names(int nfields, const char *const *names, hdg_error *err)
{
    for (int f = 0; f < nfields; f++) {
        hdg_status st = check_name("field", names[f], err);
        if (st) return st;
        for (int g = 0; g < f; g++)
            if (strcmp(names[f], names[g]) == 0)
                return hdg_fail(err, HDG_EINPUT, "vtk: field name '%s' given twice", names[f]);
    }
    return HDG_OK;
}

static hdg_status check_args(const char *path, int ne, const double *vxy, int p, int nfields,
                             const char *const *names, const double *const *values, int mode,
                             hdg_error *err)
{
    if (!path || !*path) return hdg_fail(err, HDG_EINPUT, "vtk: no output path given");
    if (ne < 0) return hdg_fail(err, HDG_EINPUT, "vtk: negative element count %d", ne);
    if (p < 0 || p > HDG_VTK_MAX_DEGREE)
        return hdg_fail(err, HDG_EINPUT, "vtk: degree %d out of range 0..%d", p,
                        HDG_VTK_MAX_DEGREE);
    if (mode != HDG_VTK_LAGRANGE && mode != HDG_VTK_SUBDIVIDE)
        return hdg_fail(err, HDG_EINPUT, "vtk: unknown output mode %d", mode);
    if (nfields < 0) return hdg_fail(err, HDG_EINPUT, "vtk: negative field count %d", nfields);
    if (ne > 0 && !vxy) return hdg_fail(err, HDG_EINPUT, "vtk: no vertex coordinates given");
    if (nfields > 0 && (!names || !values))
        return hdg_fail(err, HDG_EINPUT, "vtk: %d fields but no names or values", nfields);
    hdg_status st = check_field_names(nfields, names, err);
    for (int f = 0; !st && f < nfields; f++)
        if (ne > 0 && !values[f])
            return hdg_fail(err, HDG_EINPUT, "vtk: field '%s' has no values", names[f]);
    return st;
}

/* Cell fields: named, distinct among themselves and from the lattice fields,
 * with values, all finite. */
static hdg_status check_cells(int ne, int nfields, const char *const *names, const hdg_vtk_cells *c,
                              hdg_error *err)
{
    if (!c || c->n == 0) return HDG_OK;
    if (c->n < 0) return hdg_fail(err, HDG_EINPUT, "vtk: negative cell field count %d", c->n);
    if (!c->names || !c->values)
        return hdg_fail(err, HDG_EINPUT, "vtk: %d cell fields but no names or values", c->n);
    for (int f = 0; f < c->n; f++) {
        hdg_status st = check_name("cell field", c->names[f], err);
        if (st) return st;
        for (int g = 0; g < f; g++)
            if (strcmp(c->names[f], c->names[g]) == 0)
                return hdg_fail(err, HDG_EINPUT, "vtk: cell field name '%s' given twice", c->names[f]);
        for (int g = 0; g < nfields; g++)
            if (strcmp(c->names[f], names[g]) == 0)
                return hdg_fail(err, HDG_EINPUT, "vtk: cell field name '%s' is also a field's", c->names[f]);
        if (ne > 0 && !c->values[f])
            return hdg_fail(err, HDG_EINPUT, "vtk: cell field '%s' has no values", c->names[f]);
        for (int e = 0; e < ne; e++)
            if (!isfinite(c->values[f][e]))
                return hdg_fail(err, HDG_EINPUT, "vtk: cell field '%s' is not finite at element %d (value %g)",
                                c->names[f], e, c->values[f][e]);
    }
    return HDG_OK;
}

/* A NaN in a plot file is silent trouble: refuse it with its place. */
static hdg_status check_finite(int ne, const double *vxy, int nlat, int nfields,
                               const char *const *names, const double *const *values,
                               hdg_error *err)
{
    for (int e = 0; e < ne; e++)
        for (int k = 0; k < 6; k++)
            if (!isfinite(vxy[6 * e + k]))
                return hdg_fail(err, HDG_EINPUT,
                                "vtk: vertex coordinates of element %d are not finite", e);
    for (int f = 0; f < nfields; f++)
        for (int e = 0; e < ne; e++)
            for (int k = 0; k < nlat; k++) {
                double v = values[f][(size_t)e * nlat + k];
                if (!isfinite(v))
                    return hdg_fail(err, HDG_EINPUT,
                                    "vtk: field '%s' is not finite at element %d "
                                    "(value %g at lattice point %d)", names[f], e, v, k);
            }
    return HDG_OK;
}

/* ---- writing ------------------------------------------------------------------ */

/* What is written, derived from the arguments. */
typedef struct vtu {
    FILE *f;
    int ne, p, nfields, mode;
    const double *vxy;
    const char *const *names;
    const double *const *values;
    const hdg_vtk_cells *cells;   /* one value per element, or NULL */
    int nlat;               /* values per element per field */
    int pg;                 /* lattice degree of the written points (p, or 1 for p = 0) */
    int npe;                /* points written per element */
    int *order;             /* lattice index (degree pg) of each written point */
    int *li, *lj;           /* lattice coordinates (i, j) by lattice index */
    int subdivide;          /* p^2 linear triangles per element */
    long long npts, ncells;
} vtu;

static void put_escaped(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&apos;", f); break;
        default: fputc(*s, f);
        }
    }
}

static void begin_array(FILE *f, const char *type, const char *name, int ncomp)
{
    fprintf(f, "        <DataArray type=\"%s\" Name=\"", type);
    put_escaped(f, name);
    if (ncomp > 1) fprintf(f, "\" NumberOfComponents=\"%d", ncomp);
    fputs("\" format=\"ascii\">\n", f);
}

static void end_array(FILE *f)
{
    fputs("        </DataArray>\n", f);
}

/* The cell fields' arrays: each element's value once per written cell. */
static void write_cell_arrays(const vtu *w)
{
    long long per = w->ncells / (w->ne ? w->ne : 1);
    for (int fi = 0; w->cells && fi < w->cells->n; fi++) {
        begin_array(w->f, "Float64", w->cells->names[fi], 1);
        for (int e = 0; e < w->ne; e++)
            for (long long c = 0; c < per; c++)
                fprintf(w->f, c + 1 < per ? "%.17g " : "%.17g\n", w->cells->values[fi][e]);
        end_array(w->f);
    }
}

static void write_fields(const vtu *w)
{
    const char *section = w->p == 0 ? "CellData" : "PointData";
    int ncell = w->cells ? w->cells->n : 0;
    if (w->nfields == 0) {
        if (!ncell) return;
        fputs("      <CellData>\n", w->f);
        write_cell_arrays(w);
        fputs("      </CellData>\n", w->f);
        return;
    }
    fprintf(w->f, "      <%s Scalars=\"", section);
    put_escaped(w->f, w->names[0]);
    fputs("\">\n", w->f);
    for (int fi = 0; fi < w->nfields; fi++) {
        const double *v = w->values[fi];
        begin_array(w->f, "Float64", w->names[fi], 1);
        for (int e = 0; e < w->ne; e++) {
            const double *ve = v + (size_t)e * w->nlat;
            if (w->p == 0) {
                fprintf(w->f, "%.17g\n", ve[0]);
                continue;
            }
            for (int k = 0; k < w->npe; k++)
                fprintf(w->f, k ? " %.17g" : "%.17g", ve[w->order[k]]);
            fputc('\n', w->f);
        }
        end_array(w->f);
    }
    if (w->p == 0) write_cell_arrays(w);
    fprintf(w->f, "      </%s>\n", section);
    if (w->p == 0 || !ncell) return;
    fputs("      <CellData>\n", w->f);
    write_cell_arrays(w);
    fputs("      </CellData>\n", w->f);
}

static void write_points(const vtu *w)
{
    fputs("      <Points>\n", w->f);
    begin_array(w->f, "Float64", "Points", 3);
    for (int e = 0; e < w->ne; e++) {
        const double *v = w->vxy + 6 * (size_t)e;
        for (int k = 0; k < w->npe; k++) {
            int i = w->li[w->order[k]], j = w->lj[w->order[k]];
            double l1 = (double)i / w->pg, l2 = (double)j / w->pg;
            double l0 = (double)(w->pg - i - j) / w->pg;
            fprintf(w->f, "%.17g %.17g 0\n", l0 * v[0] + l1 * v[2] + l2 * v[4],
                    l0 * v[1] + l1 * v[3] + l2 * v[5]);
        }
    }
    end_array(w->f);
    fputs("      </Points>\n", w->f);
}

/* The p^2 linear triangles of one element's lattice (lattice indices):
 * "up" triangles (i,j),(i+1,j),(i,j+1) and "down" ones (i+1,j),(i+1,j+1),(i,j+1),
 * all counter-clockwise like the element. */
static void write_subcells(const vtu *w, long long base)
{
    int p = w->p;
    for (int j = 0; j < p; j++)
        for (int i = 0; i < p - j; i++) {
            fprintf(w->f, "%lld %lld %lld\n", base + lattice_index(i, j, p),
                    base + lattice_index(i + 1, j, p), base + lattice_index(i, j + 1, p));
            if (i + j < p - 1)
                fprintf(w->f, "%lld %lld %lld\n", base + lattice_index(i + 1, j, p),
                        base + lattice_index(i + 1, j + 1, p), base + lattice_index(i, j + 1, p));
        }
}

static void write_cells(const vtu *w)
{
    int per_cell = w->subdivide ? 3 : w->npe;
    int type = per_cell == 3 ? VTK_TRIANGLE : VTK_LAGRANGE_TRIANGLE;

    fputs("      <Cells>\n", w->f);
    begin_array(w->f, "Int64", "connectivity", 1);
    for (int e = 0; e < w->ne; e++) {
        long long base = (long long)e * w->npe;
        if (w->subdivide) {
            write_subcells(w, base);
            continue;
        }
        for (int k = 0; k < w->npe; k++) fprintf(w->f, k ? " %lld" : "%lld", base + k);
        fputc('\n', w->f);
    }
    end_array(w->f);

    begin_array(w->f, "Int64", "offsets", 1);
    for (long long c = 1; c <= w->ncells; c++)
        fprintf(w->f, c % 16 && c < w->ncells ? "%lld " : "%lld\n", c * per_cell);
    end_array(w->f);

    begin_array(w->f, "UInt8", "types", 1);
    for (long long c = 1; c <= w->ncells; c++)
        fprintf(w->f, c % 32 && c < w->ncells ? "%d " : "%d\n", type);
    end_array(w->f);
    fputs("      </Cells>\n", w->f);
}

static void write_vtu(const vtu *w)
{
    fputs("<?xml version=\"1.0\"?>\n", w->f);
    fprintf(w->f, "<!-- hdgc: %d triangles, degree %d, %s -->\n", w->ne, w->p,
            w->mode == HDG_VTK_LAGRANGE ? "Lagrange cells" : "subdivided");
    fputs("<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" byte_order=\"LittleEndian\">\n"
          "  <UnstructuredGrid>\n", w->f);
    fprintf(w->f, "    <Piece NumberOfPoints=\"%lld\" NumberOfCells=\"%lld\">\n", w->npts,
            w->ncells);
    write_fields(w);
    write_points(w);
    write_cells(w);
    fputs("    </Piece>\n  </UnstructuredGrid>\n</VTKFile>\n", w->f);
}

hdg_status hdg_vtk_write(const char *path, int ne, const double *vxy, int p, int nfields,
                         const char *const *names, const double *const *values, int mode,
                         hdg_error *err)
{
    return hdg_vtk_write_cells(path, ne, vxy, p, nfields, names, values, NULL, mode, err);
}

hdg_status hdg_vtk_write_cells(const char *path, int ne, const double *vxy, int p, int nfields,
                               const char *const *names, const double *const *values,
                               const hdg_vtk_cells *cells, int mode, hdg_error *err)
{
    hdg_status st = check_args(path, ne, vxy, p, nfields, names, values, mode, err);
    if (st) return st;
    int nlat = hdg_vtk_lattice_size(p);
    st = check_finite(ne, vxy, nlat, nfields, names, values, err);
    if (!st) st = check_cells(ne, nfields, names, cells, err);
    if (st) return st;

    vtu w = {.ne = ne, .p = p, .nfields = nfields, .mode = mode, .vxy = vxy,
             .names = names, .values = values, .cells = cells && cells->n > 0 ? cells : NULL, .nlat = nlat};
    w.pg = p ? p : 1;
    w.npe = hdg_vtk_lattice_size(w.pg);
    w.subdivide = mode == HDG_VTK_SUBDIVIDE && p > 1;
    w.npts = (long long)ne * w.npe;
    w.ncells = w.subdivide ? (long long)ne * p * p : ne;
    w.order = hdg_xmalloc(w.npe * sizeof *w.order);
    w.li = hdg_xmalloc(w.npe * sizeof *w.li);
    w.lj = hdg_xmalloc(w.npe * sizeof *w.lj);
    for (int j = 0, k = 0; j <= w.pg; j++)
        for (int i = 0; i <= w.pg - j; i++, k++) {
            w.li[k] = i;
            w.lj[k] = j;
        }
    if (mode == HDG_VTK_LAGRANGE) hdg_vtk_lagrange_order(w.pg, w.order);
    else for (int k = 0; k < w.npe; k++) w.order[k] = k;

    hdg_ofile o;   /* a temporary beside path, renamed over it when whole */
    st = hdg_ofile_open(&o, path, err);
    if (!st) {
        w.f = o.f;
        setvbuf(w.f, NULL, _IOFBF, 1 << 16);
        write_vtu(&w);
        st = hdg_ofile_commit(&o, err);
    }
    free(w.order);
    free(w.li);
    free(w.lj);
    return st;
}

/* ---- ParaView collections ----------------------------------------------------- */

/* A path split into its components, made absolute and lexically normalized
 * ("." dropped, ".." pops a component). */
typedef struct path_parts {
    char *buf;
    char **part;
    int n;
} path_parts;

static char *current_dir(void)
{
    for (size_t cap = 256; cap <= (1u << 20); cap *= 2) {
        char *buf = hdg_xmalloc(cap);
        if (getcwd(buf, cap)) return buf;
        free(buf);
        if (errno != ERANGE) return NULL;
    }
    return NULL;
}

static int split_path(const char *path, const char *cwd, path_parts *pp)
{
    hdg_str full;
    if (path[0] != '/' && !cwd) return 0;
    hdg_str_init(&full);
    if (path[0] != '/') hdg_str_printf(&full, "%s/", cwd);
    hdg_str_puts(&full, path);
    pp->buf = hdg_str_take(&full);
    pp->part = hdg_xmalloc((strlen(pp->buf) / 2 + 2) * sizeof *pp->part);
    pp->n = 0;
    char *save = NULL;
    for (char *t = strtok_r(pp->buf, "/", &save); t; t = strtok_r(NULL, "/", &save)) {
        if (strcmp(t, ".") == 0) continue;
        if (strcmp(t, "..") == 0) {
            if (pp->n > 0) pp->n--;
            continue;
        }
        pp->part[pp->n++] = t;
    }
    return 1;
}

static void free_parts(path_parts *pp)
{
    free(pp->buf);
    free(pp->part);
}

/* file as a path relative to the directory holding the collection at pvd;
 * file unchanged when that cannot be worked out (no current directory). */
static char *relative_to(const char *pvd, const char *file, const char *cwd)
{
    path_parts a, b;
    if (!split_path(pvd, cwd, &a)) return hdg_xstrdup(file);
    if (!split_path(file, cwd, &b)) {
        free_parts(&a);
        return hdg_xstrdup(file);
    }
    int ndir = a.n > 0 ? a.n - 1 : 0, c = 0;
    while (c < ndir && c < b.n - 1 && strcmp(a.part[c], b.part[c]) == 0) c++;

    hdg_str out;
    hdg_str_init(&out);
    for (int k = c; k < ndir; k++) hdg_str_puts(&out, "../");
    for (int k = c; k < b.n; k++) {
        if (k > c) hdg_str_putc(&out, '/');
        hdg_str_puts(&out, b.part[k]);
    }
    free_parts(&a);
    free_parts(&b);
    return hdg_str_take(&out);
}

/* Shortest %.Ng (N = 15, 16, 17) that reads back to exactly v. */
static void format_time(char buf[32], double v)
{
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(buf, 32, "%.*g", digits, v);
        if (strtod(buf, NULL) == v) return;
    }
}

hdg_status hdg_pvd_write(const char *path, int n, const char *const *files, const double *times,
                         hdg_error *err)
{
    if (!path || !*path) return hdg_fail(err, HDG_EINPUT, "pvd: no output path given");
    if (n < 0) return hdg_fail(err, HDG_EINPUT, "pvd: negative file count %d", n);
    if (n > 0 && !files) return hdg_fail(err, HDG_EINPUT, "pvd: %d files but no names", n);
    for (int k = 0; k < n; k++) {
        hdg_status st = check_name("data file", files[k], err);
        if (st) return st;
        if (times && !isfinite(times[k]))
            return hdg_fail(err, HDG_EINPUT, "pvd: time of '%s' is not finite", files[k]);
    }

    hdg_ofile o;
    hdg_status st = hdg_ofile_open(&o, path, err);
    if (st) return st;
    FILE *f = o.f;
    char *cwd = current_dir();
    fputs("<?xml version=\"1.0\"?>\n"
          "<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
          "  <Collection>\n", f);
    for (int k = 0; k < n; k++) {
        char t[32], *rel = relative_to(path, files[k], cwd);
        format_time(t, times ? times[k] : k);
        fprintf(f, "    <DataSet timestep=\"%s\" group=\"\" part=\"0\" file=\"", t);
        put_escaped(f, rel);
        fputs("\"/>\n", f);
        free(rel);
    }
    fputs("  </Collection>\n</VTKFile>\n", f);
    free(cwd);
    return hdg_ofile_commit(&o, err);
}

/* ---- parallel files (.pvtu) ---------------------------------------------------- */

static void put_parray(FILE *f, const char *name)
{
    fputs("      <PDataArray type=\"Float64\" Name=\"", f);
    put_escaped(f, name);
    fputs("\"/>\n", f);
}

/* The sections of the pieces (write_fields), declared. */
static void write_pfields(FILE *f, int p, int nfields, const char *const *names, const hdg_vtk_cells *c)
{
    int ncell = c ? c->n : 0;
    if (nfields > 0) {
        fprintf(f, "    <%s Scalars=\"", p == 0 ? "PCellData" : "PPointData");
        put_escaped(f, names[0]);
        fputs("\">\n", f);
        for (int i = 0; i < nfields; i++) put_parray(f, names[i]);
        for (int i = 0; p == 0 && i < ncell; i++) put_parray(f, c->names[i]);
        fprintf(f, "    </%s>\n", p == 0 ? "PCellData" : "PPointData");
        if (p == 0) return;
    }
    if (!ncell) return;
    fputs("    <PCellData>\n", f);
    for (int i = 0; i < ncell; i++) put_parray(f, c->names[i]);
    fputs("    </PCellData>\n", f);
}

hdg_status hdg_pvtu_write(const char *path, int n, const char *const *files, int p, int nfields,
                          const char *const *names, const hdg_vtk_cells *cells, hdg_error *err)
{
    if (!path || !*path) return hdg_fail(err, HDG_EINPUT, "pvtu: no output path given");
    if (n < 1 || !files) return hdg_fail(err, HDG_EINPUT, "pvtu: no pieces given");
    if (p < 0 || p > HDG_VTK_MAX_DEGREE)
        return hdg_fail(err, HDG_EINPUT, "pvtu: degree %d out of range 0..%d", p, HDG_VTK_MAX_DEGREE);
    if (nfields < 0 || (nfields > 0 && !names))
        return hdg_fail(err, HDG_EINPUT, "pvtu: %d fields but no names", nfields);
    hdg_status st = check_field_names(nfields, names, err);
    if (!st) st = check_cells(0, nfields, names, cells, err);
    for (int k = 0; !st && k < n; k++) st = check_name("piece file", files[k], err);
    hdg_ofile o;
    if (st || (st = hdg_ofile_open(&o, path, err))) return st;
    FILE *f = o.f;
    char *cwd = current_dir();
    fputs("<?xml version=\"1.0\"?>\n"
          "<VTKFile type=\"PUnstructuredGrid\" version=\"1.0\" byte_order=\"LittleEndian\">\n"
          "  <PUnstructuredGrid GhostLevel=\"0\">\n", f);
    write_pfields(f, p, nfields, names, cells && cells->n > 0 ? cells : NULL);
    fputs("    <PPoints>\n"
          "      <PDataArray type=\"Float64\" Name=\"Points\" NumberOfComponents=\"3\"/>\n"
          "    </PPoints>\n", f);
    for (int k = 0; k < n; k++) {
        char *rel = relative_to(path, files[k], cwd);
        fputs("    <Piece Source=\"", f);
        put_escaped(f, rel);
        fputs("\"/>\n", f);
        free(rel);
    }
    fputs("  </PUnstructuredGrid>\n</VTKFile>\n", f);
    free(cwd);
    return hdg_ofile_commit(&o, err);
}

/* ---- one snapshot, .vtu or a one-entry .pvd ------------------------------------ */

hdg_status hdg_vtk_write_snapshot(const char *path, int ne, const double *vxy, int p, int nfields,
                                  const char *const *names, const double *const *values, int mode,
                                  hdg_error *err)
{
    return hdg_vtk_write_snapshot_cells(path, ne, vxy, p, nfields, names, values, NULL, mode, err);
}

hdg_status hdg_vtk_write_snapshot_cells(const char *path, int ne, const double *vxy, int p, int nfields,
                                        const char *const *names, const double *const *values,
                                        const hdg_vtk_cells *cells, int mode, hdg_error *err)
{
    size_t len = path ? strlen(path) : 0;
    if (len <= 4 || strcmp(path + len - 4, ".pvd"))
        return hdg_vtk_write_cells(path, ne, vxy, p, nfields, names, values, cells, mode, err);
    hdg_str vtu;
    hdg_str_init(&vtu);
    hdg_str_printf(&vtu, "%.*s_00000.vtu", (int)(len - 4), path);
    hdg_status st = hdg_vtk_write_cells(vtu.s, ne, vxy, p, nfields, names, values, cells, mode, err);
    const char *files[1] = {vtu.s};
    if (!st) st = hdg_pvd_write(path, 1, files, NULL, err);
    hdg_str_free(&vtu);
    return st;
}
