/* gmsh.c — reader for Gmsh .msh files, format 2.2 and 4.1 ASCII (see mesh.h).
 *
 * The file is read whole and scanned token by token (whitespace separated,
 * line numbers tracked). Sections read: $MeshFormat, $PhysicalNames, $Entities
 * (4.1: physical tags of curves), $Nodes, $Elements; every other section is
 * skipped. Kept: 3-node triangles (type 2) and 2-node lines (type 1, their
 * physical tag becomes the boundary marker); points (type 15) are ignored and
 * any other element type is an error. Only nodes used by triangles become mesh
 * vertices, in file order. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/mesh/mesh.h"
#include "support/util.h"

#define MAX_PHYSICAL_TAG 1000000

/* ------------------------------------------------------------- scanner */

typedef struct scanner {
    const char *path;
    const char *p, *end;
    int line;            /* line at p */
    int tokline;         /* line of the last token */
    const char *tok;     /* last token */
    int toklen;
    const char *section; /* current section name, for messages */
    hdg_error *err;
} scanner;

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'; }

/* Next token; 0 at end of file. */
static int next(scanner *s)
{
    while (s->p < s->end && is_space(*s->p)) {
        if (*s->p == '\n') s->line++;
        s->p++;
    }
    if (s->p >= s->end) return 0;
    s->tok = s->p, s->tokline = s->line;
    while (s->p < s->end && !is_space(*s->p)) s->p++;
    s->toklen = (int)(s->p - s->tok);
    return 1;
}

static int tok_is(const scanner *s, const char *w)
{
    return s->toklen == (int)strlen(w) && !memcmp(s->tok, w, (size_t)s->toklen);
}

static hdg_status truncated(scanner *s)
{
    return hdg_fail(s->err, HDG_EINPUT, "%s:%d: file ends inside the $%s section (truncated file?)", s->path,
                    s->tokline, s->section);
}

/* Token as a NUL-terminated string for messages and strtod (clipped). */
static const char *tok_str(const scanner *s, char *buf, size_t n)
{
    int len = s->toklen < (int)n - 1 ? s->toklen : (int)n - 1;
    for (int i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s->tok[i];
        buf[i] = c < 32 || c > 126 ? '?' : (char)c; /* keep messages printable */
    }
    buf[len] = '\0';
    return buf;
}

static hdg_status bad_number(scanner *s, const char *what)
{
    char b[64];
    if (s->toklen > 0 && s->tok[0] == '$')
        return hdg_fail(s->err, HDG_EINPUT,
                        "%s:%d: the $%s section ends early: expected %s, found '%s' (the counts do not match "
                        "the data)",
                        s->path, s->tokline, s->section, what, tok_str(s, b, sizeof b));
    return hdg_fail(s->err, HDG_EINPUT, "%s:%d: malformed number '%s' (expected %s)", s->path, s->tokline,
                    tok_str(s, b, sizeof b), what);
}

static hdg_status read_ll(scanner *s, long long *v, const char *what)
{
    *v = 0;
    if (!next(s)) return truncated(s);
    char b[64], *end;
    if (s->toklen >= (int)sizeof b) return bad_number(s, what);
    tok_str(s, b, sizeof b);
    *v = strtoll(b, &end, 10);
    if (end == b || *end) return bad_number(s, what);
    return HDG_OK;
}

/* An integer in [lo, hi]. */
static hdg_status read_int(scanner *s, int *v, long long lo, long long hi, const char *what)
{
    long long x;
    *v = 0;
    hdg_status st = read_ll(s, &x, what);
    if (st) return st;
    if (x < lo || x > hi)
        return hdg_fail(s->err, HDG_EINPUT, "%s:%d: %s %lld is out of range [%lld, %lld]", s->path, s->tokline,
                        what, x, lo, hi);
    *v = (int)x;
    return HDG_OK;
}

