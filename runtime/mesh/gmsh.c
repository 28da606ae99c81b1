/* gmsh.c — reader for Gmsh .msh files, format 2.2 and 4.1 ASCII (see mesh.h).
 *
 * The file is read whole and scanned token by token (whitespace separated,
 * line numbers tracked). Sections read: $MeshFormat, $PhysicalNames, $Entities
 * (4.1: physical tags of curves), $Nodes, $Elements; every other section is
 * skipped. Kept: 4-node tetrahedra (type 4), 3-node triangles (type 2) and 2-node
 * lines (type 1); points (type 15) are ignored and any other element type is an
 * error. The mesh's dimension is the highest element dimension present: with
 * tetrahedra, they are the elements and the triangles' physical tags the boundary
 * markers (names from $PhysicalNames of dimension 2; lines ignored); without, the
 * triangles are the elements and the lines' physical tags the markers (names of
 * dimension 1). Only nodes used by elements become mesh vertices, in file order. */
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

typedef struct node { long long tag; double x, y, z; int line; } node;
typedef struct tri { long long n[3]; int phys, line; } tri;
typedef struct tet { long long n[4]; int line; } tet;
typedef struct seg { long long n[2]; int phys, line; } seg;
typedef struct pname { int dim, tag; char *name; } pname;
typedef struct entity { int tag, phys, i; } entity; /* i: order in the file */

typedef struct msh {
    int version;                 /* 2 (2.x) or 41 */
    node *nodes; int nn, cnode;
    tri *tris; int nt, ctri;
    tet *tets; int ntet, ctet;
    seg *segs; int ns, cseg;
    entity *curves; int nc, ccurve;
    entity *surfs; int nsf, csurf;
    pname *names; int nnames, cname;   /* $PhysicalNames of dimensions 1 and 2 */
    int have_nodes, have_elements;
} msh;

#define PUSH(arr, n, cap)                                                               \
    ((n) == (cap) ? ((cap) = (cap) ? 2 * (cap) : 64,                                   \
                     (arr) = hdg_xrealloc((arr), (size_t)(cap) * sizeof *(arr))) : 0, \
     &(arr)[(n)++])

static void msh_free(msh *d)
{
    for (int i = 0; i < d->nnames; i++) free(d->names[i].name);
    free(d->nodes), free(d->tris), free(d->tets), free(d->segs), free(d->curves), free(d->surfs), free(d->names);
}

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
                    "%s:%d: unsupported element type %d (%s); hdgc supports 3-node triangles and "
                    "4-node tetrahedra (with 2-node lines, 3-node triangles and points for tags)",
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
        if ((dim == 1 || dim == 2) && tag > 0) {   /* applied once the mesh's dimension is known */
            pname *pn = PUSH(d->names, d->nnames, d->cname);
            pn->dim = dim, pn->tag = tag, pn->name = hdg_xmalloc((size_t)(b - a) + 1);
            memcpy(pn->name, a, (size_t)(b - a));
            pn->name[b - a] = '\0';
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
            if (dim == 2) {
                entity *c = PUSH(d->surfs, d->nsf, d->csurf);
                c->tag = tag, c->phys = phys, c->i = d->nsf - 1;
            }
            if (dim == 0) continue;
            if ((st = read_int(s, &nb, 0, 1 << 30, "number of bounding entities"))) break;
            for (int k = 0; !st && k < nb; k++) st = read_ll(s, &t, "bounding entity tag");
        }
    if (st) return st;
    if (d->nc > 1) qsort(d->curves, (size_t)d->nc, sizeof *d->curves, cmp_entity); /* for entity_phys */
    if (d->nsf > 1) qsort(d->surfs, (size_t)d->nsf, sizeof *d->surfs, cmp_entity);
    return expect_end(s);
}

static hdg_status add_node(scanner *s, msh *d, long long tag, double x, double y, double z, int line)
{
    (void)s;
    node *n = PUSH(d->nodes, d->nn, d->cnode);
    n->tag = tag, n->x = x, n->y = y, n->z = z, n->line = line;
    return HDG_OK;
}

