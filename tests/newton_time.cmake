# tests/newton_time.cmake — Newton inside implicit time steps (issue 41 item 3; drivers/run_hdg_time.c,
# drivers/run_hdg_newton.c, docs/solvers.md "Newton"): examples/nonlinear_heat.hdg,
# du/dt - div((1 + u^2) grad u) = f with u = e^-t (sin(2x + y) + x y^2) + cos(3t) x / 2 (smooth in space
# and time, no eigenfunction), BDF2 by default; the reports checked by tests/check_newton.py and
# tests/time_rates.py.
set(NWTT_HDGC $<TARGET_FILE:hdgc>)
set(NWTT_EX ${HDG_EXAMPLES}/nonlinear_heat.hdg)
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  # in time, at k = 4 on square:4 to t = 1, the error of ustar (k + 2 in space: below 4e-8 there,
  # u's own spatial error 2.2e-7 would cap BDF3 at 0.0125): BDF2 2.25, 2.15 (approaching 2 from
  # above; 2.38 from dt = 0.1), BDF3 2.94, 2.97, SDIRK2 1.82, 1.88 (0.1 to 0.025) measured
  foreach(case "bdf2;0.05,0.025,0.0125;1.9;2.3" "bdf3;0.05,0.025,0.0125;2.8;3.2" "sdirk2;0.1,0.05,0.025;1.75;2.1")
    list(GET case 0 s)
    list(GET case 1 steps)
    list(GET case 2 lo)
    list(GET case 3 hi)
    add_test(NAME newton_time_rate_${s}
      COMMAND ${Python3_EXECUTABLE} ${HDG_TEST_DIR}/time_rates.py ${NWTT_HDGC} ${NWTT_EX} --scheme ${s}
        --steps ${steps} --param step --min ${lo} --max ${hi} --unknown ustar --order 4 --mesh square:4)
    set_tests_properties(newton_time_rate_${s} PROPERTIES TIMEOUT ${HDG_COMPILE_TIMEOUT})
  endforeach()
  # Newton steps per time step, warm-started from the last solution: 3 at every step after the
  # first (6: the SDIRK2 start's two stages from the trace 0), the same on square:8 and square:32
  # (measured), at most 4 in one solve; the example's errors (u 2.2e-5 at k = 2 on square:8, dt = 0.02)
  add_test(NAME newton_time_steps COMMAND sh -c
    "'${NWTT_HDGC}' run '${NWTT_EX}' --json nt8.json --quiet && '${NWTT_HDGC}' run '${NWTT_EX}' --mesh square:32 --final-time 0.2 --json nt32.json --quiet && '${Python3_EXECUTABLE}' '${HDG_TEST_DIR}/check_newton.py' nt8.json nt32.json --per-time-step 4 --max-steps 4 && '${Python3_EXECUTABLE}' '${HDG_TEST_DIR}/check_newton.py' nt8.json --max-error u=3e-5 --max-error ustar=2e-5"
    WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  set_tests_properties(newton_time_steps PROPERTIES TIMEOUT ${HDG_COMPILE_TIMEOUT})
endif()
# in space, at dt = 0.005 to t = 0.1 (BDF2): k+1 for q and u, k+2 for ustar (measured 1.97 1.99 2.99,
# 2.97 2.97 3.92)
set(NWTT_RATE2 "(1\\.9[0-9]|2\\.0[0-9])")
set(NWTT_RATE3 "(2\\.9[0-9]|3\\.0[0-9])")
set(NWTT_RATE4 "(3\\.[89][0-9]|4\\.0[0-9])")
hdg_cli_test(newton_time_space_rates 0
  -e "fit +${NWTT_RATE2} +${NWTT_RATE2} +${NWTT_RATE3}$" -e "fit +${NWTT_RATE3} +${NWTT_RATE3} +${NWTT_RATE4}$"
  -- ${NWTT_HDGC} convergence ${NWTT_EX} --orders 1..2 --meshes 4,8,16 --set step=0.005 --final-time 0.1
  --json /dev/null)
# a Newton failure at a time step: exit 1, the step and its time named, the residual history
hdg_cli_test(newton_time_max_steps 1
  -e "nonlinear_heat: Newton at time step 1 \\(the solve at t = 0\\.0058[0-9]+\\) did not converge in 1 steps \\(--newton-max-steps. .*residual history \\|R\\| = [0-9.e+-]+, [0-9.e+-]+$"
  -- ${NWTT_HDGC} run ${NWTT_EX} --mesh square:4 --newton-max-steps 1 --quiet)
# the summary line after the steps, and no Newton line per step under the progress line
hdg_cli_test(newton_time_log 0 -e "^  newton: 51 solves in 50 time steps, [0-9]+ Newton steps \\(at most [1-4] in one solve\\)$"
  -n "newton +[0-9]+ +\\|R\\|" -- ${NWTT_HDGC} run ${NWTT_EX} --mesh square:4)
# 3D, the same code path (tests/data/hdg/nonlinear_heat3d.hdg, k = 1, BDF2 at dt = 0.005 to t = 0.05):
# rates k+1 for q and u, k+2 for ustar on cube:2, 4, 8 (fit measured 1.90, 1.97, 2.86; the last
# pair 1.93, 1.99, 2.89), then 3 Newton steps per time step after the first on cube:4 (measured)
set(NWTT_3D ${HDG_TEST_DIR}/data/hdg/nonlinear_heat3d.hdg)
hdg_cli_test(newton_time_3d_rates 0 -e "fit +(1\\.[89][0-9]) +${NWTT_RATE2} +(2\\.[89][0-9])$"
  -- ${NWTT_HDGC} convergence ${NWTT_3D} --orders 1 --meshes cube:2,cube:4,cube:8 --final-time 0.05 --set step=0.005
  --json /dev/null)
if(Python3_Interpreter_FOUND)
  add_test(NAME newton_time_3d_steps COMMAND sh -c
    "'${NWTT_HDGC}' run '${NWTT_3D}' --mesh cube:4 --final-time 0.2 --set step=0.01 --json nt3.json --quiet && '${Python3_EXECUTABLE}' '${HDG_TEST_DIR}/check_newton.py' nt3.json --per-time-step 4 --max-steps 4 --max-error u=5e-3"
    WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  set_tests_properties(newton_time_3d_steps PROPERTIES TIMEOUT ${HDG_COMPILE_TIMEOUT})
endif()
