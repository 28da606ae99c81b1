/* vtk.c — writes discontinuous high-order triangle fields as VTK XML
 * UnstructuredGrid files (.vtu: binary, zlib-compressed appended data, or
 * ASCII), parallel files (.pvtu) and time series as ParaView collections
 * (.pvd). See vtk.h for the lattice the caller samples its fields on.
 * A file is a list of arrays (list_arrays) whose values are computed one by
 * one from the caller's data (float_value, int_value), printed or packed
 * into compressed blocks. */
#include "runtime/output/vtk.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "support/util.h"

enum { VTK_TRIANGLE = 5, VTK_TETRA = 10, VTK_LAGRANGE_TRIANGLE = 69, VTK_LAGRANGE_TETRAHEDRON = 71 };

/* ---- the lattice and VTK's point order ------------------------------------ */

int hdg_vtk_lattice_count(int dim, int p)
{
    if (p < 0) return 0;
    return dim == 3 ? (p + 1) * (p + 2) * (p + 3) / 6 : (p + 1) * (p + 2) / 2;
}

int hdg_vtk_lattice_size(int p)
{
    return hdg_vtk_lattice_count(2, p);
}

/* Lattice index of point (i, j) of the triangle of degree p: rows j = 0..p
 * hold p+1-j points each. */
static int lattice_index(int i, int j, int p)
{
    return j * (p + 1) - j * (j - 1) / 2 + i;
}

/* Lattice index of point (i, j, k) of the tetrahedron of degree p: layers
 * k = 0..p, each a triangle of degree p-k. */
static int lattice_index3(int i, int j, int k, int p)
{
    return hdg_vtk_lattice_count(3, p) - hdg_vtk_lattice_count(3, p - k) + lattice_index(i, j, p - k);
}

/* The lattice coordinates (i, j, k) of every lattice point, in lattice order
 * (k = 0 in 2D). */
static void lattice_ijk(int dim, int p, int *li, int *lj, int *lk)
{
    int n = 0;
    for (int k = 0; k <= (dim == 3 ? p : 0); k++)
        for (int j = 0; j <= p - k; j++)
            for (int i = 0; i <= p - k - j; i++, n++) li[n] = i, lj[n] = j, lk[n] = k;
}

void hdg_vtk_lattice_points(int dim, int p, double *const *x)
{
    if (p == 0) {
        for (int d = 0; d < dim; d++) x[d][0] = dim == 3 ? -0.5 : -1.0 / 3.0;
        return;
    }
    int n = hdg_vtk_lattice_count(dim, p);
    int *l = hdg_xmalloc(sizeof(int) * 3 * (size_t)n);
    lattice_ijk(dim, p, l, l + n, l + 2 * n);
    for (int d = 0; d < dim; d++)
        for (int q = 0; q < n; q++) x[d][q] = -1.0 + 2.0 * l[d * n + q] / p;
    free(l);
}

void hdg_vtk_lattice(int p, double *r, double *s)
{
    double *x[2] = {r, s};
    hdg_vtk_lattice_points(2, p, x);
}

/* VTK's index of the triangle point with barycentric index b (b[0] + b[1] +
 * b[2] = p; b[0] counts toward v1, b[1] toward v2, b[2] toward v0). Rings are
 * peeled from the outside in: each ring of order q holds 3 vertices and 3
 * edges of q-1 points, and the next ring is the triangle of order q-3 inside
 * it. */
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

/* The barycentric index b (as vtk_index's) of point m of VTK's Lagrange
 * triangle of degree p: the inverse of vtk_index. */
static void vtk_tri_point(int m, int p, int b[3])
{
    int lo = 0, q = p;
    while (q >= 3 && m >= 3 * q) m -= 3 * q, q -= 3, lo++;
    b[0] = b[1] = b[2] = lo;
    if (q == 0) return;
    if (m < 3) {   /* vertex m: its count is the ring's highest */
        b[(m + 2) % 3] += q;
        return;
    }
    int e = (m - 3) / (q - 1), off = (m - 3) % (q - 1);   /* edge e, walked from its first vertex */
    b[e] += 1 + off;
    b[(e + 2) % 3] += q - 1 - off;
}

/* The tetrahedron in VTK's order (vtkHigherOrderTetra, see vtk.h): its edges
 * and the faces whose interiors follow them, with the vertices in the order
 * VTK lays each face's interior out as a triangle. */
static const int TET_EDGE[6][2] = {{0, 1}, {1, 2}, {2, 0}, {0, 3}, {1, 3}, {2, 3}};
static const int TET_FACE[4][3] = {{0, 1, 3}, {2, 3, 1}, {0, 3, 2}, {0, 2, 1}};