static hdg_status read_double(scanner *s, double *v, const char *what)
{
    *v = 0;
    if (!next(s)) return truncated(s);
    char b[128], *end;
    if (s->toklen >= (int)sizeof b) return bad_number(s, what);
    tok_str(s, b, sizeof b);
    *v = strtod(b, &end);
    if (end == b || *end || !isfinite(*v)) return bad_number(s, what);
    return HDG_OK;
}

static hdg_status expect_end(scanner *s)
{
    char want[64], b[64];
    snprintf(want, sizeof want, "$End%s", s->section);
    if (!next(s)) return truncated(s);
    if (!tok_is(s, want))
        return hdg_fail(s->err, HDG_EINPUT, "%s:%d: expected %s, found '%s' (the counts do not match the data?)",
                        s->path, s->tokline, want, tok_str(s, b, sizeof b));
    return HDG_OK;
}

/* ---------------------------------------------------------- collected data */

typedef struct node { long long tag; double x, y; int line; } node;
typedef struct tri { long long n[3]; int line; } tri;
typedef struct seg { long long n[2]; int phys, line; } seg;
typedef struct entity { int tag, phys, i; } entity; /* i: order in the file */

typedef struct msh {
    int version;                 /* 2 (2.x) or 41 */
    node *nodes; int nn, cnode;
    tri *tris; int nt, ctri;
    seg *segs; int ns, cseg;
    entity *curves; int nc, ccurve;
    int have_nodes, have_elements;
    double z0; int z0line; int have_z;
    hdg_mesh *m;                 /* receives physical names */
} msh;

#define PUSH(arr, n, cap)                                                               \
    ((n) == (cap) ? ((cap) = (cap) ? 2 * (cap) : 64,                                   \
                     (arr) = hdg_xrealloc((arr), (size_t)(cap) * sizeof *(arr))) : 0, \
     &(arr)[(n)++])

static void msh_free(msh *d) { free(d->nodes), free(d->tris), free(d->segs), free(d->curves); }

static const char *type_name(int t)
{
    switch (t) {
    case 1: return "2-node line";
    case 2: return "3-node triangle";
    case 3: return "4-node quadrangle";
    case 4: return "4-node tetrahedron";
    case 5: return "8-node hexahedron";
    case 6: return "6-node prism";
    case 7: return "5-node pyramid";
    case 8: return "3-node second-order line";
    case 9: return "6-node second-order triangle";
    case 10: return "9-node second-order quadrangle";
    case 11: return "10-node second-order tetrahedron";
    case 15: return "1-node point";
    case 16: return "8-node second-order quadrangle";
    case 20: return "9-node cubic triangle";
    case 21: return "10-node cubic triangle";
    case 26: return "4-node cubic line";
    }
    return "unknown type";
}

static hdg_status unsupported(scanner *s, int type)
{
    return hdg_fail(s->err, HDG_EINPUT,
                    "%s:%d: unsupported element type %d (%s); hdgc supports 3-node triangles "
                    "(with 2-node lines and points for tags)",
                    s->path, s->tokline, type, type_name(type));
}

/* ---------------------------------------------------------------- sections */

static hdg_status read_format(scanner *s, msh *d)
{
    char b[64];
    if (!next(s)) return truncated(s);
    tok_str(s, b, sizeof b);
    if (b[0] == '2' && (b[1] == '\0' || b[1] == '.')) d->version = 2;
    else if (!strcmp(b, "4.1")) d->version = 41;
    else
        return hdg_fail(s->err, HDG_EINPUT, "%s:%d: unsupported Gmsh format version %s; hdgc reads 2.2 and 4.1 ASCII",
                        s->path, s->tokline, b);
    int filetype, datasize;
    hdg_status st = read_int(s, &filetype, 0, 1, "file type (0 ASCII, 1 binary)");
    if (st) return st;
    if (filetype == 1)
        return hdg_fail(s->err, HDG_EINPUT,
                        "%s:%d: binary Gmsh file; hdgc reads ASCII .msh only (save it from Gmsh with "
                        "Mesh.Binary = 0)",
                        s->path, s->tokline);
    if ((st = read_int(s, &datasize, 1, 64, "data size"))) return st;
    return expect_end(s);
}

