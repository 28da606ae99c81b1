/* mesh_gen.c — the structured meshes square:N and cube:N, and mesh specs (hdg_mesh_load:
 * "square:N,...", "cube:N,...", a .msh path, with periodic= and refine=). The topology and its
 * checks are mesh.c's (hdg_mesh_build_topology). */
#include "runtime/mesh/mesh.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/fem/refel.h"
#include "runtime/mesh/mesh_internal.h"
#include "support/util.h"

#define SQUARE_MAX_N 8000           /* 2N^2 <= MAX_ELEMENTS of mesh.c (INT_MAX / 16) */
#define CUBE_MAX_N 280              /* 6N^3 <= MAX_ELEMENTS */

/* ---------------------------------------------------------- square:N */

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* Uniform in the open interval (-1, 1): (2k+1)/2^53 - 1 never reaches +-1, so
 * p = 0.25 can never flatten a triangle exactly. */
static double open_unit(uint64_t *s)
{
    uint64_t k = splitmix64(s) >> 11;
    return (double)(2 * k + 1) / 9007199254740992.0 - 1.0;
}

hdg_status hdg_mesh_square(hdg_mesh *m, int N, double perturb, double x0, double x1,
                           double y0, double y1, hdg_error *err)
{
    memset(m, 0, sizeof *m);
    if (N < 1 || N > SQUARE_MAX_N)
        return hdg_fail(err, HDG_EINPUT, "square:N needs 1 <= N <= %d (got %d)", SQUARE_MAX_N, N);
    if (!(perturb >= 0 && perturb < 0.5))
        return hdg_fail(err, HDG_EINPUT, "perturb must be in [0, 0.5) (got %g; 0.25 or less is always valid)",
                        perturb);
    if (!isfinite(x0) || !isfinite(x1) || !isfinite(y0) || !isfinite(y1) || !(x0 < x1) || !(y0 < y1))
        return hdg_fail(err, HDG_EINPUT, "domain [%g,%g]x[%g,%g] is empty or not finite", x0, x1, y0, y1);
    int n1 = N + 1;
    m->nv = n1 * n1, m->ne = 2 * N * N;
    m->vx = hdg_xmalloc((size_t)m->nv * sizeof(double));
    m->vy = hdg_xmalloc((size_t)m->nv * sizeof(double));
    double hx = (x1 - x0) / N, hy = (y1 - y0) / N;
    uint64_t seed = 0x5EEDC0DEULL;
    for (int j = 0; j <= N; j++)
        for (int i = 0; i <= N; i++) {
            int v = j * n1 + i;
            m->vx[v] = i == N ? x1 : x0 + i * hx; /* exact end points */
            m->vy[v] = j == N ? y1 : y0 + j * hy;
            if (perturb > 0 && i > 0 && i < N && j > 0 && j < N) {
                double du = open_unit(&seed), dv = open_unit(&seed);
                m->vx[v] += perturb * hx * du, m->vy[v] += perturb * hy * dv;
            }
        }
    m->ev = hdg_xmalloc((size_t)3 * m->ne * sizeof(int));
    for (int j = 0, e = 0; j < N; j++)
        for (int i = 0; i < N; i++, e += 2) {
            int a = j * n1 + i, b = a + 1, c = a + n1 + 1, d = a + n1;
            int *t = m->ev + 3 * e;
            t[0] = a, t[1] = b, t[2] = c; /* lower right triangle */
            t[3] = a, t[4] = c, t[5] = d; /* upper left triangle */
        }
    hdg_str src;
    hdg_str_init(&src);
    hdg_str_printf(&src, "square:%d", N);
    if (perturb > 0) hdg_str_printf(&src, ",perturb=%g", perturb);
    if (x0 != 0 || x1 != 1 || y0 != 0 || y1 != 1)
        hdg_str_printf(&src, ",domain=[%g,%g]x[%g,%g]", x0, x1, y0, y1);
    m->source = hdg_str_take(&src);
    for (int e = 0; e < m->ne; e++) /* a perturbation may only shear, never flip */
        if (hdg_mesh_signed_area2(m, m->ev + 3 * e) <= 0) {
            hdg_fail(err, HDG_EINPUT,
                     "%s: element %d is inverted after perturbation (perturb <= 0.25 is always valid)",
                     m->source, e);
            hdg_mesh_free(m);
            return HDG_EINPUT;
        }
    /* boundary edges: both ends on the same side of the grid */
    m->ntag = 4 * N;
    m->tag = hdg_xmalloc((size_t)4 * m->ntag * sizeof(int));
    for (int i = 0, t = 0; i < N; i++) {
        int g[4][3] = {{i, i + 1, 1},                     /* bottom: j = 0 */
                       {i * n1 + N, (i + 1) * n1 + N, 2}, /* right:  i = N */
                       {N * n1 + i, N * n1 + i + 1, 3},   /* top:    j = N */
                       {i * n1, (i + 1) * n1, 4}};        /* left:   i = 0 */
        for (int s = 0; s < 4; s++, t++) {
            int *tg = m->tag + 4 * t;
            tg[0] = g[s][0], tg[1] = g[s][1], tg[2] = g[s][2], tg[3] = 0;
        }
    }
    static const char *names[] = {"bottom", "right", "top", "left"};
    for (int s = 0; s < 4; s++) hdg_mesh_set_marker_name(m, s + 1, names[s]);
    hdg_status st = hdg_mesh_build_topology(m, err);
    if (st) hdg_mesh_free(m);
    return st;
}