/* The lattice coordinates (counts toward v1, v2, v3; v0 gets the rest) of
 * point `index` of VTK's Lagrange tetrahedron of degree p, *within* the
 * shell of points whose smallest barycentric count is lo (the outer shell
 * lo = 0; the shell of degree q holds its 4 vertices, 6 edges of q-1 points
 * and 4 faces of (q-1)(q-2)/2; the next one in is the tetrahedron of degree
 * q-4, lo+1). */
static void vtk_tet_point(int index, int p, int c[3])
{
    int lo = 0, q = p;
    while (q >= 4 && index >= 2 * q * q + 2) index -= 2 * q * q + 2, q -= 4, lo++;
    int w[4] = {lo, lo, lo, lo};   /* barycentric counts toward v0..v3 */
    if (index < 4) {
        w[index] += q;
    } else if (index < 4 + 6 * (q - 1)) {
        int e = (index - 4) / (q - 1), m = (index - 4) % (q - 1);
        w[TET_EDGE[e][0]] += q - 1 - m;
        w[TET_EDGE[e][1]] += 1 + m;
    } else {
        int nf = (q - 1) * (q - 2) / 2, f = (index - 4 - 6 * (q - 1)) / nf, m = (index - 4 - 6 * (q - 1)) % nf;
        int t[3];   /* the face's triangle of degree q-3: counts toward its w1, w2, w0 */
        vtk_tri_point(m, q - 3, t);
        w[TET_FACE[f][1]] += 1 + t[0];
        w[TET_FACE[f][2]] += 1 + t[1];
        w[TET_FACE[f][0]] += 1 + t[2];
    }
    c[0] = w[1], c[1] = w[2], c[2] = w[3];
}

void hdg_vtk_lagrange_order_dim(int dim, int p, int *lat)
{
    if (p == 0) {
        lat[0] = 0;
        return;
    }
    if (dim == 3) {
        for (int k = 0; k < hdg_vtk_lattice_count(3, p); k++) {
            int c[3];
            vtk_tet_point(k, p, c);
            lat[k] = lattice_index3(c[0], c[1], c[2], p);
        }
        return;
    }
    for (int j = 0; j <= p; j++)
        for (int i = 0; i <= p - j; i++) {
            int b[3] = {i, j, p - i - j};
            lat[vtk_index(b, p)] = lattice_index(i, j, p);
        }
}