/* dim tag "name" — the name runs to the closing quote on the same line. */
static hdg_status read_physical_names(scanner *s, msh *d)
{
    int n;
    hdg_status st = read_int(s, &n, 0, 1 << 30, "number of physical names");
    for (int i = 0; !st && i < n; i++) {
        int dim, tag;
        if ((st = read_int(s, &dim, 0, 3, "physical dimension"))) break;
        if ((st = read_int(s, &tag, -MAX_PHYSICAL_TAG, MAX_PHYSICAL_TAG, "physical tag"))) break;
        while (s->p < s->end && (*s->p == ' ' || *s->p == '\t')) s->p++;
        const char *a = s->p, *b;
        if (s->p < s->end && *s->p == '"') {
            a = ++s->p;
            while (s->p < s->end && *s->p != '"' && *s->p != '\n') s->p++;
            if (s->p >= s->end || *s->p != '"')
                return hdg_fail(s->err, HDG_EINPUT, "%s:%d: physical name without closing quote", s->path, s->line);
            b = s->p++;
        } else {
            if (!next(s)) return truncated(s);
            a = s->tok, b = s->tok + s->toklen;
        }
        if (dim == 1 && tag > 0) {
            char *name = hdg_xmalloc((size_t)(b - a) + 1);
            memcpy(name, a, (size_t)(b - a));
            name[b - a] = '\0';
            hdg_mesh_set_marker_name(d->m, tag, name);
            free(name);
        }
    }
    return st ? st : expect_end(s);
}

/* First physical tag of an entity (0 if none); skips the rest. */
static hdg_status read_entity_phys(scanner *s, int *phys)
{
    int np, t;
    hdg_status st = read_int(s, &np, 0, 1 << 20, "number of physical tags");
    *phys = 0;
    for (int k = 0; !st && k < np; k++) {
        st = read_int(s, &t, -MAX_PHYSICAL_TAG, MAX_PHYSICAL_TAG, "physical tag");
        if (!st && k == 0) *phys = t;
    }
    return st;
}

