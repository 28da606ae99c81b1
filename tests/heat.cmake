# tests/heat.cmake — transient HDG (issue 18): dt() on element unknowns, implicit BDF1-3 and
# SDIRK2-3 (drivers/run_hdg_time.c). Convergence in time on a solution quadratic in space (HDG
# at k = 2 is exact in space there, so the error is the scheme's), in space at a step small
# enough for the time error to be negligible, reuse of one matrix per sigma, refusals.
set(HDGC $<TARGET_FILE:hdgc>)
set(H ${HDG_TEST_DIR}/data/hdg)
find_package(Python3 COMPONENTS Interpreter)

# in time: rate >= order - 0.15 (BDF2/3 start with SDIRK2/3 steps). heat_poly has Dirichlet
# data on left, bottom and Neumann data on right, top, both depending on t.
if(Python3_Interpreter_FOUND)
  foreach(case "bdf1;0.95;1.1" "bdf2;1.85;2.2" "bdf3;2.85;3.5" "sdirk2;1.9;2.2")
    list(GET case 0 s)
    list(GET case 1 lo)
    list(GET case 2 hi)
    add_test(NAME heat_time_rate_${s}
      COMMAND ${Python3_EXECUTABLE} ${HDG_TEST_DIR}/time_rates.py ${HDGC} ${H}/heat_poly.hdg --scheme ${s}
        --steps 0.1,0.05,0.025 --param step --min ${lo} --max ${hi} --mesh square:4)
  endforeach()
  # SDIRK3 (stage order 1) loses order to time-dependent boundary data (2.5-2.7 on heat_poly,
  # the known order reduction of DIRK methods); with data constant on the boundary
  # (heat_poly_k4: zero boundary variation, k = 4 exact in space) it is third order.
  add_test(NAME heat_time_rate_sdirk3_reduced
    COMMAND ${Python3_EXECUTABLE} ${HDG_TEST_DIR}/time_rates.py ${HDGC} ${H}/heat_poly.hdg --scheme sdirk3
      --steps 0.05,0.025,0.0125 --param step --min 2.4 --max 2.9 --mesh square:4)
  add_test(NAME heat_time_rate_sdirk3
    COMMAND ${Python3_EXECUTABLE} ${HDG_TEST_DIR}/time_rates.py ${HDGC} ${H}/heat_poly_k4.hdg --scheme sdirk3
      --steps 0.05,0.025,0.0125 --param step --min 2.8 --max 3.2 --mesh square:2)
endif()

# in space: examples/heat.hdg (BDF3, a non-polynomial solution) at dt = 0.0025: k+1 for q and
# u, k+2 for ustar
set(RATE2 "(1\\.9[0-9]|2\\.0[0-9])")
set(RATE3 "(2\\.9[0-9]|3\\.0[0-9])")
set(RATE4 "(3\\.[89][0-9]|4\\.0[0-9])")
hdg_cli_test(heat_space_convergence 0
  -e "fit +${RATE2} +${RATE2} +${RATE3}$" -e "fit +${RATE3} +${RATE3} +${RATE4}$"
  -- ${HDGC} convergence ${HDG_EXAMPLES}/heat.hdg --orders 1..2 --meshes 4,8,16 --set step=0.0025
  --json /dev/null)

# unsteady convection-diffusion (GMRES on the non-symmetric trace system, BDF3): u at k+1;
# GMRES + mg iterations per solve on square:64 stay low
hdg_cli_test(heat_cd_convergence 0
  -e "fit +(1\\.[89][0-9]) +${RATE2}$" -e "fit +(2\\.[89][0-9]) +${RATE3}$"
  -- ${HDGC} convergence ${H}/cd_transient.hdg --orders 1..2 --meshes 4,8,16 --json /dev/null)
hdg_cli_test(heat_cd_gmres_mg 0 -e "^  bdf3: 30 steps .*at most ([1-9]|1[0-9]) per solve" --
  ${HDGC} run ${H}/cd_transient.hdg --mesh square:64 --precond mg)

# the run: steps, solves (BDF2: one SDIRK2 step of 2 stages, then one solve a step), one
# matrix per sigma (2 for a BDF2 with its start, 1 for SDIRK), errors in time
hdg_cli_test(heat_run_bdf2 0
  -e "^  bdf2: 20 steps of dt = 0.025 to t = 0.5, 21 trace solves"
  -e "L2 error u +[0-9.]+e-0[4-9]" --
  ${HDGC} run ${H}/heat_poly.hdg --mesh square:4 --set step=0.025 --final-time 0.5)