/* ---------------------------------------------------------- cube:N */

/* The 6 tetrahedra of the Kuhn (Freudenthal) split of a cube: tetrahedron s walks
 * from corner 000 to 111 along the axes in the order kuhn_axes[s]; corners are bit
 * masks (1: x, 2: y, 4: z). Every cube has the same main diagonal, so neighbours
 * match. The odd orders list their corners 1 and 2 swapped (positive volume). */
static const int kuhn_axes[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};

static void kuhn_corners(int s, int c[4])
{
    const int *ax = kuhn_axes[s];
    c[0] = 0, c[1] = 1 << ax[0], c[2] = c[1] | 1 << ax[1], c[3] = 7;
    if (hdg_mesh_perm_sign(ax, 3) < 0) {
        int t = c[1];
        c[1] = c[2], c[2] = t;
    }
}

/* Marker of a face of cube:N whose vertices all lie on one side (1 left x = min,
 * 2 right, 3 front y = min, 4 back, 5 bottom z = min, 6 top), 0 for an interior face. */
static int cube_side(int N, const int *v, int nvf)
{
    int n1 = N + 1;
    for (int axis = 0; axis < 3; axis++)
        for (int end = 0; end < 2; end++) {
            int all = 1;
            for (int i = 0; i < nvf; i++) {
                int c = axis == 0 ? v[i] % n1 : axis == 1 ? v[i] / n1 % n1 : v[i] / (n1 * n1);
                all &= c == (end ? N : 0);
            }
            if (all) return 1 + 2 * axis + end;
        }
    return 0;
}

static void cube_vertices(hdg_mesh *m, int N, double perturb, const double *box)
{
    int n1 = N + 1;
    double h[3];
    for (int a = 0; a < 3; a++) h[a] = (box[2 * a + 1] - box[2 * a]) / N;
    uint64_t seed = 0x5EEDC0DEULL;
    double *x[3] = {m->vx, m->vy, m->vz};
    for (int k = 0; k <= N; k++)
        for (int j = 0; j <= N; j++)
            for (int i = 0; i <= N; i++) {
                int v = (k * n1 + j) * n1 + i, c[3] = {i, j, k};
                for (int a = 0; a < 3; a++) x[a][v] = c[a] == N ? box[2 * a + 1] : box[2 * a] + c[a] * h[a];
                if (perturb > 0 && i > 0 && i < N && j > 0 && j < N && k > 0 && k < N)
                    for (int a = 0; a < 3; a++) x[a][v] += perturb * h[a] * open_unit(&seed);
            }
}

static void cube_elements(hdg_mesh *m, int N)
{
    int n1 = N + 1;
    for (int k = 0, e = 0; k < N; k++)
        for (int j = 0; j < N; j++)
            for (int i = 0; i < N; i++)
                for (int s = 0; s < 6; s++, e++) {
                    int c[4];
                    kuhn_corners(s, c);
                    for (int q = 0; q < 4; q++)
                        m->ev[4 * e + q] = ((k + (c[q] >> 2 & 1)) * n1 + j + (c[q] >> 1 & 1)) * n1 + i + (c[q] & 1);
                }
}

