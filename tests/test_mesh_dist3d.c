/* test_mesh_dist3d.c — a tetrahedral mesh distributed over the ranks (runtime/parallel/
 * mesh_dist.c): run serially and under `mpirun -np 3` (tests/mpi.cmake). Every rank
 * builds the whole mesh itself (deterministic) to check its piece against it: pieces
 * keep dim and vz, the owned elements fill the cube once, markers and face ownership
 * add up, and without ghosts (HDG) every face, a partition interface included, lists
 * its vertices in the whole mesh's order (with DG's ghosts a face between an own
 * element and a ghost may be listed from the own side, as in 2D). */
#include <stdlib.h>
#include <string.h>

#include "runtime/parallel/comm.h"
#include "runtime/parallel/mesh_dist.h"
#include "test.h"

static double vol(const hdg_mesh *m, int e)
{
    const int *v = m->ev + 4 * e;
    double a[3][3];
    for (int i = 0; i < 3; i++)
        a[i][0] = m->vx[v[i + 1]] - m->vx[v[0]], a[i][1] = m->vy[v[i + 1]] - m->vy[v[0]],
        a[i][2] = m->vz[v[i + 1]] - m->vz[v[0]];
    return (a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
            a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0])) / 6;
}

/* Whole-mesh face of global id g (the owner-by-owner numbering of mesh_dist.c). */
static int *face_of_gid(const hdg_mesh *M, int P, hdg_error *err)
{
    int *part = malloc(sizeof(int) * (size_t)M->ne), *inv = malloc(sizeof(int) * (size_t)M->nf);
    long long *next = calloc((size_t)P + 1, sizeof(long long));
    CHECK(hdg_mesh_partition(M, P, part, err) == HDG_OK, "partition: %s", err->msg);
    for (int f = 0; f < M->nf; f++) next[part[M->fe[2 * f]] + 1]++;
    for (int p = 0; p < P; p++) next[p + 1] += next[p];
    for (int f = 0; f < M->nf; f++) inv[next[part[M->fe[2 * f]]]++] = f;
    free(part), free(next);
    return inv;
}

int main(void)
{
    hdg_error err;
    CHECK(hdg_comm_start(&err) == HDG_OK, "comm: %s", err.msg);
    int P = hdg_comm_size();
    hdg_mesh whole, piece;
    hdg_mesh_dist d;
    CHECK(hdg_mesh_load(&whole, "cube:3,perturb=0.1", &err) == HDG_OK, "whole: %s", err.msg);
    CHECK(hdg_mesh_distribute(&whole, 1, &piece, &d, &err) == HDG_OK, "distribute, ghosts: %s", err.msg);
    CHECK(piece.dim == 3 && piece.vz && piece.ne >= d.ne_owned && (P == 1 || piece.ne > d.ne_owned),
          "ghosts: dim %d ne %d owned %d", piece.dim, piece.ne, d.ne_owned);
    hdg_mesh_free(&piece), hdg_mesh_dist_free(&d);
    /* HDG's pieces (no ghosts): each face as the whole mesh lists it */
    CHECK(hdg_mesh_distribute(&whole, 0, &piece, &d, &err) == HDG_OK, "distribute: %s", err.msg);
    CHECK(piece.dim == 3 && piece.vz && hdg_mesh_na(&piece) == 7, "piece: dim %d", piece.dim);
    double sums[2] = {0, 0};
    long long counts[9] = {d.ne_owned, d.nf_owned, 0, 0, 0, 0, 0, 0, 0};
    for (int e = 0; e < d.ne_owned; e++) sums[0] += vol(&piece, e);
    for (int e = 0; e < piece.ne; e++) sums[1] += vol(&piece, e) <= 0;
    for (int f = 0; f < piece.nf; f++)   /* physical markers on owned faces */
        if (piece.fmark[f] >= 1 && piece.fmark[f] <= 6 && d.fowner[f] == d.rank) counts[1 + piece.fmark[f]]++;
    int *inv = face_of_gid(&whole, P, &err), bad = 0, ninter = 0;
    for (int f = 0; f < piece.nf; f++) {   /* every face of the piece is the whole mesh's face, same order */
        int g = inv[d.fgid[f]];
        ninter += piece.fmark[f] == piece.partition_marker;
        for (int k = 0; k < 3; k++) {
            int a = piece.fv[3 * f + k], b = whole.fv[3 * g + k];
            bad += piece.vx[a] != whole.vx[b] || piece.vy[a] != whole.vy[b] || piece.vz[a] != whole.vz[b];
        }
    }
    CHECK(bad == 0, "rank %d: %d face vertices in another order than the whole mesh's", d.rank, bad);
    CHECK(P == 1 || ninter > 0, "rank %d: no partition interface", d.rank);
    hdg_comm_sum(sums, 2);
    hdg_comm_isum(counts, 8);
    CHECK_NEAR(sums[0], 1, 1e-14, "owned volume");
    CHECK(sums[1] == 0, "%g non-positive tetrahedra in the pieces", sums[1]);
    CHECK(counts[0] == whole.ne && counts[0] == d.ne_global, "owned elements %lld of %d", counts[0], whole.ne);
    CHECK(counts[1] == whole.nf && d.nf_global == whole.nf, "owned faces %lld of %d", counts[1], whole.nf);
    for (int id = 1; id <= 6; id++) CHECK(counts[1 + id] == 18, "marker %d: %lld faces", id, counts[1 + id]);
    free(inv);
    hdg_mesh_free(&whole), hdg_mesh_free(&piece), hdg_mesh_dist_free(&d);
    char name[32];
    snprintf(name, sizeof name, "mesh_dist3d rank %d/%d", hdg_comm_rank(), P);
    return test_summary(name);
}