static int cmp_entity(const void *a, const void *b)
{
    const entity *x = a, *y = b;
    if (x->tag != y->tag) return x->tag < y->tag ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

static hdg_status read_entities(scanner *s, msh *d)
{
    int count[4];
    double x;
    long long t;
    hdg_status st = HDG_OK;
    for (int k = 0; !st && k < 4; k++) st = read_int(s, &count[k], 0, 1 << 30, "number of entities");
    for (int dim = 0; !st && dim < 4; dim++)
        for (int i = 0; !st && i < count[dim]; i++) {
            int tag, phys, nb;
            if ((st = read_int(s, &tag, -(1LL << 31) + 1, (1LL << 31) - 1, "entity tag"))) break;
            for (int k = 0; !st && k < (dim == 0 ? 3 : 6); k++) st = read_double(s, &x, "entity coordinate");
            if (st || (st = read_entity_phys(s, &phys))) break;
            if (dim == 1) {
                entity *c = PUSH(d->curves, d->nc, d->ccurve);
                c->tag = tag, c->phys = phys, c->i = d->nc - 1;
            }
            if (dim == 0) continue;
            if ((st = read_int(s, &nb, 0, 1 << 30, "number of bounding entities"))) break;
            for (int k = 0; !st && k < nb; k++) st = read_ll(s, &t, "bounding entity tag");
        }
    if (st) return st;
    if (d->nc > 1) qsort(d->curves, (size_t)d->nc, sizeof *d->curves, cmp_entity); /* for curve_phys */
    return expect_end(s);
}

static hdg_status add_node(scanner *s, msh *d, long long tag, double x, double y, double z, int line)
{
    if (!d->have_z) d->z0 = z, d->z0line = line, d->have_z = 1;
    double tol = 1e-12 * (fabs(x) + fabs(y) + fabs(z) + fabs(d->z0));
    if (fabs(z - d->z0) > tol)
        return hdg_fail(s->err, HDG_EINPUT,
                        "%s:%d: node %lld has z = %g but the node at line %d has z = %g; hdgc meshes are "
                        "planar (all z equal)",
                        s->path, line, tag, z, d->z0line, d->z0);
    node *n = PUSH(d->nodes, d->nn, d->cnode);
    n->tag = tag, n->x = x, n->y = y, n->line = line;
    return HDG_OK;
}

static hdg_status read_nodes2(scanner *s, msh *d)
{
    int n;
    hdg_status st = read_int(s, &n, 0, 1 << 30, "number of nodes");
    for (int i = 0; !st && i < n; i++) {
        long long tag;
        double x, y, z;
        if ((st = read_ll(s, &tag, "node tag"))) break;
        int line = s->tokline;
        if ((st = read_double(s, &x, "node x coordinate")) || (st = read_double(s, &y, "node y coordinate")) ||
            (st = read_double(s, &z, "node z coordinate")))
            break;
        st = add_node(s, d, tag, x, y, z, line);
    }
    return st ? st : expect_end(s);
}

static hdg_status read_nodes41(scanner *s, msh *d)
{
    int nblocks, total;
    long long lo, hi;
    hdg_status st;
    if ((st = read_int(s, &nblocks, 0, 1 << 30, "number of node blocks")) ||
        (st = read_int(s, &total, 0, 1 << 30, "number of nodes")) || (st = read_ll(s, &lo, "minimum node tag")) ||
        (st = read_ll(s, &hi, "maximum node tag")))
        return st;
    int seen = 0;
    long long *tags = NULL;
    for (int b = 0; !st && b < nblocks; b++) {
        int dim, etag, param, n;
        if ((st = read_int(s, &dim, 0, 3, "entity dimension")) ||
            (st = read_int(s, &etag, -(1LL << 31) + 1, (1LL << 31) - 1, "entity tag")) ||
            (st = read_int(s, &param, 0, 1, "parametric flag")) ||
            (st = read_int(s, &n, 0, 1 << 30, "number of nodes in block")))
            break;
        if ((size_t)n > (size_t)(s->end - s->p) / 2) { /* each tag takes 2 bytes at least */
            free(tags);
            return hdg_fail(s->err, HDG_EINPUT, "%s:%d: node block announces %d nodes, more than the file holds",
                            s->path, s->tokline, n);
        }
        tags = hdg_xrealloc(tags, (size_t)(n ? n : 1) * sizeof *tags);
        for (int i = 0; !st && i < n; i++) st = read_ll(s, &tags[i], "node tag");
        for (int i = 0; !st && i < n; i++) {
            double c[6];
            int nc = 3 + (param ? dim : 0);
            static const char *what[] = {"node x coordinate", "node y coordinate", "node z coordinate",
                                         "parametric coordinate"};
            int line = 0;
            for (int k = 0; !st && k < nc; k++) {
                st = read_double(s, &c[k], what[k < 3 ? k : 3]);
                if (k == 0) line = s->tokline;
            }
            if (!st) st = add_node(s, d, tags[i], c[0], c[1], c[2], line);
        }
        seen += n;
    }
    free(tags);
    if (st) return st;
    if (seen != total)
        return hdg_fail(s->err, HDG_EINPUT, "%s:%d: $Nodes header announces %d nodes, the blocks hold %d", s->path,
                        s->tokline, total, seen);
    return expect_end(s);
}

/* Element with `type` whose node tags follow in the stream. */
static hdg_status read_element_nodes(scanner *s, msh *d, int type, int phys, int line)
{
    hdg_status st = HDG_OK;
    long long n[3];
    if (type == 15) return read_ll(s, &n[0], "node tag of a point element");
    if (type == 1) {
        for (int k = 0; !st && k < 2; k++) st = read_ll(s, &n[k], "node tag of a line element");
        if (st) return st;
        seg *g = PUSH(d->segs, d->ns, d->cseg);
        g->n[0] = n[0], g->n[1] = n[1], g->phys = phys, g->line = line;
        return HDG_OK;
    }
    for (int k = 0; !st && k < 3; k++) st = read_ll(s, &n[k], "node tag of a triangle");
    if (st) return st;
    tri *t = PUSH(d->tris, d->nt, d->ctri);
    memcpy(t->n, n, sizeof n), t->line = line;
    return HDG_OK;
}

static int supported(int type) { return type == 1 || type == 2 || type == 15; }

static hdg_status read_elements2(scanner *s, msh *d)
{
    int n;
    hdg_status st = read_int(s, &n, 0, 1 << 30, "number of elements");
    for (int i = 0; !st && i < n; i++) {
        long long tag;
        int type, ntags, phys = 0, t;
        if ((st = read_ll(s, &tag, "element tag"))) break;
        int line = s->tokline;
        if ((st = read_int(s, &type, 0, 1 << 20, "element type"))) break;
        if (!supported(type)) return unsupported(s, type);
        if ((st = read_int(s, &ntags, 0, 1 << 20, "number of element tags"))) break;
        for (int k = 0; !st && k < ntags; k++) {
            st = read_int(s, &t, -(1LL << 31) + 1, (1LL << 31) - 1, "element tag");
            if (!st && k == 0) phys = t;
        }
        if (!st) st = read_element_nodes(s, d, type, phys, line);
    }
    return st ? st : expect_end(s);
}

/* Physical tag of curve `tag` (the first one in the file with that tag), 0 if
 * none; d->curves is sorted (bisection: one block per curve made it quadratic). */
static int curve_phys(const msh *d, int tag)
{
    int lo = 0, hi = d->nc;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (d->curves[mid].tag < tag) lo = mid + 1;
        else hi = mid;
    }
    return lo < d->nc && d->curves[lo].tag == tag ? d->curves[lo].phys : 0;
}