/* Boundary faces: the element faces with all vertices on one side of the cube. */
static void cube_tags(hdg_mesh *m, int N)
{
    m->ntag = 12 * N * N;
    m->tag = hdg_xmalloc((size_t)5 * m->ntag * sizeof(int));
    int t = 0;
    for (int e = 0; e < m->ne; e++)
        for (int j = 0; j < 4; j++) {
            const int *w = hdg_simplex_face_vertices(3, j);
            int v[3] = {m->ev[4 * e + w[0]], m->ev[4 * e + w[1]], m->ev[4 * e + w[2]]}, side = cube_side(N, v, 3);
            if (!side) continue;
            int *tg = m->tag + 5 * t++;
            tg[0] = v[0], tg[1] = v[1], tg[2] = v[2], tg[3] = side, tg[4] = 0;
        }
    static const char *names[] = {"left", "right", "front", "back", "bottom", "top"};
    for (int s = 0; s < 6; s++) hdg_mesh_set_marker_name(m, s + 1, names[s]);
}

static char *cube_source(int N, double perturb, const double *b)
{
    hdg_str src;
    hdg_str_init(&src);
    hdg_str_printf(&src, "cube:%d", N);
    if (perturb > 0) hdg_str_printf(&src, ",perturb=%g", perturb);
    if (b[0] != 0 || b[1] != 1 || b[2] != 0 || b[3] != 1 || b[4] != 0 || b[5] != 1)
        hdg_str_printf(&src, ",domain=[%g,%g]x[%g,%g]x[%g,%g]", b[0], b[1], b[2], b[3], b[4], b[5]);
    return hdg_str_take(&src);
}

hdg_status hdg_mesh_cube(hdg_mesh *m, int N, double perturb, const double box[6], hdg_error *err)
{
    memset(m, 0, sizeof *m);
    if (N < 1 || N > CUBE_MAX_N)
        return hdg_fail(err, HDG_EINPUT, "cube:N needs 1 <= N <= %d (got %d)", CUBE_MAX_N, N);
    if (!(perturb >= 0 && perturb < 0.5))
        return hdg_fail(err, HDG_EINPUT, "perturb must be in [0, 0.5) (got %g; 0.15 or less is always valid)",
                        perturb);
    for (int a = 0; a < 3; a++)
        if (!isfinite(box[2 * a]) || !isfinite(box[2 * a + 1]) || !(box[2 * a] < box[2 * a + 1]))
            return hdg_fail(err, HDG_EINPUT, "domain [%g,%g]x[%g,%g]x[%g,%g] is empty or not finite", box[0],
                            box[1], box[2], box[3], box[4], box[5]);
    int n1 = N + 1;
    m->dim = 3, m->nv = n1 * n1 * n1, m->ne = 6 * N * N * N;
    m->vx = hdg_xmalloc((size_t)m->nv * sizeof(double));
    m->vy = hdg_xmalloc((size_t)m->nv * sizeof(double));
    m->vz = hdg_xmalloc((size_t)m->nv * sizeof(double));
    m->ev = hdg_xmalloc((size_t)4 * m->ne * sizeof(int));
    cube_vertices(m, N, perturb, box);
    cube_elements(m, N);
    m->source = cube_source(N, perturb, box);
    for (int e = 0; e < m->ne; e++) /* a perturbation may only shear, never flip */
        if (hdg_mesh_signed_volume6(m, m->ev + 4 * e) <= 0) {
            hdg_fail(err, HDG_EINPUT,
                     "%s: element %d is inverted after perturbation (perturb <= 0.15 is always valid)",
                     m->source, e);
            hdg_mesh_free(m);
            return HDG_EINPUT;
        }
    cube_tags(m, N);
    hdg_status st = hdg_mesh_build_topology(m, err);
    if (st) hdg_mesh_free(m);
    return st;
}

/* ---------------------------------------------------------- spec parsing */

/* A decimal number (no hex, inf or nan: support/util.h). */
static int spec_number(const char **p, double *x)
{
    size_t n = hdg_decimal_span(*p);
    if (!n) return 0;
    *x = strtod(*p, NULL);
    if (!isfinite(*x)) return 0;
    *p += n;
    return 1;
}

/* "[a,b]" */
static int spec_interval(const char **p, double *a, double *b)
{
    if (**p != '[') return 0;
    ++*p;
    if (!spec_number(p, a) || **p != ',') return 0;
    ++*p;
    if (!spec_number(p, b) || **p != ']') return 0;
    ++*p;
    return 1;
}

