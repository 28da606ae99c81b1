# tests/newton.cmake — Newton for nonlinear HDG (issue 41; drivers/run_hdg_newton.c, docs/solvers.md
# "Newton"): tests/data/hdg/newton_diffusion.hdg (examples/nonlinear_diffusion.hdg at half its
# amplitude: -div((1 + u^2) grad u) = f, u = (e^x sin(pi y) + xy)/2, no eigenfunction; tau = 5, of the
# size of kappa(u) <= 4.4), the example itself (tau = 15, kappa(u) <= 14.7) and examples/bratu.hdg;
# the reports checked by tests/check_newton.py.
set(NWT_HDGC $<TARGET_FILE:hdgc>)
set(NWT_ND ${HDG_TEST_DIR}/data/hdg/newton_diffusion.hdg)
set(NWT_BRATU ${HDG_EXAMPLES}/bratu.hdg)
set(NWT_EX ${HDG_EXAMPLES}/nonlinear_diffusion.hdg)
set(NWT_ONE ${HDG_TEST_DIR}/data/hdg/one_triangle_v22.msh)
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  # rates k+1 (u, q) and k+2 (u*), within 0.3, at k = 1..4 on square:4,8,16 (measured 1.94 to 5.98)
  function(nwt_rates name orders meshes)
    add_test(NAME ${name} COMMAND sh -c
      "'${NWT_HDGC}' convergence '${NWT_ND}' --orders ${orders} --meshes ${meshes} --json ${name}.json --quiet && '${Python3_EXECUTABLE}' '${HDG_TEST_DIR}/check_rates.py' ${name}.json 0.3 u=1 q=1 ustar=2"
      WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
    set_tests_properties(${name} PROPERTIES TIMEOUT ${HDG_COMPILE_TIMEOUT})
  endfunction()
  nwt_rates(newton_rates 1..4 square:4,square:8,square:16)
  # the finite-difference check of the residual kernel against the Jacobian along each Newton
  # step (--newton-check on): on one element (all its faces Dirichlet) and assembled on square:4 at
  # k = 1 (where tau = 1 stalled: the Jacobian was right, the discrete problem under-stabilised)
  add_test(NAME newton_jacobian_check COMMAND sh -c
    "'${NWT_HDGC}' run '${NWT_ND}' --mesh '${NWT_ONE}' --order 1 --newton-check on --json nj1.json --quiet && '${NWT_HDGC}' run '${NWT_ND}' --mesh square:4 --order 1 --newton-check on --json nj4.json --quiet && '${NWT_HDGC}' run '${NWT_ND}' --mesh square:4 --order 3 --set amp=0.7 --newton-check on --json nj4b.json --quiet && '${Python3_EXECUTABLE}' '${HDG_TEST_DIR}/check_newton.py' nj1.json nj4.json nj4b.json --jacobian-check --cmax 5"
    WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  # the shipped example (full amplitude, kappa(u) up to 14.7) from u = 0 with `hdgc run` as it is:
  # 6 steps, the last quadratic (C 0.037 measured), the line search on the way; and at k = 1 on
  # square:4 and k = 3 on square:16 (6 to 7 steps measured)
  add_test(NAME newton_example COMMAND sh -c
    "'${NWT_HDGC}' run '${NWT_EX}' --json ne.json --quiet && '${NWT_HDGC}' run '${NWT_EX}' --order 1 --mesh square:4 --json ne1.json --quiet && '${NWT_HDGC}' run '${NWT_EX}' --order 3 --mesh square:16 --json ne3.json --quiet && '${Python3_EXECUTABLE}' '${HDG_TEST_DIR}/check_newton.py' ne.json ne1.json ne3.json --max-steps 8 --cmax 5 && '${Python3_EXECUTABLE}' '${HDG_TEST_DIR}/check_newton.py' ne.json --line-search --max-error u=5e-4"
    WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  # from u = 0: the same step count (5) on square:8 and square:128 to the default tolerance
  # (|R| <= 1e-10 |R_0|), the last ones quadratic with C <= 5 (measured 0.078 and 1.25); on square:8
  # with rtol 1e-16 out of reach it stops at the attainable accuracy in at most 8 steps
  add_test(NAME newton_steps_quadratic COMMAND sh -c
    "'${NWT_HDGC}' run '${NWT_ND}' --mesh square:8 --json nq8.json --quiet && '${NWT_HDGC}' run '${NWT_ND}' --mesh square:128 --json nq128.json --quiet && '${Python3_EXECUTABLE}' '${HDG_TEST_DIR}/check_newton.py' nq8.json nq128.json --max-steps 8 --cmax 5 --same-steps --max-error u=3e-4 && '${NWT_HDGC}' run '${NWT_ND}' --mesh square:8 --newton-rtol 1e-16 --json nqa.json --quiet && '${Python3_EXECUTABLE}' '${HDG_TEST_DIR}/check_newton.py' nqa.json --max-steps 8 --cmax 5 --attainable"
    WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  # a hard start: amplitude 0.7 (kappa(u) up to 9) on square:4 from u = 0 needs the line search
  # (a step length 1/2 seen) and converges with it
  add_test(NAME newton_line_search COMMAND sh -c
    "'${NWT_HDGC}' run '${NWT_ND}' --mesh square:4 --set amp=0.7 --newton-max-steps 20 --json nls.json --quiet && '${Python3_EXECUTABLE}' '${HDG_TEST_DIR}/check_newton.py' nls.json --line-search --max-steps 15 --max-error u=3e-2"
    WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  # Bratu, lambda = 2 (the lower branch): 3 steps, quadratic
  add_test(NAME newton_bratu COMMAND sh -c
    "'${NWT_HDGC}' run '${NWT_BRATU}' --mesh square:8 --json nb.json --quiet && '${Python3_EXECUTABLE}' '${HDG_TEST_DIR}/check_newton.py' nb.json --max-steps 4 --cmax 10"
    WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  set_tests_properties(newton_steps_quadratic newton_line_search newton_bratu newton_jacobian_check newton_example
                       PROPERTIES TIMEOUT ${HDG_COMPILE_TIMEOUT})
endif()
# Bad input: past Bratu's turning point (lambda = 7 > 6.81) there is no solution, and the step
# limit: a non-zero exit with the residual history
hdg_cli_test(newton_bratu_turning_point 1 -e "bratu: Newton .*residual history \\|R\\| = [0-9.e+-]+, "
  -- ${NWT_HDGC} run ${NWT_BRATU} --mesh square:4 --set lambda=7 --quiet)
hdg_cli_test(newton_max_steps 1
  -e "Newton did not converge in 1 steps \\(--newton-max-steps. .*residual history \\|R\\| = [0-9.e+-]+, [0-9.e+-]+$"
  -- ${NWT_HDGC} run ${NWT_ND} --mesh square:4 --newton-max-steps 1 --quiet)
hdg_cli_test(newton_step_lines 0 -e "^  newton  0  \\|R\\| " -e "newton converged in [0-9]+ steps .*quadratic constant C = "
  -- ${NWT_HDGC} run ${NWT_BRATU} --mesh square:4)
# --newton-check's log line says when |R(s)| is so near rounding that the quotients say nothing
# (|R(s + e d) - (1 - e) R(s)| at e = 1e-4 below the floor 100 eps ||M||): not at the first three
# steps (tenfold apart, measured), at the last (|R(s)| 1.6e-8 before step 5, rho 9.7e-4 and 9.5e-3)
hdg_cli_test(newton_check_rounding 0
  -e "check step 3: .* = [0-9.e+-]+ \\(e = 1e-3\\), [0-9.e+-]+ \\(e = 1e-4\\)$"
  -e "check step 5: .* \\(e = 1e-4\\) \\(\\|R\\(s\\)\\| near rounding: no test\\)$"
  -n "check step [123]: .*near rounding"
  -- ${NWT_HDGC} run ${NWT_ND} --mesh square:4 --newton-check on)
hdg_cli_test(newton_quiet 0 -n "newton" -- ${NWT_HDGC} run ${NWT_BRATU} --mesh square:4 --quiet)
hdg_cli_test(newton_bad_option 2 -e "--newton-rtol 2: expected a number in \\(0, 1\\)"
  -- ${NWT_HDGC} run ${NWT_BRATU} --mesh square:4 --newton-rtol 2)
# --newton-* on a linear HDG problem and on explicit DG: refused (exit 2), as time options on a
# steady problem are
hdg_cli_test(newton_option_linear 2 -e "--newton-rtol applies to nonlinear HDG problems \\(Newton\\). .*poisson.hdg is linear"
  -- ${NWT_HDGC} run ${HDG_EXAMPLES}/poisson.hdg --mesh square:2 --newton-rtol 1e-8)
hdg_cli_test(newton_option_dg 2 -e "--newton-check applies to nonlinear HDG problems \\(Newton\\). .*burgers2d.hdg is explicit DG"
  -- ${NWT_HDGC} run ${HDG_EXAMPLES}/burgers2d.hdg --newton-check on)
hdg_cli_test(newton_check_bad 2 -e "--newton-check maybe: expected on or off"
  -- ${NWT_HDGC} run ${NWT_BRATU} --mesh square:4 --newton-check maybe)
if(Python3_Interpreter_FOUND)
  # --solver petsc (serial): Newton's linear solves through PETSc (gmres + gamg), the same
  # solution as the default solver to 1e-10 and the same step count, with --rtol 1e-14 (at
  # PETSc's own stopping rule the last step ends at |R| 1.9e-11, not 7e-13, and the errors agree
  # to 7e-10)
  add_test(NAME newton_petsc_serial COMMAND sh -c
    "'${NWT_HDGC}' run '${NWT_ND}' --mesh square:8 --json np0.json --quiet && '${NWT_HDGC}' run '${NWT_ND}' --mesh square:8 --solver petsc --rtol 1e-14 --json np1.json --quiet && '${Python3_EXECUTABLE}' '${HDG_TEST_DIR}/check_newton.py' np0.json np1.json --max-steps 8 --same-steps --match-errors 1e-10"
    WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  set_tests_properties(newton_petsc_serial PROPERTIES TIMEOUT ${HDG_COMPILE_TIMEOUT})
endif()
# under mpirun: tests/newton_mpi.cmake
# CG chosen (the Jacobian looks symmetric) and broken down near Bratu's turning point: the step
# is solved again with GMRES, the report and the log say so (newton.solver_fallback); at
# lambda = 6.78 on square:4, k = 1 the discrete problem is past its own turning point, so Newton
# then stagnates and exits 1 with the history (GMRES did not find a solution CG missed)
hdg_cli_test(newton_cg_fallback 1 -e "newton     step 4: CG breakdown at iteration [0-9]+: .*GMRES from this step on"
  -e "bratu: Newton stagnated at step [0-9]+: .*residual history"
  -- ${NWT_HDGC} run ${NWT_BRATU} --mesh square:4 --order 1 --set lambda=6.78)
