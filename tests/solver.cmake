# Trace-system runtime: thread pool, dense block matrix + CSR, Krylov solvers.
hdg_unit_test(parallel test_parallel.c)
hdg_unit_test(blockmat test_blockmat.c)
hdg_unit_test(krylov test_krylov.c)

# The stopping rule at the rounding floor: tau = 1e6 with homogeneous Dirichlet data
# (poisson_bubble) makes ||A|| ||x|| / ||b|| large, so CG stagnates near 2e-9, far above the
# fixed 1e-10 the default once accepted (that run failed).
# The default accepts it as the floor eps ||A|| ||x|| / ||b|| (estimated by the solver) and
# says so in the summary, without a warning (no rtol goes lower), with errors at the
# discretisation's level; an explicit rtol below it stays an error that names the floor.
# --precond block: the same without the PETSc module.
hdg_cli_test(solver_rounding_floor 0
  -e "relative residual [0-9.e+-]+ [(]the rounding floor: eps [|][|]A[|][|] [|][|]x[|][|] / [|][|]b[|][|] = [0-9.e+-]+[)]"
  -e "L2 error u +2[.]80944[0-9]*e-08" -n "warning"
  -- $<TARGET_FILE:hdgc> run ${HDG_TEST_DIR}/data/hdg/poisson_bubble.hdg --order 3 --mesh square:32 --set tau=1e6 --precond block)
hdg_cli_test(solver_rounding_floor_rtol 1
  -e "CG stagnated at relative residual [0-9.e-]+ after [0-9]+ iterations [(]the rounding floor eps [|][|]A[|][|] [|][|]x[|][|] / [|][|]b[|][|] is [0-9.e-]+[)]: rtol 1e-14 is below"
  -- $<TARGET_FILE:hdgc> run ${HDG_TEST_DIR}/data/hdg/poisson_bubble.hdg --order 3 --mesh square:32 --set tau=1e6 --precond block --rtol 1e-14)

# A small residual of an ill-conditioned system (issue 13, session 14): convection-diffusion,
# k = 4, GMRES with face-block Jacobi to --rtol 1e-12 takes 1691 iterations and leaves u at
# 1.9e-8, 9x the 2.2e-9 of an exact solve, below the 1e-5 h^(k+2) residual bound. That many
# iterations mean a condition number near 1.4e4: the warning names it. With mg (21 iterations)
# the same rtol gives u at 2.2e-9 and no warning.
hdg_cli_test(solver_ill_conditioned_warns 0
  -e "warning: the solve stopped at relative residual [0-9.e-]+ after [0-9]+ iterations. that many iterations mean a condition number near 1[.][0-9]e[+]04"
  -e "L2 error u +1[.][0-9]+e-08"
  -- $<TARGET_FILE:hdgc> run ${HDG_EXAMPLES}/convection_diffusion.hdg --order 4 --mesh square:16 --precond block --rtol 1e-12)
hdg_cli_test(solver_ill_conditioned_mg_quiet 0
  -e "L2 error u +2[.]2[0-9]+e-09" -n "warning"
  -- $<TARGET_FILE:hdgc> run ${HDG_EXAMPLES}/convection_diffusion.hdg --order 4 --mesh square:16 --precond mg --rtol 1e-12)