/* A mesh of triangles is planar: every node has the first node's z. */
static hdg_status check_planar(const char *path, const msh *d, hdg_error *err)
{
    for (int i = 1; i < d->nn; i++) {
        const node *a = &d->nodes[0], *n = &d->nodes[i];
        double tol = 1e-12 * (fabs(n->x) + fabs(n->y) + fabs(n->z) + fabs(a->z));
        if (fabs(n->z - a->z) > tol)
            return hdg_fail(err, HDG_EINPUT,
                            "%s:%d: node %lld has z = %g but the node at line %d has z = %g; hdgc triangle meshes "
                            "are planar (all z equal; a 3D mesh needs 4-node tetrahedra)",
                            path, n->line, n->tag, n->z, a->line, a->z);
    }
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
    if (type == 4) {
        long long q[4];
        for (int k = 0; !st && k < 4; k++) st = read_ll(s, &q[k], "node tag of a tetrahedron");
        if (st) return st;
        tet *t = PUSH(d->tets, d->ntet, d->ctet);
        memcpy(t->n, q, sizeof q), t->line = line;
        return HDG_OK;
    }
    for (int k = 0; !st && k < 3; k++) st = read_ll(s, &n[k], "node tag of a triangle");
    if (st) return st;
    tri *t = PUSH(d->tris, d->nt, d->ctri);
    memcpy(t->n, n, sizeof n), t->phys = phys, t->line = line;
    return HDG_OK;
}

static int supported(int type) { return type == 1 || type == 2 || type == 4 || type == 15; }

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

/* Physical tag of entity `tag` among the n sorted entities E (the first one in the
 * file with that tag), 0 if none (bisection: one block per curve made it quadratic). */
static int entity_phys(const entity *E, int n, int tag)
{
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (E[mid].tag < tag) lo = mid + 1;
        else hi = mid;
    }
    return lo < n && E[lo].tag == tag ? E[lo].phys : 0;
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
        int phys = type == 1 && dim == 1 ? entity_phys(d->curves, d->nc, ent)
                 : type == 2 && dim == 2 ? entity_phys(d->surfs, d->nsf, ent) : 0;
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
    if (!d->nt && !d->ntet)
        return hdg_fail(s->err, HDG_EINPUT, "%s: no triangles (element type 2) or tetrahedra (type 4) in the mesh",
                        s->path);
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

/* Mesh vertex of node tag n (an element's, so it exists) or -1 with err set. */
static int vertex_of(const char *path, const msh *d, const tag_index *order, long long n, int line, hdg_error *err)
{
    int i = find_node(d, order, n);
    if (i < 0)
        hdg_fail(err, HDG_EINPUT, "%s:%d: element refers to node %lld, which $Nodes does not define", path, line, n);
    return i;
}

/* The elements (tetrahedra, else triangles): ev as node indices, eline; vid[i] = 0 for
 * the nodes they use. */
static hdg_status read_cells(const char *path, const msh *d, const tag_index *order, int *vid, hdg_mesh *m,
                             hdg_error *err)
{
    int n = m->dim + 1;
    m->ne = m->dim == 3 ? d->ntet : d->nt;
    m->ev = hdg_xmalloc((size_t)n * m->ne * sizeof(int));
    m->eline = hdg_xmalloc((size_t)m->ne * sizeof(int));
    for (int e = 0; e < m->ne; e++) {
        const long long *tags = m->dim == 3 ? d->tets[e].n : d->tris[e].n;
        m->eline[e] = m->dim == 3 ? d->tets[e].line : d->tris[e].line;
        for (int k = 0; k < n; k++) {
            int i = vertex_of(path, d, order, tags[k], m->eline[e], err);
            if (i < 0) return HDG_EINPUT;
            m->ev[n * e + k] = i;
            vid[i] = 0;
        }
    }
    return HDG_OK;
}

/* A physical tag on a boundary element: > 0 and not too large. */
static hdg_status check_phys(const char *path, int phys, int line, const char *what, hdg_error *err)
{
    if (phys < 0)
        return hdg_fail(err, HDG_EINPUT, "%s:%d: negative physical tag %d on a %s element", path, line, phys, what);
    if (phys > MAX_PHYSICAL_TAG)
        return hdg_fail(err, HDG_EINPUT, "%s:%d: physical tag %d is too large (at most %d)", path, line, phys,
                        MAX_PHYSICAL_TAG);
    return HDG_OK;
}

/* The boundary elements with a physical tag (lines of a triangle mesh, triangles of a
 * tetrahedral one) as dim+2-int tags. */
