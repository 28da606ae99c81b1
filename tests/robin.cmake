# tests/robin.cmake — Robin conditions (issue 18): neumann data linear in trace unknowns,
# 'boundary neumann qn = alpha*uhat - g on M' (docs/language.md, boundary conditions). The
# uhat term is a trace-trace atom of the trace equation on those markers. Rejections (uhat^2,
# element unknowns) are rows of tests/hostile/robin.tsv.
set(HDGC $<TARGET_FILE:hdgc>)
set(R ${HDG_TEST_DIR}/data/hdg)

# hdgc check: the Robin term classified as a trace-trace atom on right, top (golden summary;
# regenerate from tests/: hdgc check data/hdg/poisson_robin.hdg > data/hdg/poisson_robin.summary)
add_test(NAME robin_check_golden
  COMMAND sh -c "\"$0\" check data/hdg/poisson_robin.hdg | diff -u data/hdg/poisson_robin.summary -" ${HDGC}
  WORKING_DIRECTORY ${HDG_TEST_DIR})
hdg_cli_test(robin_check_atoms 0
  -e "^  trace-trace  boundary\\(right, top\\) -alpha \\* uhat \\* mu +@37:1$"
  -e "^  source       boundary\\(right, top\\) .*alpha\\*uex\\(x, y\\)\\) \\* mu +@37:1$"
  -e "^  neumann on right, top: qn = .* \\+ alpha\\*uhat  \\(source and trace-trace atoms of equation 3, for uhat\\)$"
  -- ${HDGC} check ${R}/poisson_robin.hdg)

# Dirichlet on left, bottom, Robin (alpha = 2) on right, top: rates k+1 (q, u), k+2 (ustar)
set(RATE2 "(1\\.9[0-9]|2\\.0[0-9])")
set(RATE3 "(2\\.9[0-9]|3\\.0[0-9])")
set(RATE4 "(3\\.9[0-9]|4\\.0[0-9])")
set(RATE5 "(4\\.9[0-9]|5\\.0[0-9])")
hdg_cli_test(robin_convergence 0
  -e "fit +${RATE2} +${RATE2} +${RATE3}$" -e "fit +${RATE3} +${RATE3} +${RATE4}$"
  -e "fit +${RATE4} +${RATE4} +${RATE5}$"
  -- ${HDGC} convergence ${R}/poisson_robin.hdg --orders 1..3 --json /dev/null)
# Robin on the whole boundary, no Dirichlet face, no 'mean': unique, same rates
hdg_cli_test(robin_all_convergence 0
  -e "fit +${RATE2} +${RATE2} +${RATE3}$" -e "fit +${RATE3} +${RATE3} +${RATE4}$"
  -e "fit +${RATE4} +${RATE4} +${RATE5}$" -n "mean|error"
  -- ${HDGC} convergence ${R}/poisson_robin_all.hdg --orders 1..3 --json /dev/null)
# alpha = 0: pure Neumann, the 'mean' condition is asked for
hdg_cli_test(robin_all_alpha_zero 1
  -e "poisson_robin_all[.]hdg:34:1: the solution is defined only up to a constant [(]no Dirichlet face, no Robin or reaction term"
  -e "add a condition 'mean u = VALUE'"
  -- ${HDGC} run ${R}/poisson_robin_all.hdg --mesh square:4 --set alpha=0)
# two trace unknowns coupled only through their Robin conditions (trace-trace atoms h1 x nu, h2 x mu)
hdg_cli_test(robin_two_convergence 0
  -e "fit +${RATE2} +${RATE2} +${RATE2} +${RATE2}$" -e "fit +${RATE3} +${RATE3} +${RATE3} +${RATE3}$"
  -- ${HDGC} convergence ${R}/poisson_robin_two.hdg --orders 1..2 --json /dev/null)
hdg_cli_test(robin_two_check 0
  -e "^  trace-trace  boundary\\(right, top\\) -h2 \\* mu +@34:1$"
  -e "^  trace-trace  boundary\\(right, top\\) -h1 \\* nu +@35:1$"
  -- ${HDGC} check ${R}/poisson_robin_two.hdg)
# the other sign (alpha < 0, -kappa du/dn + 2u = g): indefinite, CG breaks down, GMRES solves it
hdg_cli_test(robin_negative_cg 1 -e "CG breakdown .*not SPD: indefinite, or not symmetric. GMRES solves such systems: --solver gmres"
  -- ${HDGC} run ${R}/poisson_robin.hdg --mesh square:8 --set alpha=-2)
hdg_cli_test(robin_negative_gmres 0 -e "L2 error u +7\\.59[0-9]+e-05" -e "L2 error ustar +2\\.5[0-9]+e-06"
  -- ${HDGC} run ${R}/poisson_robin.hdg --mesh square:8 --set alpha=-2 --solver gmres)
# the device driver (CUDA emulator) gives the host's errors
hdg_cli_test(robin_all_cuda_emulated 0 -e "L2 error u +7\\.59471[0-9]e-05" -e "L2 error ustar +2\\.51549[0-9]e-06"
  -- env HDGC_LIBCUDA=emulator ${HDGC} run ${R}/poisson_robin_all.hdg --mesh square:8 --backend cuda)
