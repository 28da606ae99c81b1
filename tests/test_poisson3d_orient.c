/* test_poisson3d_orient.c — HDG on tetrahedra does not depend on how each element lists
 * its vertices: cube:2 and cube:3 given through the API (hdgc_problem_set_mesh_simplices)
 * with every tetrahedron's vertices in a pseudo-random order (odd permutations included:
 * the topology reorients them) give the same errors as the generated mesh to 1e-9
 * relative (measured: 3e-11 for u and q, 1.5e-10 for u*: the Krylov solve's rounding,
 * its iterates differing with the order of the unknowns; a wrong map changes the first
 * digit). The generated cube:N has faces in orientations 0 and 1 only; the permuted
 * meshes have all six (counted here), so every dense orientation map S_o of the trace
 * basis (drivers/run_hdg_common.h) is exercised through assembly and recovery.
 * usage: test_poisson3d_orient [BACKEND]: the permuted meshes are solved with --backend
 * BACKEND (default c; cuda: the device's assembly and scatter with the dense maps, on
 * the CUDA emulator in CI), the generated ones on the host. */
#include <stdlib.h>
#include <string.h>

#include "hdgc.h"
#include "runtime/mesh/mesh.h"
#include "test.h"

static const char *backend = "c";   /* of the permuted meshes' runs */

static double solve(const char *mesh, const hdg_mesh *M, double *err_u, double *err_q, double *err_s)
{
    hdgc_problem *p = NULL;
    hdgc_result *r = NULL;
    hdg_error err;
    hdg_status st = hdgc_problem_load_with(HDG_EXAMPLES "/poisson3d.hdg", 2, 0, NULL, NULL, &p, NULL, &err);
    if (!st) st = hdgc_problem_set_option(p, "fields", "off", &err);
    if (!st && mesh) st = hdgc_problem_set_option(p, "mesh", mesh, &err);
    if (!st) st = hdgc_problem_set_option(p, "backend", M ? backend : "c", &err);
    if (!st && M) {
        int nb = 0, *faces = malloc(sizeof(int) * 3 * (size_t)(M->nbf + 1));
        int *mk = malloc(sizeof(int) * (size_t)(M->nbf + 1));
        for (int f = 0; f < M->nf; f++)
            if (M->fe[2 * f + 1] < 0) {
                memcpy(faces + 3 * nb, M->fv + 3 * f, sizeof(int) * 3);
                mk[nb++] = M->fmark[f];
            }
        double *xyz = malloc(sizeof(double) * 3 * (size_t)M->nv);
        for (int v = 0; v < M->nv; v++) xyz[3 * v] = M->vx[v], xyz[3 * v + 1] = M->vy[v], xyz[3 * v + 2] = M->vz[v];
        st = hdgc_problem_set_mesh_simplices(p, 3, M->nv, xyz, M->ne, M->ev, nb, faces, mk, M->nmarkers,
                                             (const char *const *)M->marker_names + 1, &err);
        free(faces), free(mk), free(xyz);
    }
    if (!st) st = hdgc_solve(p, &r, &err);
    CHECK(!st, "solve on %s: %s", mesh ? mesh : "arrays", st ? err.msg : "");
    *err_u = r ? hdgc_result_error(r, "u") : NAN;
    *err_q = r ? hdgc_result_error(r, "q") : NAN;
    *err_s = r ? hdgc_result_error(r, "ustar") : NAN;
    hdgc_result_free(r);
    hdgc_problem_free(p);
    return *err_u;
}

static void one(int N)
{
    char spec[32];
    snprintf(spec, sizeof spec, "cube:%d", N);
    hdg_mesh M = {0};
    hdg_error err;
    CHECK(!hdg_mesh_load(&M, spec, &err), "%s", err.msg);
    unsigned s = 12345u + (unsigned)N;
    for (int e = 0; e < M.ne; e++)   /* Fisher-Yates on each element's 4 vertices */
        for (int i = 3; i > 0; i--) {
            s = s * 1103515245u + 12345u;
            int j = (int)((s >> 16) % (unsigned)(i + 1)), t = M.ev[4 * e + i];
            M.ev[4 * e + i] = M.ev[4 * e + j], M.ev[4 * e + j] = t;
        }
    double u0, q0, s0, u1, q1, s1;
    solve(spec, NULL, &u0, &q0, &s0);
    solve(NULL, &M, &u1, &q1, &s1);
    CHECK(u0 > 0 && fabs(u1 - u0) <= 1e-9 * u0, "%s permuted: u %.17g vs %.17g", spec, u1, u0);
    CHECK(q0 > 0 && fabs(q1 - q0) <= 1e-9 * q0, "%s permuted: q %.17g vs %.17g", spec, q1, q0);
    CHECK(s0 > 0 && fabs(s1 - s0) <= 1e-9 * s0, "%s permuted: ustar %.17g vs %.17g", spec, s1, s0);
    /* the orientations the permuted mesh has (its own topology, as the API builds it) */
    hdg_mesh R = {0};
    R.dim = 3, R.nv = M.nv, R.ne = M.ne;
    R.vx = malloc(sizeof(double) * (size_t)M.nv), R.vy = malloc(sizeof(double) * (size_t)M.nv);
    R.vz = malloc(sizeof(double) * (size_t)M.nv), R.ev = malloc(sizeof(int) * 4 * (size_t)M.ne);
    memcpy(R.vx, M.vx, sizeof(double) * (size_t)M.nv), memcpy(R.vy, M.vy, sizeof(double) * (size_t)M.nv);
    memcpy(R.vz, M.vz, sizeof(double) * (size_t)M.nv), memcpy(R.ev, M.ev, sizeof(int) * 4 * (size_t)M.ne);
    int seen[6] = {0}, all = 1;
    CHECK(!hdg_mesh_build_topology(&R, &err), "%s", err.msg);
    for (int i = 0; R.eforient && i < 4 * R.ne; i++) seen[R.eforient[i]]++;
    for (int o = 0; o < 6; o++) all &= seen[o] > 0;
    CHECK(all, "%s permuted: orientations %d %d %d %d %d %d, not all six", spec, seen[0], seen[1], seen[2], seen[3],
          seen[4], seen[5]);
    hdg_mesh_free(&R);
    hdg_mesh_free(&M);
}

int main(int argc, char **argv)
{
    if (argc > 1) backend = argv[1];
    one(2);
    one(3);
    return test_summary("poisson3d_orient");
}