static hdg_status read_tags(const char *path, const msh *d, const tag_index *order, const int *vid, hdg_mesh *m,
                            hdg_error *err)
{
    int dim = m->dim, nb = dim == 3 ? d->nt : d->ns;
    m->tag = hdg_xmalloc((size_t)(dim + 2) * (nb ? nb : 1) * sizeof(int));
    for (int l = 0; l < nb; l++) {
        const long long *tags = dim == 3 ? d->tris[l].n : d->segs[l].n;
        int phys = dim == 3 ? d->tris[l].phys : d->segs[l].phys, line = dim == 3 ? d->tris[l].line : d->segs[l].line;
        int v[3], missing = 0;
        for (int k = 0; k < dim; k++) {
            int i = vertex_of(path, d, order, tags[k], line, err);
            if (i < 0) return HDG_EINPUT;
            v[k] = vid[i], missing |= v[k] < 0;
        }
        if (phys == 0) continue; /* no physical group: untagged */
        hdg_status st = check_phys(path, phys, line, dim == 3 ? "triangle" : "line", err);
        if (st) return st;
        if (missing && dim == 3)
            return hdg_fail(err, HDG_EINPUT,
                            "%s:%d: boundary triangle element on nodes %lld, %lld and %lld is not a face of any "
                            "tetrahedron",
                            path, line, tags[0], tags[1], tags[2]);
        if (missing)
            return hdg_fail(err, HDG_EINPUT,
                            "%s:%d: boundary line element joins nodes %lld and %lld, which is not an edge of any "
                            "triangle",
                            path, line, tags[0], tags[1]);
        int *t = m->tag + (dim + 2) * m->ntag++;
        for (int k = 0; k < dim; k++) t[k] = v[k];
        t[dim] = phys, t[dim + 1] = line;
    }
    return HDG_OK;
}

static hdg_status to_mesh(const char *path, msh *d, hdg_mesh *m, hdg_error *err)
{
    m->dim = d->ntet ? 3 : 2;
    for (int i = 0; i < d->nnames; i++)   /* the names of the boundary's dimension, in file order */
        if (d->names[i].dim == m->dim - 1) hdg_mesh_set_marker_name(m, d->names[i].tag, d->names[i].name);
    tag_index *order = hdg_xmalloc((size_t)(d->nn ? d->nn : 1) * sizeof *order);
    int *vid = hdg_xmalloc((size_t)(d->nn ? d->nn : 1) * sizeof(int));
    hdg_status st = m->dim == 2 ? check_planar(path, d, err) : HDG_OK;
    for (int i = 0; i < d->nn; i++) order[i].tag = d->nodes[i].tag, order[i].i = i, vid[i] = -1;
    qsort(order, (size_t)d->nn, sizeof *order, cmp_tag_index);
    for (int i = 1; i < d->nn && !st; i++)
        if (order[i].tag == order[i - 1].tag)
            st = hdg_fail(err, HDG_EINPUT, "%s:%d: node tag %lld is defined twice (first at line %d)", path,
                          d->nodes[order[i].i].line, order[i].tag, d->nodes[order[i - 1].i].line);
    if (!st) st = read_cells(path, d, order, vid, m, err);
    if (!st) {
        for (int i = 0; i < d->nn; i++)
            if (vid[i] == 0) vid[i] = m->nv++;
        m->vx = hdg_xmalloc((size_t)m->nv * sizeof(double));
        m->vy = hdg_xmalloc((size_t)m->nv * sizeof(double));
        if (m->dim == 3) m->vz = hdg_xmalloc((size_t)m->nv * sizeof(double));
        m->vtag = hdg_xmalloc((size_t)m->nv * sizeof(long long));
        for (int i = 0; i < d->nn; i++) {
            if (vid[i] < 0) continue;
            m->vx[vid[i]] = d->nodes[i].x, m->vy[vid[i]] = d->nodes[i].y, m->vtag[vid[i]] = d->nodes[i].tag;
            if (m->vz) m->vz[vid[i]] = d->nodes[i].z;
        }
        for (int k = 0; k < (m->dim + 1) * m->ne; k++) m->ev[k] = vid[m->ev[k]];
        st = read_tags(path, d, order, vid, m, err);
    }
    free(order), free(vid);
    return st;
}

hdg_status hdg_mesh_read_gmsh_buffer(hdg_mesh *m, const char *name, const char *data, size_t len, hdg_error *err)
{
    memset(m, 0, sizeof *m);
    scanner s = {name, data, data + len, 1, 1, data, 0, NULL, err};
    msh d;
    memset(&d, 0, sizeof d);
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