void hdg_vtk_lagrange_order(int p, int *lat)
{
    hdg_vtk_lagrange_order_dim(2, p, lat);
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

static int ncomp_of(const hdg_vtk_data *D, int f)
{
    return D->ncomp ? D->ncomp[f] : 1;
}

static int dim_of(const hdg_vtk_data *D)
{
    return D->dim ? D->dim : 2;
}

/* Coordinates given per element: (dim+1) vertices of dim each. */
static int nvxy_of(const hdg_vtk_data *D)
{
    return (dim_of(D) + 1) * dim_of(D);
}

/* Named, without control characters, distinct; 1, dim or dim^2 components each. */
static hdg_status check_field_names(const hdg_vtk_data *D, hdg_error *err)
{
    for (int f = 0; f < D->nfields; f++) {
        hdg_status st = check_name("field", D->names[f], err);
        if (st) return st;
        int c = ncomp_of(D, f), d = dim_of(D);
        if (c != 1 && c != d && c != d * d)
            return hdg_fail(err, HDG_EINPUT, "vtk: field '%s' has %d components (1, %d or %d expected in %dD)",
                            D->names[f], c, d, d * d, d);
        for (int g = 0; g < f; g++)
            if (strcmp(D->names[f], D->names[g]) == 0)
                return hdg_fail(err, HDG_EINPUT, "vtk: field name '%s' given twice", D->names[f]);
    }
    return HDG_OK;
}

static hdg_status check_args(const char *path, const hdg_vtk_data *D, hdg_error *err)
{
    if (!path || !*path) return hdg_fail(err, HDG_EINPUT, "vtk: no output path given");
    if (D->ne < 0) return hdg_fail(err, HDG_EINPUT, "vtk: negative element count %d", D->ne);
    if (D->dim != 0 && D->dim != 2 && D->dim != 3)
        return hdg_fail(err, HDG_EINPUT, "vtk: dimension %d (2: triangles, 3: tetrahedra)", D->dim);
    if (D->p < 0 || D->p > HDG_VTK_MAX_DEGREE)
        return hdg_fail(err, HDG_EINPUT, "vtk: degree %d out of range 0..%d", D->p,
                        HDG_VTK_MAX_DEGREE);
    if (D->mode != HDG_VTK_LAGRANGE && D->mode != HDG_VTK_SUBDIVIDE)
        return hdg_fail(err, HDG_EINPUT, "vtk: unknown output mode %d", D->mode);
    if (D->format != HDG_VTK_BINARY && D->format != HDG_VTK_ASCII)
        return hdg_fail(err, HDG_EINPUT, "vtk: unknown format %d", D->format);
    if (D->nfields < 0) return hdg_fail(err, HDG_EINPUT, "vtk: negative field count %d", D->nfields);
    if (D->ne > 0 && !D->vxy) return hdg_fail(err, HDG_EINPUT, "vtk: no vertex coordinates given");
    if (D->nfields > 0 && (!D->names || !D->values))
        return hdg_fail(err, HDG_EINPUT, "vtk: %d fields but no names or values", D->nfields);
    hdg_status st = check_field_names(D, err);
    for (int f = 0, col = 0; !st && f < D->nfields; col += ncomp_of(D, f), f++)
        for (int c = 0; c < ncomp_of(D, f); c++)
            if (D->ne > 0 && !D->values[col + c])
                return hdg_fail(err, HDG_EINPUT, "vtk: field '%s' has no values", D->names[f]);
    return st;
}

/* Cell fields: named, distinct among themselves and from the lattice fields,
 * with values, all finite. */
static hdg_status check_cells(const hdg_vtk_data *D, int ne, hdg_error *err)
{
    const hdg_vtk_cells *c = D->cells;
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
        for (int g = 0; g < D->nfields; g++)
            if (strcmp(c->names[f], D->names[g]) == 0)
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
static hdg_status check_finite(const hdg_vtk_data *D, int nlat, hdg_error *err)
{
    int nv = nvxy_of(D);
    for (int e = 0; e < D->ne; e++)
        for (int k = 0; k < nv; k++)
            if (!isfinite(D->vxy[(size_t)nv * e + k]))
                return hdg_fail(err, HDG_EINPUT,
                                "vtk: vertex coordinates of element %d are not finite", e);
    for (int f = 0, col = 0; f < D->nfields; col += ncomp_of(D, f), f++)
        for (int c = 0; c < ncomp_of(D, f); c++)
            for (int e = 0; e < D->ne; e++)
                for (int k = 0; k < nlat; k++) {
                    double v = D->values[col + c][(size_t)e * nlat + k];
                    if (!isfinite(v))
                        return hdg_fail(err, HDG_EINPUT,
                                        "vtk: field '%s' is not finite at element %d "
                                        "(value %g at lattice point %d%s)", D->names[f], e, v, k,
                                        ncomp_of(D, f) > 1 ? (const char *[]){", component 1", ", component 2",
                                                                             ", component 3", ", component 4",
                                                                             ", component 5", ", component 6",
                                                                             ", component 7", ", component 8",
                                                                             ", component 9"}[c]
                                                           : "");
                }
    return HDG_OK;
}

/* ---- the arrays of a file --------------------------------------------------------- */

enum { S_POINTDATA, S_CELLDATA, S_POINTS, S_CELLS, S_COUNT };   /* sections, in file order */
enum { A_FIELD, A_CELL, A_POINTS, A_CONN, A_OFFSETS, A_TYPES };   /* what an array holds */
enum { T_FLOAT64, T_INT64, T_UINT8 };

static const char *const SECTION[S_COUNT] = {"PointData", "CellData", "Points", "Cells"};
static const char *const TYPE[3] = {"Float64", "Int64", "UInt8"};
static const int TYPE_SIZE[3] = {8, 8, 1};

typedef struct vtk_array {
    int section, kind, type;
    const char *name;
    int ncomp;                  /* components written: 1, 3 (a vector) or 9 (a tensor) */
    int nin, col;               /* A_FIELD: components given (1, dim, dim^2), the first's column; A_CELL: index */
    long long count;            /* values: tuples x ncomp */
    int per_line;               /* ASCII: values a line */
    unsigned long long offset;  /* binary: where its block starts in the appended data */
} vtk_array;

/* What is written, derived from the arguments. */
typedef struct vtu {
    const hdg_vtk_data *D;
    int nlat;               /* values per element per field */
    int dim, nvx;           /* 2 or 3; coordinates given per element ((dim+1) dim) */
    int pg;                 /* lattice degree of the written points (p, or 1 for p = 0) */
    int npe;                /* points written per element */
    int *order;             /* lattice index (degree pg) of each written point */
    int *li, *lj, *lk;      /* lattice coordinates (i, j, k) by lattice index (k = 0 in 2D) */
    int *sub;               /* subdivided: dim+1 lattice indices per sub-cell (nsub of them) */
    int subdivide;          /* p^dim linear cells per element */
    int nsub;               /* cells written per element: p^dim subdivided, else 1 */
    int per_cell;           /* points a cell */
    long long npts, ncells;
    vtk_array *a;
    int na;
} vtu;

static vtk_array *add_array(vtu *w, int section, int kind, int type, const char *name, int ncomp, long long tuples,
                            int per_line)
{
    vtk_array *a = &w->a[w->na++];
    *a = (vtk_array){.section = section, .kind = kind, .type = type, .name = name, .ncomp = ncomp,
                     .nin = 1, .count = tuples * ncomp, .per_line = per_line};
    return a;
}

/* Every array of the file, in file order. */
static void list_arrays(vtu *w)
{
    const hdg_vtk_data *D = w->D;
    int nc = D->cells ? D->cells->n : 0, fsec = D->p == 0 ? S_CELLDATA : S_POINTDATA;
    long long per = w->ncells / (D->ne ? D->ne : 1);
    w->a = hdg_xmalloc(sizeof *w->a * (size_t)(D->nfields + nc + 4));
    for (int f = 0, col = 0; f < D->nfields; col += ncomp_of(D, f), f++) {
        int nin = ncomp_of(D, f), nout = nin == 1 ? 1 : nin == w->dim ? 3 : 9;
        vtk_array *a = add_array(w, fsec, A_FIELD, T_FLOAT64, D->names[f], nout, D->p ? w->npts : w->ncells,
                                 (D->p ? w->npe : 1) * nout);
        a->nin = nin, a->col = col;
    }
    for (int i = 0; i < nc; i++)
        add_array(w, S_CELLDATA, A_CELL, T_FLOAT64, D->cells->names[i], 1, w->ncells, (int)per)->col = i;
    add_array(w, S_POINTS, A_POINTS, T_FLOAT64, "Points", 3, w->npts, 3);
    add_array(w, S_CELLS, A_CONN, T_INT64, "connectivity", 1, w->ncells * w->per_cell, w->per_cell);
    add_array(w, S_CELLS, A_OFFSETS, T_INT64, "offsets", 1, w->ncells, 16);
    add_array(w, S_CELLS, A_TYPES, T_UINT8, "types", 1, w->ncells, 32);
}

/* The given component of written component c of a field of nin components
 * in dimension dim (-1: a zero, the z parts in 2D). */
static int component_in(int nin, int c, int dim)
{
    if (nin == 1) return 0;
    if (nin == dim) return c < dim ? c : -1;
    return c / 3 < dim && c % 3 < dim ? dim * (c / 3) + c % 3 : -1;
}

static double point_coord(const vtu *w, long long pt, int c)
{
    if (c >= w->dim) return 0;
    const double *v = w->D->vxy + (size_t)w->nvx * (size_t)(pt / w->npe);
    int l = w->order[pt % w->npe], i = w->li[l], j = w->lj[l], k = w->lk[l], d = w->dim;
    double l1 = (double)i / w->pg, l2 = (double)j / w->pg, l3 = (double)k / w->pg;
    double l0 = (double)(w->pg - i - j - k) / w->pg, x = l0 * v[c] + l1 * v[d + c] + l2 * v[2 * d + c];
    return d == 3 ? x + l3 * v[3 * d + c] : x;   /* 2D: the same arithmetic as before */
}

static double float_value(const vtu *w, const vtk_array *a, long long i)
{
    const hdg_vtk_data *D = w->D;
    if (a->kind == A_POINTS) return point_coord(w, i / 3, (int)(i % 3));
    if (a->kind == A_CELL) return D->cells->values[a->col][i / (w->ncells / D->ne)];
    long long t = i / a->ncomp;   /* A_FIELD: the point (the element for p = 0) */
    int c = component_in(a->nin, (int)(i % a->ncomp), w->dim);
    if (c < 0) return 0;
    const double *v = D->values[a->col + c];
    if (D->p == 0) return v[t];
    return v[(size_t)(t / w->npe) * w->nlat + w->order[t % w->npe]];
}

static long long int_value(const vtu *w, const vtk_array *a, long long i)
{
    if (a->kind == A_OFFSETS) return (i + 1) * w->per_cell;
    if (a->kind == A_TYPES) {
        int linear = w->per_cell == w->dim + 1;
        if (w->dim == 3) return linear ? VTK_TETRA : VTK_LAGRANGE_TETRAHEDRON;
        return linear ? VTK_TRIANGLE : VTK_LAGRANGE_TRIANGLE;
    }
    if (!w->subdivide) return i;   /* A_CONN: element e's points are e*npe .. e*npe+npe-1 */
    int nc = w->dim + 1;
    long long cell = i / nc, e = cell / w->nsub;
    return e * w->npe + w->sub[nc * (cell % w->nsub) + i % nc];
}

/* ---- ASCII ------------------------------------------------------------------------ */

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

static void put_ascii(FILE *f, const vtu *w, const vtk_array *a)
{
    for (long long i = 0; i < a->count; i++) {
        int end = (i + 1) % a->per_line == 0 || i + 1 == a->count;
        if (a->type == T_FLOAT64) fprintf(f, "%.17g", float_value(w, a, i));
        else fprintf(f, "%lld", int_value(w, a, i));
        fputc(end ? '\n' : ' ', f);
    }
}

/* ---- binary: zlib blocks ---------------------------------------------------------- */

#define BLOCK (1 << 16)   /* uncompressed bytes a block */

typedef struct bytes {
    unsigned char *b;
    size_t n, cap;
} bytes;

static unsigned char *grow(bytes *o, size_t more)
{
    if (o->n + more > o->cap) {
        o->cap = o->n + more > 2 * o->cap ? o->n + more : 2 * o->cap;
        o->b = hdg_xrealloc(o->b, o->cap);
    }
    return o->b + o->n;
}

/* Values from first into raw (native byte order); returns the bytes. */
static size_t fill_block(const vtu *w, const vtk_array *a, long long first, unsigned char *raw)
{
    int size = TYPE_SIZE[a->type];
    long long n = a->count - first < BLOCK / size ? a->count - first : BLOCK / size;
    for (long long k = 0; k < n; k++) {
        if (a->type == T_FLOAT64) {
            double v = float_value(w, a, first + k);
            memcpy(raw + 8 * k, &v, 8);
        } else if (a->type == T_INT64) {
            int64_t v = int_value(w, a, first + k);
            memcpy(raw + 8 * k, &v, 8);
        } else {
            raw[k] = (unsigned char)int_value(w, a, first + k);
        }
    }
    return (size_t)n * size;
}

/* The array as a compressed block list appended to out: a header of UInt64
 * (blocks, block size, partial last block size, each block's compressed size)
 * and the blocks. */
static hdg_status append_compressed(const vtu *w, const vtk_array *a, bytes *out, hdg_error *err)
{
    uint64_t total = (uint64_t)a->count * TYPE_SIZE[a->type], nb = (total + BLOCK - 1) / BLOCK;
    size_t at = out->n, hdr = sizeof(uint64_t) * (size_t)(3 + nb);
    grow(out, hdr);
    out->n += hdr;
    uint64_t head[3] = {nb, BLOCK, total % BLOCK};
    memcpy(out->b + at, head, sizeof head);
    unsigned char *raw = hdg_xmalloc(BLOCK);
    hdg_status st = HDG_OK;
    long long per = BLOCK / TYPE_SIZE[a->type];
    for (uint64_t k = 0; k < nb && !st; k++) {
        size_t n = fill_block(w, a, (long long)k * per, raw);
        uLongf len = compressBound((uLong)n);
        grow(out, len);
        if (compress2(out->b + out->n, &len, raw, (uLong)n, Z_DEFAULT_COMPRESSION) != Z_OK)
            st = hdg_fail(err, HDG_ENOMEM, "vtk: zlib could not compress the array '%s'", a->name);
        out->n += len;
        uint64_t c = len;
        memcpy(out->b + at + sizeof(uint64_t) * (3 + k), &c, sizeof c);
    }
    free(raw);
    return st;
}

/* Every array compressed, one after the other; each array's offset set. */
static hdg_status encode(vtu *w, bytes *out, hdg_error *err)
{
    hdg_status st = HDG_OK;
    for (int i = 0; i < w->na && !st; i++) {
        w->a[i].offset = out->n;
        st = append_compressed(w, &w->a[i], out, err);
    }
    return st;
}

/* ---- the XML ---------------------------------------------------------------------- */

static const char *byte_order(void)
{
    const uint16_t one = 1;
    return *(const unsigned char *)&one ? "LittleEndian" : "BigEndian";
}

static void put_array(FILE *f, const vtu *w, const vtk_array *a, int parallel)
{
    fprintf(f, parallel ? "      <PDataArray type=\"%s\" Name=\"" : "        <DataArray type=\"%s\" Name=\"",
            TYPE[a->type]);
    put_escaped(f, a->name);
    if (a->ncomp > 1) fprintf(f, "\" NumberOfComponents=\"%d", a->ncomp);
    if (parallel) {
        fputs("\"/>\n", f);
    } else if (w->D->format == HDG_VTK_BINARY) {
        fprintf(f, "\" format=\"appended\" offset=\"%llu\"/>\n", a->offset);
    } else {
        fputs("\" format=\"ascii\">\n", f);
        put_ascii(f, w, a);
        fputs("        </DataArray>\n", f);
    }
}

/* The section's active attributes: its first scalar, vector and tensor field. */
static void put_attributes(FILE *f, const vtu *w, int s)
{
    static const char *const kind[] = {"Scalars", "Vectors", "Tensors"};
    int seen[3] = {0, 0, 0};
    for (int i = 0; i < w->na; i++) {
        const vtk_array *a = &w->a[i];
        int k = a->ncomp == 1 ? 0 : a->ncomp == 3 ? 1 : 2;
        if (a->section != s || a->kind != A_FIELD || seen[k]++) continue;
        fprintf(f, " %s=\"", kind[k]);
        put_escaped(f, a->name);
        fputc('"', f);
    }
}

/* The sections in file order, each with its arrays; parallel: their
 * declarations in a .pvtu. */
static void put_sections(FILE *f, const vtu *w, int parallel)
{
    for (int s = 0; s < S_COUNT; s++) {
        int n = 0;
        for (int i = 0; i < w->na; i++) n += w->a[i].section == s;
        if (!n || (parallel && s == S_CELLS)) continue;
        fprintf(f, parallel ? "    <P%s" : "      <%s", SECTION[s]);
        if (s < S_POINTS) put_attributes(f, w, s);
        fputs(">\n", f);
        for (int i = 0; i < w->na; i++)
            if (w->a[i].section == s) put_array(f, w, &w->a[i], parallel);
        fprintf(f, parallel ? "    </P%s>\n" : "      </%s>\n", SECTION[s]);
    }
}

static hdg_status write_vtu(FILE *f, vtu *w, hdg_error *err)
{
    const hdg_vtk_data *D = w->D;
    int bin = D->format == HDG_VTK_BINARY;
    bytes data = {0};
    hdg_status st = bin ? encode(w, &data, err) : HDG_OK;
    if (st) {
        free(data.b);
        return st;
    }
    fputs("<?xml version=\"1.0\"?>\n", f);
    fprintf(f, "<!-- hdgc: %d %s, degree %d, %s, %s -->\n", D->ne, w->dim == 3 ? "tetrahedra" : "triangles", D->p,
            D->mode == HDG_VTK_LAGRANGE ? "Lagrange cells" : "subdivided", bin ? "binary (zlib)" : "ASCII");
    fprintf(f, "<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" byte_order=\"%s\"%s>\n  <UnstructuredGrid>\n",
            byte_order(), bin ? " header_type=\"UInt64\" compressor=\"vtkZLibDataCompressor\"" : "");
    fprintf(f, "    <Piece NumberOfPoints=\"%lld\" NumberOfCells=\"%lld\">\n", w->npts, w->ncells);
    put_sections(f, w, 0);
    fputs("    </Piece>\n  </UnstructuredGrid>\n", f);
    if (bin) {
        fputs("  <AppendedData encoding=\"raw\">\n   _", f);
        fwrite(data.b, 1, data.n, f);
        fputs("\n  </AppendedData>\n", f);
    }
    fputs("</VTKFile>\n", f);
    free(data.b);
    return HDG_OK;
}

/* The p^2 linear triangles of one element's lattice (lattice indices):
 * "up" triangles (i,j),(i+1,j),(i,j+1) and "down" ones (i+1,j),(i+1,j+1),(i,j+1),
 * all counter-clockwise like the element. */
static void subtriangles(int p, int *sub)
{
    int k = 0;
    for (int j = 0; j < p; j++)
        for (int i = 0; i < p - j; i++) {
            int up[3] = {lattice_index(i, j, p), lattice_index(i + 1, j, p), lattice_index(i, j + 1, p)};
            memcpy(sub + 3 * k++, up, sizeof up);
            if (i + j < p - 1) {
                int down[3] = {lattice_index(i + 1, j, p), lattice_index(i + 1, j + 1, p), lattice_index(i, j + 1, p)};
                memcpy(sub + 3 * k++, down, sizeof down);
            }
        }
}

/* The p^3 linear tetrahedra of one element's lattice (lattice indices), all
 * positively oriented like the element: in the coordinates u = (i+j+k, j+k,
 * k) the lattice is the part p >= u1 >= u2 >= u3 >= 0 of the cube [0,p]^3,
 * and the Freudenthal (Kuhn) triangulation of its p^3 unit cubes (6
 * tetrahedra each, one per order of the unit steps) lays exactly p^3 of its
 * tetrahedra in that part (each lies on one side of every plane u_a = u_b). */
static void subtetrahedra(int p, int *sub)
{
    static const int PERM[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    int n = 0;
    for (int c1 = 0; c1 < p; c1++)
        for (int c2 = 0; c2 < p; c2++)
            for (int c3 = 0; c3 < p; c3++)
                for (int q = 0; q < 6; q++) {
                    int u[4][3] = {{c1, c2, c3}}, S[3] = {c1, c2, c3};
                    for (int v = 1; v < 4; v++) {
                        memcpy(u[v], u[v - 1], sizeof u[v]);
                        u[v][PERM[q][v - 1]]++;
                        for (int a = 0; a < 3; a++) S[a] += u[v][a];
                    }
                    if (!(S[0] > S[1] && S[1] > S[2])) continue;   /* its centroid outside */
                    int ijk[4][3];
                    for (int v = 0; v < 4; v++)
                        ijk[v][0] = u[v][0] - u[v][1], ijk[v][1] = u[v][1] - u[v][2], ijk[v][2] = u[v][2];
                    int a[3], b[3], c[3];
                    for (int d = 0; d < 3; d++)
                        a[d] = ijk[1][d] - ijk[0][d], b[d] = ijk[2][d] - ijk[0][d], c[d] = ijk[3][d] - ijk[0][d];
                    int det = a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) +
                              a[2] * (b[0] * c[1] - b[1] * c[0]);
                    int order[4] = {0, 1, det > 0 ? 2 : 3, det > 0 ? 3 : 2};
                    for (int v = 0; v < 4; v++) {
                        const int *t = ijk[order[v]];
                        sub[4 * n + v] = lattice_index3(t[0], t[1], t[2], p);
                    }
                    n++;
                }
}

static void vtu_init(vtu *w, const hdg_vtk_data *D)
{
    memset(w, 0, sizeof *w);
    w->D = D;
    w->dim = dim_of(D);
    w->nvx = nvxy_of(D);
    w->nlat = hdg_vtk_lattice_count(w->dim, D->p);
    w->pg = D->p ? D->p : 1;
    w->npe = hdg_vtk_lattice_count(w->dim, w->pg);
    w->subdivide = D->mode == HDG_VTK_SUBDIVIDE && D->p > 1;
    w->nsub = w->subdivide ? (w->dim == 3 ? D->p * D->p * D->p : D->p * D->p) : 1;
    w->per_cell = w->subdivide ? w->dim + 1 : w->npe;
    w->npts = (long long)D->ne * w->npe;
    w->ncells = (long long)D->ne * w->nsub;
    w->order = hdg_xmalloc(w->npe * sizeof *w->order);
    w->li = hdg_xmalloc(3 * w->npe * sizeof *w->li);
    w->lj = w->li + w->npe, w->lk = w->li + 2 * w->npe;
    lattice_ijk(w->dim, w->pg, w->li, w->lj, w->lk);
    if (D->mode == HDG_VTK_LAGRANGE) hdg_vtk_lagrange_order_dim(w->dim, w->pg, w->order);
    else for (int k = 0; k < w->npe; k++) w->order[k] = k;
    if (w->subdivide) {
        w->sub = hdg_xmalloc(sizeof *w->sub * (size_t)(w->dim + 1) * (size_t)w->nsub);
        if (w->dim == 3) subtetrahedra(D->p, w->sub);
        else subtriangles(D->p, w->sub);
    }
    list_arrays(w);
}

static void vtu_free(vtu *w)
{
    free(w->order), free(w->li), free(w->sub), free(w->a);
}

hdg_status hdg_vtk_write_data(const char *path, const hdg_vtk_data *D, hdg_error *err)
{
    hdg_status st = check_args(path, D, err);
    if (!st) st = check_finite(D, hdg_vtk_lattice_count(dim_of(D), D->p), err);
    if (!st) st = check_cells(D, D->ne, err);
    if (st) return st;
    vtu w;
    vtu_init(&w, D);
    hdg_ofile o;   /* a temporary beside path, renamed over it when whole */
    st = hdg_ofile_open(&o, path, err);
    if (!st) {
        setvbuf(o.f, NULL, _IOFBF, 1 << 16);
        st = write_vtu(o.f, &w, err);
        if (!st) st = hdg_ofile_commit(&o, err);
        else hdg_ofile_abort(&o);
    }
    vtu_free(&w);
    return st;
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
    hdg_vtk_data D = {.ne = ne, .vxy = vxy, .p = p, .nfields = nfields, .names = names, .values = values,
                      .cells = cells, .mode = mode, .format = HDG_VTK_BINARY};
    return hdg_vtk_write_data(path, &D, err);
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

hdg_status hdg_pvtu_write(const char *path, int n, const char *const *files, const hdg_vtk_data *D,
                          hdg_error *err)
{
    if (!path || !*path) return hdg_fail(err, HDG_EINPUT, "pvtu: no output path given");
    if (n < 1 || !files) return hdg_fail(err, HDG_EINPUT, "pvtu: no pieces given");
    if (D->p < 0 || D->p > HDG_VTK_MAX_DEGREE)
        return hdg_fail(err, HDG_EINPUT, "pvtu: degree %d out of range 0..%d", D->p, HDG_VTK_MAX_DEGREE);
    if (D->nfields < 0 || (D->nfields > 0 && !D->names))
        return hdg_fail(err, HDG_EINPUT, "pvtu: %d fields but no names", D->nfields);
    if (D->mode != HDG_VTK_LAGRANGE && D->mode != HDG_VTK_SUBDIVIDE)
        return hdg_fail(err, HDG_EINPUT, "pvtu: unknown output mode %d", D->mode);
    if (D->dim != 0 && D->dim != 2 && D->dim != 3)
        return hdg_fail(err, HDG_EINPUT, "pvtu: dimension %d (2: triangles, 3: tetrahedra)", D->dim);
    hdg_status st = check_field_names(D, err);
    if (!st) st = check_cells(D, 0, err);
    for (int k = 0; !st && k < n; k++) st = check_name("piece file", files[k], err);
    hdg_ofile o;
    if (st || (st = hdg_ofile_open(&o, path, err))) return st;
    hdg_vtk_data none = *D;   /* the arrays of a piece without elements: their declarations */
    none.ne = 0;
    vtu w;
    vtu_init(&w, &none);
    FILE *f = o.f;
    char *cwd = current_dir();
    fprintf(f, "<?xml version=\"1.0\"?>\n"
               "<VTKFile type=\"PUnstructuredGrid\" version=\"1.0\" byte_order=\"%s\">\n"
               "  <PUnstructuredGrid GhostLevel=\"0\">\n", byte_order());
    put_sections(f, &w, 1);
    for (int k = 0; k < n; k++) {
        char *rel = relative_to(path, files[k], cwd);
        fputs("    <Piece Source=\"", f);
        put_escaped(f, rel);
        fputs("\"/>\n", f);
        free(rel);
    }
    fputs("  </PUnstructuredGrid>\n</VTKFile>\n", f);
    free(cwd);
    vtu_free(&w);
    return hdg_ofile_commit(&o, err);
}

/* ---- one snapshot, .vtu or a one-entry .pvd ------------------------------------ */

hdg_status hdg_vtk_write_snapshot(const char *path, int ne, const double *vxy, int p, int nfields,
                                  const char *const *names, const double *const *values, int mode,
                                  hdg_error *err)
{
    hdg_vtk_data D = {.ne = ne, .vxy = vxy, .p = p, .nfields = nfields, .names = names, .values = values,
                      .mode = mode, .format = HDG_VTK_BINARY};
    return hdg_vtk_write_snapshot_data(path, &D, err);
}

hdg_status hdg_vtk_write_snapshot_data(const char *path, const hdg_vtk_data *D, hdg_error *err)
{
    size_t len = path ? strlen(path) : 0;
    if (len <= 4 || strcmp(path + len - 4, ".pvd")) return hdg_vtk_write_data(path, D, err);
    hdg_str vtu;
    hdg_str_init(&vtu);
    hdg_str_printf(&vtu, "%.*s_00000.vtu", (int)(len - 4), path);
    hdg_status st = hdg_vtk_write_data(vtu.s, D, err);
    const char *files[1] = {vtu.s};
    if (!st) st = hdg_pvd_write(path, 1, files, NULL, err);
    hdg_str_free(&vtu);
    return st;
}
