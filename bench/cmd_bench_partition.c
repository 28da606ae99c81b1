/* cmd_bench_partition.c — `hdgc bench partition`: the partitions an mpirun
 * job would use (issue 16), measured without running it. The mesh is
 * partitioned into P parts for each P of --parts (hdg_mesh_partition:
 * METIS, serially) and the communication the
 * distributed solvers would do is counted from the real partition:
 *
 *   HDG  the trace vector's halo in the distributed matrix product (MPIAIJ,
 *        one row per face, owned by the rank of the face's first element, as
 *        runtime/parallel/mesh_dist.h numbers them): the faces a rank's rows couple to
 *        (fnbr) that another rank owns, each k+1 values of 8 bytes, received
 *        once per Krylov iteration; next to it the face-only figure
 *        (interface faces x (k+1) x 8);
 *   DG   the ghost elements of one layer of face neighbours, whose whole
 *        states the implementation exchanges every LSERK4 stage:
 *        (k+1)(k+2)/2 x fields x 8 bytes each; next to it the face-only
 *        figure (interface faces x (k+1) x fields x 8).
 *
 * Per P: min/mean/max elements per part (imbalance = max/mean), interface
 * faces per part, neighbour parts, those volumes (the largest rank's, in
 * bytes received) and the partition time. Exit 0, 1 on an error, 2 for bad
 * usage. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "runtime/mesh/mesh.h"
#include "runtime/parallel/mesh_dist.h"
#include "runtime/output/report.h"
#include "support/util.h"

#define MAX_PARTS 64

typedef struct options {
    const char *mesh, *json;
    int order, fields, nparts;
    int parts[MAX_PARTS];
} options;

/* min, mean, max of n ints. */
typedef struct spread {
    double min, mean, max;
} spread;

/* The figures of one partition. */
typedef struct stats {
    int P;
    double seconds;
    spread elem, iface, nbr, hdg_ghost, dg_ghost, hdg_nbr;
} stats;

static void usage(FILE *f)
{
    fprintf(f, "usage: hdgc bench partition [--mesh SPEC] [--parts P1,P2,...] [--order k]\n"
               "                           [--fields n] [--json F]\n");
}

static void help(void)
{
    usage(stdout);
    printf("\n"
           "Partitions the mesh into P parts for each P, as `mpirun -np P hdgc run` would\n"
           "(METIS k-way on the element graph, fixed seed; no mpirun needed),\n"
           "and prints per P what each rank would hold and exchange:\n"
           "  elements     min / mean / max per part, and the imbalance max/mean\n"
           "  iface        faces between a part's elements and another part's, min/mean/max\n"
           "  nbr          neighbour parts (sharing a face), mean / max\n"
           "  HDG halo     per Krylov iteration, the largest rank's: trace values it needs\n"
           "               from other ranks for the distributed matrix product (faces its\n"
           "               rows couple to that another rank owns, x (k+1) x 8 bytes) and its\n"
           "               matrix neighbours; 'face' is interface faces x (k+1) x 8\n"
           "  DG halo      per LSERK4 stage, the largest rank's: ghost elements (one layer)\n"
           "               x (k+1)(k+2)/2 x fields x 8 bytes (whole states, as exchanged);\n"
           "               'face' is interface faces x (k+1) x fields x 8\n"
           "  seconds      the partitioner's time\n"
           "\n"
           "options:\n"
           "  --mesh SPEC      as for hdgc run (default square:256)\n"
           "  --parts LIST     comma-separated part counts, 1..65536 (default\n"
           "                   2,4,8,16,32,64,128,256,512,1024), at most %d\n"
           "  --order k        polynomial degree, 1..16 (default 3)\n"
           "  --fields n       DG fields per element (default 3: Maxwell TE)\n"
           "  --json F         also write the figures to F (partition.P<p>.*)\n",
           MAX_PARTS);
}

static int bad(const char *fmt, const char *arg) { return hdg_bench_bad("bench partition", usage, fmt, arg); }

static int parse_parts(const char *s, options *o)
{
    o->nparts = 0;
    for (const char *c = s; *c;) {
        char num[16];
        size_t n = strcspn(c, ",");
        long v;
        if (n == 0 || n >= sizeof num || o->nparts == MAX_PARTS) return 0;
        memcpy(num, c, n), num[n] = '\0';
        if (!hdg_parse_long(num, 1, 65536, &v)) return 0;
        o->parts[o->nparts++] = (int)v;
        c += n + (c[n] == ',');
    }
    return o->nparts > 0;
}