add_test(NAME heat_run_report
  COMMAND sh -c "\"$0\" run \"$1\" --mesh square:4 --json heat_report.json --quiet && grep -Eq '\"matrices\":[[:space:]]+1' heat_report.json && grep -Eq '\"solves\":[[:space:]]+30' heat_report.json && grep -q '\"errors_max_in_time\"' heat_report.json"
    ${HDGC} ${H}/heat_poly_k4.hdg
  WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
# the multilevel preconditioner set up once per matrix: iterations per solve flat in h
hdg_cli_test(heat_mg_iterations 0 -e "at most ([1-9]|1[0-9]|2[0-5]) per solve" --
  ${HDGC} run ${HDG_EXAMPLES}/heat.hdg --mesh square:32 --precond mg --final-time 0.05)

# --vtk BASE.pvd --every n: a file after every n-th step and at the final time, u* in each,
# on the host and on the device (the emulator)
if(Python3_Interpreter_FOUND)
  foreach(backend c cuda)
    add_test(NAME heat_vtk_series_${backend}
      COMMAND sh -c "rm -rf series_$4 && mkdir series_$4 && HDGC_LIBCUDA=emulator \"$0\" run \"$1\" --mesh square:4 --backend $4 --vtk series_$4/h.pvd --every 20 --quiet && \"$2\" \"$3\" series_$4/h.pvd:3 series_$4/h_00002.vtu:480:32 +u +q:3 +ustar && grep -c timestep series_$4/h.pvd | grep -qx 3 && grep -q 'timestep=\"0.5\"' series_$4/h.pvd"
        ${HDGC} ${HDG_EXAMPLES}/heat.hdg ${Python3_EXECUTABLE} ${HDG_TEST_DIR}/check_vtu.py ${backend}
      WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  endforeach()
endif()

# the device (the emulator here) steps as the host does: the same errors to 1e-9 (BDF2 with
# its SDIRK2 start and block Jacobi; BDF3 + mg with u* and the estimate)
if(Python3_Interpreter_FOUND)
  foreach(case "heat_poly;${H}/heat_poly.hdg;--mesh;square:4;--set;step=0.1"
               "heat_mg;${HDG_EXAMPLES}/heat.hdg;--mesh;square:8;--order;2;--precond;mg")
    list(GET case 0 name)
    list(GET case 1 file)
    list(SUBLIST case 2 -1 args)
    string(REPLACE ";" " " args "${args}")
    add_test(NAME heat_cuda_emulated_${name}
      COMMAND sh -c "\"$0\" run \"$1\" ${args} --json ${name}_host.json --quiet && HDGC_LIBCUDA=emulator \"$0\" run \"$1\" ${args} --backend cuda --json ${name}_dev.json --quiet && \"$2\" \"$3\" ${name}_host.json ${name}_dev.json --near errors --rtol 1e-9 && \"$2\" \"$3\" ${name}_host.json ${name}_dev.json --near errors_max_in_time --rtol 1e-9 && grep -q '\"solves\"' ${name}_dev.json"
        ${HDGC} ${file} ${Python3_EXECUTABLE} ${HDG_TEST_DIR}/compare_reports.py
      WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  endforeach()
endif()

# refusals: an option of explicit DG, time options on a steady problem
hdg_cli_test(heat_cfl_refused 2 -e "cfl applies to explicit DG problems. .*heat.hdg is HDG with implicit time stepping"
  -- ${HDGC} run ${HDG_EXAMPLES}/heat.hdg --cfl 0.5)
hdg_cli_test(heat_final_time_steady 2 -e "final-time applies to time-dependent .DG. problems. .*poisson.hdg is steady HDG"
  -- ${HDGC} run ${HDG_EXAMPLES}/poisson.hdg --final-time 1)

# hdgc convergence --dt: rates in time on one mesh (BDF2: 2); --dt with two meshes is bad usage;
# hdgc run --dt overrides the file's step (DG too: the fixed step instead of the cfl)
hdg_cli_test(heat_convergence_dt 0 -e "^         dt +q +rate +u +rate$" -e "^  2\\.500e-02 " -e "fit +(1\\.9[0-9]) +(1\\.9[0-9])$" --
  ${HDGC} convergence ${H}/heat_poly.hdg --orders 2 --meshes 4 --dt 0.1,0.05,0.025 --json /dev/null)
hdg_cli_test(heat_convergence_dt_meshes 2 -e "dt sweeps the time step on one mesh" --
  ${HDGC} convergence ${H}/heat_poly.hdg --meshes 4,8 --dt 0.1)
hdg_cli_test(heat_run_dt 0 -e "^  bdf2: 8 steps of dt = 0.125 to t = 1," -- ${HDGC} run ${H}/heat_poly.hdg --mesh square:2 --dt 0.125)
hdg_cli_test(dg_run_dt 0 -e "10 steps of dt = 0.01 .cfl 0.557" -- ${HDGC} run ${HDG_EXAMPLES}/maxwell2d.hdg --mesh square:4 --dt 0.01 --final-time 0.1)
# --png of a transient HDG run: the caption ends with the final time, on the host and on the
# device (the CUDA emulator)
foreach(backend c cuda)
  hdg_cli_test(heat_png_caption_${backend} 0
    -e "\"png_caption\":[[:space:]]*\"heat   u   k = 3   square:4   \\(32 elements\\)   t = 0\\.5\""
    -- env HDGC_LIBCUDA=emulator ${HDGC} run ${HDG_EXAMPLES}/heat.hdg --mesh square:4 --backend ${backend}
       --png /dev/null --json /dev/stdout --quiet)
endforeach()

# coefficients of matrix terms that depend on t (issue 38, item 1): rho(t) dt(u), kappa(t), a
# reaction c(x, y, t) and a Robin alpha(t) (heat_tcoef), a convection speed(t) (cd_tspeed).
# K_e, the trace matrix and its preconditioner are rebuilt at each solve's time: the schemes
# keep their orders in time (before: the matrix frozen at t = 0, errors 3-5e4 growing as dt
# shrank), the space rates are those of the constant twin cd_transient (before: fits -0.2 to
# -0.4), one matrix per solve in the report, and the device (the emulator) agrees to 1e-9.
if(Python3_Interpreter_FOUND)
  foreach(case "bdf2;1.85;2.2" "bdf3;2.85;3.5" "sdirk2;1.9;2.2")
    list(GET case 0 s)
    list(GET case 1 lo)
    list(GET case 2 hi)
    add_test(NAME heat_tcoef_rate_${s}
      COMMAND ${Python3_EXECUTABLE} ${HDG_TEST_DIR}/time_rates.py ${HDGC} ${H}/heat_tcoef.hdg --scheme ${s}
        --steps 0.1,0.05,0.025 --param step --min ${lo} --max ${hi} --mesh square:4)
  endforeach()
  add_test(NAME heat_tcoef_cuda_emulated
    COMMAND sh -c "\"$0\" run \"$1\" --mesh square:4 --set step=0.05 --json tcoef_host.json --quiet && HDGC_LIBCUDA=emulator \"$0\" run \"$1\" --mesh square:4 --set step=0.05 --backend cuda --json tcoef_dev.json --quiet && \"$2\" \"$3\" tcoef_host.json tcoef_dev.json --near errors --rtol 1e-9 && \"$2\" -c 'import json,sys; r=json.load(open(sys.argv[1]))[\"time\"]; e=json.load(open(sys.argv[2]))[\"errors\"][\"u\"]; sys.exit(not (r[\"matrices\"] == r[\"solves\"] == 21 and e < 2e-3))' tcoef_dev.json tcoef_host.json"
      ${HDGC} ${H}/heat_tcoef.hdg ${Python3_EXECUTABLE} ${HDG_TEST_DIR}/compare_reports.py
    WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
endif()
hdg_cli_test(heat_tspeed_convergence 0
  -e "fit +(1\\.[789][0-9]) +(2\\.[01][0-9])$" -e "fit +(2\\.[789][0-9]) +(3\\.[01][0-9])$"
  -- ${HDGC} convergence ${H}/cd_tspeed.hdg --orders 1..2 --meshes 4,8,16 --json /dev/null)

# the blow-up watch on the device (the emulator; issue 38 item 3): the same step as the host's
# (tests/hostile/heat.tsv, wave_bdf3_unstable)
hdg_cli_test(heat_wave_bdf3_unstable_emulated 1
  -e "unstable: the L2 error of v grew to 5\\.1[0-9]*, more than 10 times .* at step 64 .t = 12\\.8. of bdf3" --
  env HDGC_LIBCUDA=emulator ${HDGC} run ${H}/wave_first_order.hdg --mesh square:8 --set tau=0 --dt 0.2
  --final-time 40 --backend cuda)

# a failed run's series on the device (the emulator; issue 38 item 13): the good series stays
# (tests/hostile/heat.tsv, series_failed_keeps_good, on the host)
add_test(NAME heat_series_failed_emulated
  COMMAND sh -c [=[d=series_failed_$$; rm -rf $d; mkdir $d; cd $d || exit 1; "$0" run "$1" --mesh square:2 --vtk h.pvd --every 20 --quiet || exit 1; cp h.pvd good.pvd; sed 's/^func  f(x, y, t)   = .*/func  f(x, y, t)   = 1\/(t - 0.25)/' "$1" > bad.hdg; HDGC_LIBCUDA=emulator "$0" run bad.hdg --mesh square:2 --vtk h.pvd --every 5 --quiet --backend cuda 2> err.txt && exit 1; grep -q 'the output so far is in h.partial.pvd; h.pvd was not replaced' err.txt && cmp h.pvd good.pvd && test -e h.partial_00003.vtu && cd .. && rm -rf $d]=]
    ${HDGC} ${HDG_EXAMPLES}/heat.hdg
  WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