/* Identifies the pairs and says so in m->source (",periodic=" + what the spec said). */
static hdg_status make_periodic(hdg_mesh *m, const char *pairs, const char *said, size_t n, hdg_error *err)
{
    hdg_status st = hdg_mesh_make_periodic(m, pairs, err);
    if (st) {
        hdg_mesh_free(m);
        return st;
    }
    size_t old = strlen(m->source);
    m->source = hdg_xrealloc(m->source, old + n + 11);
    memcpy(m->source + old, ",periodic=", 10);
    memcpy(m->source + old + 10, said, n);
    m->source[old + 10 + n] = '\0';
    return HDG_OK;
}

/* The ",periodic=" letters of square:N (x, y) or cube:N (x, y, z; each at most once,
 * in any order) as marker pairs; NULL when they are not such letters. */
static const char *periodic_pairs(int dim, const char *p, size_t n, char *buf, size_t nbuf)
{
    static const char *pair2[] = {"left:right", "bottom:top"};
    static const char *pair3[] = {"left:right", "front:back", "bottom:top"};
    int seen = 0;
    if (!n || n > (size_t)dim) return NULL;
    for (size_t i = 0; i < n; i++) {
        int a = p[i] - 'x';
        if (a < 0 || a >= dim || seen & 1 << a) return NULL;
        seen |= 1 << a;
    }
    buf[0] = '\0';
    for (int a = 0; a < dim; a++)
        if (seen & 1 << a) {
            if (buf[0]) strncat(buf, ",", nbuf - strlen(buf) - 1);
            strncat(buf, dim == 3 ? pair3[a] : pair2[a], nbuf - strlen(buf) - 1);
        }
    return buf;
}

/* "domain=" of square:N ([a,b]^2, [a,b]x[c,d]) or cube:N ([a,b]^3, [a,b]x[c,d]x[e,f]). */
static int spec_domain(const char **p, int dim, double *box)
{
    if (!spec_interval(p, &box[0], &box[1])) return 0;
    if ((*p)[0] == '^' && (*p)[1] == '0' + dim) {
        *p += 2;
        for (int a = 1; a < dim; a++) box[2 * a] = box[0], box[2 * a + 1] = box[1];
        return 1;
    }
    for (int a = 1; a < dim; a++) {
        if (**p != 'x') return 0;
        ++*p;
        if (!spec_interval(p, &box[2 * a], &box[2 * a + 1])) return 0;
    }
    return 1;
}

/* square:N or cube:N (dim 2 or 3) with its options. */
static hdg_status load_structured(hdg_mesh *m, const char *spec, int dim, hdg_error *err)
{
    const char *kind = dim == 3 ? "cube" : "square";
    int maxn = dim == 3 ? CUBE_MAX_N : SQUARE_MAX_N;
    const char *p = spec + strlen(kind) + 1;
    char *end, pairs[64];
    long N = strtol(p, &end, 10);
    if (*p < '0' || *p > '9' || (*end && *end != ','))
        return hdg_fail(err, HDG_EINPUT, "bad mesh spec '%s': %s:N needs an integer N >= 1", spec, kind);
    if (N < 1 || N > maxn)
        return hdg_fail(err, HDG_EINPUT, "bad mesh spec '%s': N must be between 1 and %d", spec, maxn);
    double perturb = 0, box[6] = {0, 1, 0, 1, 0, 1};
    const char *periodic = NULL, *said = NULL;
    size_t nsaid = 0;
    p = end;
    while (*p == ',') {
        p++;
        if (!strncmp(p, "perturb=", 8)) {
            p += 8;
            if (!spec_number(&p, &perturb) || (*p && *p != ','))
                return hdg_fail(err, HDG_EINPUT, "bad mesh spec '%s': perturb=p needs a number", spec);
        } else if (!strncmp(p, "domain=", 7)) {
            p += 7;
            if (!spec_domain(&p, dim, box) || (*p && *p != ','))
                return hdg_fail(err, HDG_EINPUT, "bad mesh spec '%s': domain must be %s", spec,
                                dim == 3 ? "[a,b]^3 or [a,b]x[c,d]x[e,f]" : "[a,b]^2 or [a,b]x[c,d]");
        } else if (!strncmp(p, "periodic=", 9)) {
            p += 9;
            size_t n = strcspn(p, ",");
            periodic = periodic_pairs(dim, p, n, pairs, sizeof pairs);
            if (!periodic)
                return hdg_fail(err, HDG_EINPUT, "bad mesh spec '%s': periodic= takes %s on %s:N (got '%.*s')",
                                spec, dim == 3 ? "x, y, z, xy, xz, yz or xyz" : "x, y or xy", kind, (int)n, p);
            if (said)
                return hdg_fail(err, HDG_EINPUT, "bad mesh spec '%s': periodic= given twice (write periodic=%s)",
                                spec, dim == 3 ? "xyz" : "xy");
            if (N < 3)
                return hdg_fail(err, HDG_EINPUT, "bad mesh spec '%s': a periodic %s needs N >= 3 (at least "
                                "3 elements across a periodic direction)", spec, kind);
            said = p, nsaid = n, p += n;
        } else {
            const char *e = strchr(p, '=');
            int n = e ? (int)(e - p) : (int)strlen(p);
            return hdg_fail(err, HDG_EINPUT,
                            "bad mesh spec '%s': unknown option '%.*s' (known: perturb, domain, periodic, refine)",
                            spec, n, p);
        }
    }
    if (*p)
        return hdg_fail(err, HDG_EINPUT, "bad mesh spec '%s': unexpected '%s'", spec, p);
    hdg_status st = dim == 3 ? hdg_mesh_cube(m, (int)N, perturb, box, err)
                             : hdg_mesh_square(m, (int)N, perturb, box[0], box[1], box[2], box[3], err);
    if (!st && periodic) st = make_periodic(m, periodic, said, nsaid, err);
    return st;
}

