/* tests/install/hello.c — a C program built against an installed hdgc (pkg-config or
 * find_package): solves a problem file on a mesh and prints the L2 error of u. */
#include <stdio.h>

#include <hdgc.h>

int main(int argc, char **argv)
{
    hdg_error err;
    hdgc_problem *p;
    hdgc_result *r;
    if (argc < 3) return 2;
    if (hdgc_problem_load(argv[1], &p, &err) || hdgc_problem_set_option(p, "mesh", argv[2], &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    hdg_status st = hdgc_solve(p, &r, &err);
    if (st) fprintf(stderr, "%s: %s\n", hdg_status_name(st), err.msg);
    else printf("%s: L2 error u %.6e, %d fields\n", hdgc_problem_name(p), hdgc_result_error(r, "u"), hdgc_result_nfields(r));
    hdgc_result_free(r);
    hdgc_problem_free(p);
    return st ? 1 : 0;
}