/* -1: go on; else the exit status. */
static int parse(int argc, char **argv, options *o)
{
    *o = (options){.mesh = "square:256", .order = 3, .fields = 3};
    parse_parts("2,4,8,16,32,64,128,256,512,1024", o);
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        long r;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            help();
            return 0;
        }
        if (!v) return bad("option %s needs a value", a);
        i++;
        if (!strcmp(a, "--mesh")) o->mesh = v;
        else if (!strcmp(a, "--json")) o->json = v;
        else if (!strcmp(a, "--parts")) {
            if (!parse_parts(v, o)) return bad("--parts needs counts 1..65536 separated by commas, not '%s'", v);
        } else if (!strcmp(a, "--order")) {
            if (!hdg_parse_long(v, 1, 16, &r)) return bad("--order needs an integer 1..16, not '%s'", v);
            o->order = (int)r;
        } else if (!strcmp(a, "--fields")) {
            if (!hdg_parse_long(v, 1, 64, &r)) return bad("--fields needs an integer 1..64, not '%s'", v);
            o->fields = (int)r;
        } else return bad("unknown option '%s'", a);
    }
    return hdg_cli_check_output("bench partition", "--json", o->json, NULL) ? 2 : -1;
}

static spread spread_of(const int *x, int n)
{
    spread s = {x[0], 0, x[0]};
    for (int i = 0; i < n; i++) {
        s.min = x[i] < s.min ? x[i] : s.min;
        s.max = x[i] > s.max ? x[i] : s.max;
        s.mean += x[i];
    }
    s.mean /= n;
    return s;
}

