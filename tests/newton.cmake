# tests/newton.cmake — Newton for nonlinear HDG (issue 41; drivers/run_hdg_newton.c, docs/solvers.md
# "Newton"): tests/data/hdg/newton_diffusion.hdg (examples/nonlinear_diffusion.hdg at half its
# amplitude: -div((1 + u^2) grad u) = f, u = (e^x sin(pi y) + xy)/2, no eigenfunction; the example's
# full amplitude from u = 0 needs the line search for many steps) and examples/bratu.hdg; the
# reports checked by tests/check_newton.py.
set(NWT_HDGC $<TARGET_FILE:hdgc>)
set(NWT_ND ${HDG_TEST_DIR}/data/hdg/newton_diffusion.hdg)
set(NWT_BRATU ${HDG_EXAMPLES}/bratu.hdg)
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  # rates k+1 (u, q) and k+2 (u*), within 0.3, at k = 2..4 on square:4,8,16 and at k = 1 on
  # square:16,32,64 (at k = 1 on square:4 and 8 Newton from 0 stalls at |R| ~ 1e-3: docs/solvers.md)
  function(nwt_rates name orders meshes)
    add_test(NAME ${name} COMMAND sh -c
      "'${NWT_HDGC}' convergence '${NWT_ND}' --orders ${orders} --meshes ${meshes} --json ${name}.json --quiet && '${Python3_EXECUTABLE}' '${HDG_TEST_DIR}/check_rates.py' ${name}.json 0.3 u=1 q=1 ustar=2"
      WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
    set_tests_properties(${name} PROPERTIES TIMEOUT ${HDG_COMPILE_TIMEOUT})
  endfunction()
  nwt_rates(newton_rates 2..4 square:4,square:8,square:16)
  nwt_rates(newton_rates_k1 1 square:16,square:32,square:64)
  # from u = 0 to the attainable accuracy (rtol 1e-16 out of reach) in at most 8 steps, the
  # last ones quadratic with C <= 5 (measured 0.76 and 0.44), the same count (6) on square:8
  # and square:64
  add_test(NAME newton_steps_quadratic COMMAND sh -c
    "'${NWT_HDGC}' run '${NWT_ND}' --mesh square:8 --newton-rtol 1e-16 --json nq8.json --quiet && '${NWT_HDGC}' run '${NWT_ND}' --mesh square:64 --newton-rtol 1e-16 --json nq64.json --quiet && '${Python3_EXECUTABLE}' '${HDG_TEST_DIR}/check_newton.py' nq8.json nq64.json --max-steps 8 --cmax 5 --attainable --same-steps --max-error u=3e-4"
    WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  # a hard start: amplitude 0.7 (kappa(u) up to 9) on square:4 from u = 0 needs the line search
  # (step lengths 1/2, 1/4 seen) and converges with it
  add_test(NAME newton_line_search COMMAND sh -c
    "'${NWT_HDGC}' run '${NWT_ND}' --mesh square:4 --set amp=0.7 --newton-max-steps 20 --json nls.json --quiet && '${Python3_EXECUTABLE}' '${HDG_TEST_DIR}/check_newton.py' nls.json --line-search --max-steps 15 --max-error u=3e-2"
    WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  # Bratu, lambda = 2 (the lower branch): 3 steps, quadratic
  add_test(NAME newton_bratu COMMAND sh -c
    "'${NWT_HDGC}' run '${NWT_BRATU}' --mesh square:8 --json nb.json --quiet && '${Python3_EXECUTABLE}' '${HDG_TEST_DIR}/check_newton.py' nb.json --max-steps 4 --cmax 10"
    WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  set_tests_properties(newton_steps_quadratic newton_line_search newton_bratu PROPERTIES TIMEOUT ${HDG_COMPILE_TIMEOUT})
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
hdg_cli_test(newton_quiet 0 -n "newton" -- ${NWT_HDGC} run ${NWT_BRATU} --mesh square:4 --quiet)
hdg_cli_test(newton_bad_option 2 -e "--newton-rtol 2: expected a number in \\(0, 1\\)"
  -- ${NWT_HDGC} run ${NWT_BRATU} --mesh square:4 --newton-rtol 2)