static hdg_status read_elements41(scanner *s, msh *d)
{
    int nblocks, total;
    long long lo, hi, etag;
    hdg_status st;
    if ((st = read_int(s, &nblocks, 0, 1 << 30, "number of element blocks")) ||
        (st = read_int(s, &total, 0, 1 << 30, "number of elements")) ||
        (st = read_ll(s, &lo, "minimum element tag")) || (st = read_ll(s, &hi, "maximum element tag")))
        return st;
    int seen = 0;
    for (int b = 0; !st && b < nblocks; b++) {
        int dim, ent, type, n;
        if ((st = read_int(s, &dim, 0, 3, "entity dimension")) ||
            (st = read_int(s, &ent, -(1LL << 31) + 1, (1LL << 31) - 1, "entity tag")) ||
            (st = read_int(s, &type, 0, 1 << 20, "element type")))
            break;
        if (!supported(type)) return unsupported(s, type);
        if ((st = read_int(s, &n, 0, 1 << 30, "number of elements in block"))) break;
        int phys = type == 1 && dim == 1 ? curve_phys(d, ent) : 0;
        for (int i = 0; !st && i < n; i++) {
            if ((st = read_ll(s, &etag, "element tag"))) break;
            st = read_element_nodes(s, d, type, phys, s->tokline);
        }
        seen += n;
    }
    if (st) return st;
    if (seen != total)
        return hdg_fail(s->err, HDG_EINPUT, "%s:%d: $Elements header announces %d elements, the blocks hold %d",
                        s->path, s->tokline, total, seen);
    return expect_end(s);
}

/* Skips an unknown section up to its $End line. */
static hdg_status skip_section(scanner *s)
{
    char want[256];
    snprintf(want, sizeof want, "$End%s", s->section);
    while (next(s))
        if (tok_is(s, want)) return HDG_OK;
    return truncated(s);
}