static int cmp_ll(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

/* Sorts n keys part * span + item and counts the distinct items per part;
 * frees keys. */
static void count_distinct(long long *keys, size_t n, long long span, int *count)
{
    qsort(keys, n, sizeof *keys, cmp_ll);
    for (size_t i = 0; i < n; i++)
        if (i == 0 || keys[i] != keys[i - 1]) count[keys[i] / span]++;
    free(keys);
}

/* DG: the distinct elements of other parts adjacent to each part's (ghosts). */
static void dg_ghosts(const hdg_mesh *m, int P, const int *part, int *ghost)
{
    long long *keys = hdg_xmalloc(sizeof(long long) * (2 * (size_t)m->nf + 1));
    size_t n = 0;
    for (int f = 0; f < m->nf; f++) {
        int e0 = m->fe[2 * f], e1 = m->fe[2 * f + 1];
        if (e1 < 0 || part[e0] == part[e1]) continue;
        keys[n++] = (long long)part[e0] * m->ne + e1;
        keys[n++] = (long long)part[e1] * m->ne + e0;
    }
    memset(ghost, 0, sizeof(int) * (size_t)P);
    count_distinct(keys, n, m->ne, ghost);
}

/* HDG: per rank, the faces its matrix rows couple to (fnbr) that another rank
 * owns (ghost columns), and the ranks owning them (neighbours). A face is
 * owned by the part of its first element. */
static void hdg_ghosts(const hdg_mesh *m, int P, const int *part, int *ghost, int *nbr)
{
    size_t cap = 5 * (size_t)m->nf + 1, n = 0, nr = 0;
    long long *keys = hdg_xmalloc(sizeof(long long) * cap), *ranks = hdg_xmalloc(sizeof(long long) * cap);
    for (int f = 0; f < m->nf; f++) {
        int o = part[m->fe[2 * f]];
        for (int a = 0; a < 5; a++) {
            int g = m->fnbr[5 * f + a];
            if (g < 0 || part[m->fe[2 * g]] == o) continue;
            keys[n++] = (long long)o * m->nf + g;
            ranks[nr++] = (long long)o * P + part[m->fe[2 * g]];
        }
    }
    memset(ghost, 0, sizeof(int) * (size_t)P), memset(nbr, 0, sizeof(int) * (size_t)P);
    count_distinct(keys, n, m->nf, ghost);
    count_distinct(ranks, nr, P, nbr);
}

static hdg_status measure(const hdg_mesh *m, int P, stats *s, hdg_error *err)
{
    int *part = hdg_xmalloc(sizeof(int) * ((size_t)m->ne + 1));
    int *a = hdg_xmalloc(sizeof(int) * (size_t)P * 6);
    double t0 = hdg_wtime();
    hdg_status st = hdg_mesh_partition(m, P, part, err);
    s->P = P, s->seconds = hdg_wtime() - t0;
    if (!st) {
        hdg_mesh_partition_stats(m, P, part, a, a + P, a + 2 * P);
        dg_ghosts(m, P, part, a + 3 * P);
        hdg_ghosts(m, P, part, a + 4 * P, a + 5 * P);
        s->elem = spread_of(a, P), s->iface = spread_of(a + P, P), s->nbr = spread_of(a + 2 * P, P);
        s->dg_ghost = spread_of(a + 3 * P, P), s->hdg_ghost = spread_of(a + 4 * P, P);
        s->hdg_nbr = spread_of(a + 5 * P, P);
    }
    free(part), free(a);
    return st;
}

/* Bytes per Krylov iteration (HDG) and per stage (DG), the largest rank's. */
static void volumes(const options *o, const stats *s, double v[4])
{
    int k = o->order, nd = (k + 1) * (k + 2) / 2;
    v[0] = s->hdg_ghost.max * (k + 1) * 8.0;
    v[1] = s->iface.max * (k + 1) * 8.0;
    v[2] = s->dg_ghost.max * nd * o->fields * 8.0;
    v[3] = s->iface.max * (k + 1) * o->fields * 8.0;
}

static void print_header(const options *o, const hdg_mesh *m)
{
    printf("mesh %s: %d elements, %d faces; k = %d, DG fields %d\n", o->mesh, m->ne, m->nf, o->order, o->fields);
    printf("%6s %9s %9s %9s %6s | %7s %7s %7s | %4s %4s | %9s %4s %9s %9s | %9s %9s %9s | %8s\n", "P", "elem_min",
           "elem_mean", "elem_max", "imbal", "if_min", "if_mean", "if_max", "nbr", "max", "hdg_ghost", "nbr",
           "hdg_B/it", "face_B/it", "dg_ghost", "dg_B/stg", "face_B/stg", "seconds");
}

static void print_row(const options *o, const stats *s)
{
    double v[4];
    volumes(o, s, v);
    printf("%6d %9.0f %9.1f %9.0f %6.3f | %7.0f %7.1f %7.0f | %4.1f %4.0f | %9.0f %4.0f %9.0f %9.0f | %9.0f %9.0f "
           "%9.0f | %8.3f\n",
           s->P, s->elem.min, s->elem.mean, s->elem.max, s->elem.max / s->elem.mean, s->iface.min, s->iface.mean,
           s->iface.max, s->nbr.mean, s->nbr.max, s->hdg_ghost.max, s->hdg_nbr.max, v[0], v[1], s->dg_ghost.max,
           v[2], v[3], s->seconds);
}

static void report_spread(hdg_report *r, const char *base, const char *what, spread x)
{
    char path[128];
    snprintf(path, sizeof path, "%s.%s_min", base, what);
    hdg_report_number(r, path, x.min);
    snprintf(path, sizeof path, "%s.%s_mean", base, what);
    hdg_report_number(r, path, x.mean);
    snprintf(path, sizeof path, "%s.%s_max", base, what);
    hdg_report_number(r, path, x.max);
}

static void report_row(hdg_report *r, const options *o, const stats *s)
{
    char base[64], path[128];
    double v[4];
    static const char *vn[4] = {"hdg_bytes_per_iteration", "hdg_face_bytes_per_iteration", "dg_bytes_per_stage",
                                "dg_face_bytes_per_stage"};
    volumes(o, s, v);
    snprintf(base, sizeof base, "partition.P%d", s->P);
    report_spread(r, base, "elements", s->elem);
    report_spread(r, base, "interface_faces", s->iface);
    report_spread(r, base, "neighbours", s->nbr);
    report_spread(r, base, "hdg_ghost_faces", s->hdg_ghost);
    report_spread(r, base, "hdg_neighbours", s->hdg_nbr);
    report_spread(r, base, "dg_ghost_elements", s->dg_ghost);
    snprintf(path, sizeof path, "%s.imbalance", base);
    hdg_report_number(r, path, s->elem.max / s->elem.mean);
    for (int i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s.%s", base, vn[i]);
        hdg_report_number(r, path, v[i]);
    }
    snprintf(path, sizeof path, "%s.seconds", base);
    hdg_report_number(r, path, s->seconds);
}

int hdg_cmd_bench_partition(int argc, char **argv)
{
    options o;
    int rc = parse(argc, argv, &o);
    if (rc >= 0) return rc;
    hdg_mesh m;
    hdg_error err = {0};
    hdg_status st = hdg_mesh_load(&m, o.mesh, &err);
    if (st) {
        fprintf(stderr, "hdgc bench partition: error: %s\n", err.msg);
        return 1;
    }
    hdg_report *rep = o.json ? hdg_report_new() : NULL;
    if (rep) {
        hdg_report_string(rep, "mesh", o.mesh);
        hdg_report_int(rep, "elements", m.ne);
        hdg_report_int(rep, "faces", m.nf);
        hdg_report_int(rep, "order", o.order);
        hdg_report_int(rep, "fields", o.fields);
    }
    print_header(&o, &m);
    for (int i = 0; i < o.nparts && !st; i++) {
        stats s;
        if ((st = measure(&m, o.parts[i], &s, &err))) break;
        print_row(&o, &s);
        fflush(stdout);
        if (rep) report_row(rep, &o, &s);
    }
    if (st) fprintf(stderr, "hdgc bench partition: error: %s\n", err.msg);
    rc = st ? 1 : 0;
    if (rep) {
        if (st) hdg_report_string(rep, "error", err.msg);
        if (hdg_cli_write_report(rep, o.json)) rc = 1;
    }
    hdg_mesh_free(&m);
    return rc;
}