/* KIND:REST with KIND a bare word (no '/' or '.') and no file of that name: a misspelt
 * square:N ("sqare:4"), not a Gmsh file to look for. */
static hdg_status misspelt_kind(const char *spec, hdg_error *err)
{
    size_t k = strcspn(spec, ":/.");
    if (!k || spec[k] != ':' || access(spec, F_OK) == 0) return HDG_OK;
    return hdg_fail(err, HDG_EINPUT, "bad mesh spec '%s': '%.*s' is not a kind of mesh and no file has that "
                    "name; did you mean square:%s? (the specs: square:N[,...], cube:N[,...] or a Gmsh PATH.msh)", spec, (int)k,
                    spec, spec + k + 1);
}

static hdg_status load_base(hdg_mesh *m, const char *spec, hdg_error *err)
{
    if (!strncmp(spec, "square:", 7)) return load_structured(m, spec, 2, err);
    if (!strncmp(spec, "cube:", 5)) return load_structured(m, spec, 3, err);
    if (!strcmp(spec, "square") || !strcmp(spec, "cube"))
        return hdg_fail(err, HDG_EINPUT, "bad mesh spec '%s': write %s:N (e.g. %s:8)", spec, spec, spec);
    long at = hdg_mesh_spec_periodic(spec, strlen(spec));
    hdg_status st = at < 0 ? misspelt_kind(spec, err) : HDG_OK;
    if (st) return st;
    if (at < 0) return hdg_mesh_read_gmsh(m, spec, err);
    char *path = hdg_xmalloc((size_t)at + 1);   /* PATH,periodic=A:B,C:D */
    memcpy(path, spec, (size_t)at);
    path[at] = '\0';
    st = hdg_mesh_read_gmsh(m, path, err);
    free(path);
    if (!st) st = make_periodic(m, spec + at + 10, spec + at + 10, strlen(spec + at + 10), err);
    return st;
}

hdg_status hdg_mesh_load(hdg_mesh *m, const char *spec, hdg_error *err)
{
    memset(m, 0, sizeof *m);
    size_t n;
    int L = hdg_mesh_spec_refine(spec, &n);
    if (L == -2) return hdg_fail(err, HDG_EINPUT, "bad mesh spec '%s': refine=L needs an integer L from 0 to 10", spec);
    if (L == -3) return hdg_fail(err, HDG_EINPUT, "bad mesh spec '%s': refine=L must be the last option", spec);
    if (L < 0) return load_base(m, spec, err);
    char *base = hdg_xmalloc(n + 1);
    memcpy(base, spec, n);
    base[n] = '\0';
    hdg_status st = load_base(m, base, err);
    free(base);
    for (int l = 0; l < L && !st; l++) {
        hdg_mesh fine;
        st = hdg_mesh_refine(m, &fine, err);
        hdg_mesh_free(m);
        if (!st) *m = fine;
    }
    if (!st) {
        free(m->source);
        m->source = hdg_xstrdup(spec);
    }
    return st;
}