static hdg_status read_sections(scanner *s, msh *d)
{
    char name[200];
    if (!next(s)) return hdg_fail(s->err, HDG_EINPUT, "%s: empty file, not a Gmsh .msh mesh", s->path);
    if (!tok_is(s, "$MeshFormat"))
        return hdg_fail(s->err, HDG_EINPUT, "%s:%d: not a Gmsh .msh file (it must start with $MeshFormat)", s->path,
                        s->tokline);
    s->section = "MeshFormat";
    hdg_status st = read_format(s, d);
    while (!st && next(s)) {
        if (s->tok[0] != '$' || s->toklen < 2)
            return hdg_fail(s->err, HDG_EINPUT, "%s:%d: expected a section header ($Name), found '%s'", s->path,
                            s->tokline, tok_str(s, name, sizeof name));
        tok_str(s, name, sizeof name);
        s->section = name + 1;
        int hdr = s->tokline;
        if (!strcmp(name, "$PhysicalNames")) st = read_physical_names(s, d);
        else if (!strcmp(name, "$Entities") && d->version == 41) st = read_entities(s, d);
        else if (!strcmp(name, "$Nodes") || !strcmp(name, "$Elements")) {
            int *have = name[1] == 'N' ? &d->have_nodes : &d->have_elements;
            if (*have)
                return hdg_fail(s->err, HDG_EINPUT, "%s:%d: second %s section (hdgc reads one)", s->path, hdr, name);
            *have = 1;
            if (name[1] == 'N') st = d->version == 41 ? read_nodes41(s, d) : read_nodes2(s, d);
            else st = d->version == 41 ? read_elements41(s, d) : read_elements2(s, d);
        } else
            st = skip_section(s);
        s->section = NULL;
    }
    if (st) return st;
    if (!d->have_nodes) return hdg_fail(s->err, HDG_EINPUT, "%s: no $Nodes section", s->path);
    if (!d->have_elements) return hdg_fail(s->err, HDG_EINPUT, "%s: no $Elements section", s->path);
    if (!d->nt) return hdg_fail(s->err, HDG_EINPUT, "%s: no triangles (element type 2) in the mesh", s->path);
    return HDG_OK;
}

/* -------------------------------------------------------- build the mesh */

typedef struct tag_index { long long tag; int i; } tag_index;

static int cmp_tag_index(const void *a, const void *b)
{
    const tag_index *x = a, *y = b;
    if (x->tag != y->tag) return x->tag < y->tag ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

/* Index into d->nodes of a tag (order: nodes sorted by tag), or -1. */
static int find_node(const msh *d, const tag_index *order, long long tag)
{
    int lo = 0, hi = d->nn - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (order[mid].tag == tag) return order[mid].i;
        if (order[mid].tag < tag) lo = mid + 1;
        else hi = mid - 1;
    }
    return -1;
}

