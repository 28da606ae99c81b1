# tests/null3d.cmake — the HDG solver decisions on tetrahedra (issue 39 item 5, issue 38's
# checks in 3D): the null space, the 'mean' shift, the compatibility check, Robin terms and
# the definiteness probe computed with the mesh's dimension (drivers/run_hdg_null.c,
# run_hdg_solver.c). Refusals are rows of tests/hostile/nullspace.tsv (*3d*).
set(N3_HDGC $<TARGET_FILE:hdgc>)
set(N3_DATA ${HDG_TEST_DIR}/data/hdg)
set(N3_RATE2 "(1\\.9[0-9]|2\\.0[0-9])")
set(N3_RATE3 "(2\\.9[0-9]|3\\.0[0-9])")
set(N3_RATE4 "(3\\.9[0-9]|4\\.0[0-9])")

# Pure Neumann (flux data on every face, 'mean u = uex'): the errors of the Dirichlet run
# (examples/poisson3d.hdg, cube:4, k = 2: u 4.2466e-04, q 1.2790e-03; here u 4.2607e-04,
# q 1.3205e-03). With the triangle formulas on tetrahedra the mean shift was wrong:
# u error 2.05e-01 at exit 0.
hdg_cli_test(null3d_neumann_run 0 -e "L2 error u +4\\.260[0-9]+e-04" -e "L2 error q +1\\.320[0-9]+e-03"
  -- ${N3_HDGC} run ${N3_DATA}/poisson3d_neumann.hdg --mesh cube:4 --order 2)
# rates k+1 (q, u), k+2 (ustar) from cube:2 to cube:4 (k = 1: 1.96 1.99 2.92; k = 2: 2.98 2.96 4.01)
hdg_cli_test(null3d_neumann_convergence 0
  -e "fit +${N3_RATE2} +${N3_RATE2} +${N3_RATE3}$" -e "fit +${N3_RATE3} +${N3_RATE3} +${N3_RATE4}$"
  -- ${N3_HDGC} convergence ${N3_DATA}/poisson3d_neumann.hdg --orders 1..2 --meshes cube:2,cube:4 --json /dev/null)
# Robin on the top face (alpha = 2), Dirichlet on the others: the errors of the Dirichlet run
# (cube:2, k = 2: u 3.2832e-03; here 3.2916e-03)
hdg_cli_test(null3d_robin_run 0 -e "L2 error u +3\\.291[0-9]+e-03"
  -- ${N3_HDGC} run ${N3_DATA}/poisson3d_robin.hdg --mesh cube:2 --order 2)
# three free constants (the translations of a vector trace; the rotations, candidates too, are
# not null for grad): projected together, each fixed by the mean of its component; the errors
# of the Dirichlet run (cube:4, k = 1: u 2.1831e-02; here 2.1918e-02)
hdg_cli_test(null3d_veclap_translations 0 -e "L2 error u +2\\.191[0-9]+e-02"
  -- ${N3_HDGC} run ${N3_DATA}/veclap3d_neumann.hdg --mesh cube:4)