static hdg_status to_mesh(const char *path, msh *d, hdg_mesh *m, hdg_error *err)
{
    tag_index *order = hdg_xmalloc((size_t)(d->nn ? d->nn : 1) * sizeof *order);
    int *vid = hdg_xmalloc((size_t)(d->nn ? d->nn : 1) * sizeof(int));
    hdg_status st = HDG_OK;
    for (int i = 0; i < d->nn; i++) order[i].tag = d->nodes[i].tag, order[i].i = i, vid[i] = -1;
    qsort(order, (size_t)d->nn, sizeof *order, cmp_tag_index);
    for (int i = 1; i < d->nn; i++)
        if (order[i].tag == order[i - 1].tag) {
            st = hdg_fail(err, HDG_EINPUT, "%s:%d: node tag %lld is defined twice (first at line %d)", path,
                          d->nodes[order[i].i].line, order[i].tag, d->nodes[order[i - 1].i].line);
            goto done;
        }
    /* triangles: map tags, mark the nodes they use */
    m->ne = d->nt;
    m->ev = hdg_xmalloc((size_t)3 * m->ne * sizeof(int));
    m->eline = hdg_xmalloc((size_t)m->ne * sizeof(int));
    for (int e = 0; e < d->nt; e++) {
        m->eline[e] = d->tris[e].line;
        for (int k = 0; k < 3; k++) {
            int i = find_node(d, order, d->tris[e].n[k]);
            if (i < 0) {
                st = hdg_fail(err, HDG_EINPUT, "%s:%d: element refers to node %lld, which $Nodes does not define",
                              path, d->tris[e].line, d->tris[e].n[k]);
                goto done;
            }
            m->ev[3 * e + k] = i;
            vid[i] = 0;
        }
    }
    for (int i = 0; i < d->nn; i++)
        if (vid[i] == 0) vid[i] = m->nv++;
    m->vx = hdg_xmalloc((size_t)m->nv * sizeof(double));
    m->vy = hdg_xmalloc((size_t)m->nv * sizeof(double));
    m->vtag = hdg_xmalloc((size_t)m->nv * sizeof(long long));
    for (int i = 0; i < d->nn; i++)
        if (vid[i] >= 0) m->vx[vid[i]] = d->nodes[i].x, m->vy[vid[i]] = d->nodes[i].y, m->vtag[vid[i]] = d->nodes[i].tag;
    for (int k = 0; k < 3 * m->ne; k++) m->ev[k] = vid[m->ev[k]];
    /* tagged lines */
    m->tag = hdg_xmalloc((size_t)4 * (d->ns ? d->ns : 1) * sizeof(int));
    for (int l = 0; l < d->ns; l++) {
        const seg *g = &d->segs[l];
        int v[2];
        for (int k = 0; k < 2; k++) {
            int i = find_node(d, order, g->n[k]);
            if (i < 0) {
                st = hdg_fail(err, HDG_EINPUT, "%s:%d: element refers to node %lld, which $Nodes does not define",
                              path, g->line, g->n[k]);
                goto done;
            }
            v[k] = vid[i];
        }
        if (g->phys == 0) continue; /* no physical group: untagged */
        if (g->phys < 0) {
            st = hdg_fail(err, HDG_EINPUT, "%s:%d: negative physical tag %d on a line element", path, g->line, g->phys);
            goto done;
        }
        if (g->phys > MAX_PHYSICAL_TAG) {
            st = hdg_fail(err, HDG_EINPUT, "%s:%d: physical tag %d is too large (at most %d)", path, g->line, g->phys,
                          MAX_PHYSICAL_TAG);
            goto done;
        }
        if (v[0] < 0 || v[1] < 0) {
            st = hdg_fail(err, HDG_EINPUT,
                          "%s:%d: boundary line element joins nodes %lld and %lld, which is not an edge of any "
                          "triangle",
                          path, g->line, g->n[0], g->n[1]);
            goto done;
        }
        int *t = m->tag + 4 * m->ntag++;
        t[0] = v[0], t[1] = v[1], t[2] = g->phys, t[3] = g->line;
    }
done:
    free(order), free(vid);
    return st;
}

hdg_status hdg_mesh_read_gmsh_buffer(hdg_mesh *m, const char *name, const char *data, size_t len, hdg_error *err)
{
    memset(m, 0, sizeof *m);
    scanner s = {name, data, data + len, 1, 1, data, 0, NULL, err};
    msh d;
    memset(&d, 0, sizeof d);
    d.m = m;
    hdg_status st = read_sections(&s, &d);
    if (!st) {
        m->source = hdg_xstrdup(name);
        st = to_mesh(name, &d, m, err);
    }
    msh_free(&d);
    if (!st) st = hdg_mesh_build_topology(m, err);
    if (st) hdg_mesh_free(m);
    return st;
}

hdg_status hdg_mesh_read_gmsh(hdg_mesh *m, const char *path, hdg_error *err)
{
    memset(m, 0, sizeof *m);
    char *data;
    size_t len;
    hdg_status st = hdg_read_file(path, &data, &len, err);
    if (st) return st;
    st = hdg_mesh_read_gmsh_buffer(m, path, data, len, err);
    free(data);
    return st;
}
