# tests/newton_snes.cmake — Newton for nonlinear HDG through PETSc's SNES (`--newton snes`, issue 41
# item 3; drivers/run_hdg_snes.c, runtime/petsc/petsc_snes.c, docs/solvers.md "Newton"): SNES owns
# the iteration, each step J^-1 F by static condensation (the jinv_local/jinv_recover kernels) as
# a PCShell under KSP preonly; the reports checked by tests/check_newton.py and tests/check_snes.py.
set(SNES_HDGC $<TARGET_FILE:hdgc>)
set(SNES_ND ${HDG_TEST_DIR}/data/hdg/newton_diffusion.hdg)
set(SNES_ND3 ${HDG_TEST_DIR}/data/hdg/newton_diffusion3d.hdg)
set(SNES_BRATU ${HDG_TEST_DIR}/data/hdg/bratu_exact.hdg)
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  set(SNES_CN "'${Python3_EXECUTABLE}' '${HDG_TEST_DIR}/check_newton.py'")
  set(SNES_CS "'${Python3_EXECUTABLE}' '${HDG_TEST_DIR}/check_snes.py'")
  # hdgc's own loop and SNES on the same problem: the same step count and errors to 1e-10
  # relative (measured: 5 steps at k = 1..3 on square:4, 4 on cube:2; errors within 1e-13), the
  # last steps quadratic; SNES's defaults (newtonls, bt, preonly, the shell) and its reason
  function(snes_pair name file mesh orders)
    set(cmd "")
    foreach(k ${orders})
      string(APPEND cmd "'${SNES_HDGC}' run '${file}' --mesh ${mesh} --order ${k} --json ${name}_h${k}.json --quiet && "
        "'${SNES_HDGC}' run '${file}' --mesh ${mesh} --order ${k} --newton snes --json ${name}_s${k}.json --quiet && "
        "${SNES_CN} ${name}_h${k}.json ${name}_s${k}.json --same-steps --match-errors 1e-10 --cmax 5 && "
        "${SNES_CS} ${name}_s${k}.json --snes-type newtonls --linesearch bt --ksp-type preonly --pc-type shell "
        "--reason CONVERGED_FNORM_RELATIVE && ")
    endforeach()
    add_test(NAME ${name} COMMAND sh -c "${cmd} true" WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
    set_tests_properties(${name} PROPERTIES TIMEOUT ${HDG_COMPILE_TIMEOUT})
  endfunction()
  snes_pair(newton_snes_diffusion ${SNES_ND} square:4 "1;2;3")
  snes_pair(newton_snes_diffusion3d ${SNES_ND3} cube:2 "1;2;3")
  # Bratu with a known solution (exp(u)): 3 steps both ways, the same errors
  snes_pair(newton_snes_bratu ${SNES_BRATU} square:8 "2")
  # J^-1 (the PCShell) on a pseudo-random b, Dirichlet rows included, against the residual's
  # central differences along J^-1 b at every step (--newton-check on): rho(1e-4) <= 1e-7, a
  # twentyfold fall from 1e-3 to 1e-4 above rounding (measured 1e-9 to 2e-9, a hundredfold);
  # on triangles at k = 2, on tetrahedra at k = 2 and on Bratu (exp)
  add_test(NAME newton_snes_jinv_check COMMAND sh -c
    "'${SNES_HDGC}' run '${SNES_ND}' --mesh square:4 --order 2 --newton snes --newton-check on --json sj1.json --quiet && '${SNES_HDGC}' run '${SNES_ND3}' --mesh cube:2 --order 2 --newton snes --newton-check on --json sj2.json --quiet && '${SNES_HDGC}' run '${SNES_BRATU}' --mesh square:4 --newton snes --newton-check on --json sj3.json --quiet && ${SNES_CS} sj1.json sj2.json sj3.json --jinv-check 1e-7"
    WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  # a hard start (amplitude 0.7 on square:4, where hdgc's loop halves its first step): SNES's bt
  # line search shortens the first step (lambda 0.48 measured) and lowers |R|; basic takes every
  # step whole, |R| rises first (8.44 -> 8.74) and still converges (5 steps); l2 too
  add_test(NAME newton_snes_linesearch COMMAND sh -c
    "'${SNES_HDGC}' run '${SNES_ND}' --mesh square:4 --set amp=0.7 --newton snes --json sl_bt.json --quiet && '${SNES_HDGC}' run '${SNES_ND}' --mesh square:4 --set amp=0.7 --newton snes --petsc '-snes_linesearch_type basic' --json sl_basic.json --quiet && '${SNES_HDGC}' run '${SNES_ND}' --mesh square:4 --set amp=0.7 --newton snes --petsc '-snes_linesearch_type l2' --json sl_l2.json --quiet && ${SNES_CN} sl_bt.json --line-search --max-steps 10 --max-error u=3e-2 && ${SNES_CS} sl_bt.json --linesearch bt --first-fall && ${SNES_CN} sl_basic.json --max-steps 10 && ${SNES_CS} sl_basic.json --linesearch basic --first-rise --full-steps && ${SNES_CN} sl_l2.json --line-search --max-steps 10 && ${SNES_CS} sl_l2.json --linesearch l2"
    WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  # any -snes_* option: the trust region (newtontr, 8 steps measured) converges to the same errors;
  # the trace solve by PETSc (--solver petsc) with the -trace_* options (GMRES + Jacobi), the same
  # errors; an outer -ksp_type gmres on the matrix-free J (one iteration a step) too
  add_test(NAME newton_snes_options COMMAND sh -c
    "'${SNES_HDGC}' run '${SNES_ND}' --mesh square:4 --json so0.json --quiet && '${SNES_HDGC}' run '${SNES_ND}' --mesh square:4 --newton snes --petsc '-snes_type newtontr' --json so1.json --quiet && '${SNES_HDGC}' run '${SNES_ND}' --mesh square:4 --newton snes --solver petsc --petsc '-trace_ksp_type gmres -trace_pc_type jacobi' --json so2.json --quiet && '${SNES_HDGC}' run '${SNES_ND}' --mesh square:4 --newton snes --petsc '-ksp_type gmres' --json so3.json --quiet && ${SNES_CN} so0.json so1.json so2.json so3.json --max-steps 12 --match-errors 1e-9 && ${SNES_CS} so1.json --snes-type newtontr && ${SNES_CS} so2.json --ksp-type preonly && grep -Eq '\"ksp_type\":[[:space:]]*\"gmres\"' so2.json && grep -Eq '\"pc_type\":[[:space:]]*\"jacobi\"' so2.json && ${SNES_CS} so3.json --ksp-type gmres --pc-type shell"
    WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  # in implicit time steps (a SNES per solve of the scheme, warm-started as the loop's):
  # examples/nonlinear_heat.hdg (BDF2, 10 steps on square:4) and tests/data/hdg/nonlinear_heat3d.hdg
  # (cube:2, 3 steps): the loop's Newton steps at every time step (6, 3, 3, ...), its errors to 1e-10
  add_test(NAME newton_snes_time COMMAND sh -c
    "'${SNES_HDGC}' run '${HDG_EXAMPLES}/nonlinear_heat.hdg' --mesh square:4 --final-time 0.2 --json st0.json --quiet && '${SNES_HDGC}' run '${HDG_EXAMPLES}/nonlinear_heat.hdg' --mesh square:4 --final-time 0.2 --newton snes --json st1.json --quiet && '${SNES_HDGC}' run '${HDG_TEST_DIR}/data/hdg/nonlinear_heat3d.hdg' --mesh cube:2 --final-time 0.05 --json st2.json --quiet && '${SNES_HDGC}' run '${HDG_TEST_DIR}/data/hdg/nonlinear_heat3d.hdg' --mesh cube:2 --final-time 0.05 --newton snes --json st3.json --quiet && ${SNES_CN} st0.json st1.json --match-errors 1e-10 --per-time-step 4 && ${SNES_CN} st2.json st3.json --match-errors 1e-10 && ${SNES_CS} st1.json --same-time-steps st0.json && ${SNES_CS} st3.json --same-time-steps st2.json"
    WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  set_tests_properties(newton_snes_time newton_snes_jinv_check newton_snes_linesearch newton_snes_options
                       PROPERTIES TIMEOUT ${HDG_COMPILE_TIMEOUT})
endif()
# -snes_monitor's lines and hdgc's own step lines, the converged reason
hdg_cli_test(newton_snes_monitor 0 -e "^  0 SNES Function norm 5\\.88734" -e "^  5 SNES Function norm "
  -e "^  newton  0  \\|R\\| 5\\.887346e\\+00  \\(first guess. SNES\\)"
  -e "newton converged in 5 steps \\(SNES newtonls, CONVERGED_FNORM_RELATIVE\\)"
  -- ${SNES_HDGC} run ${SNES_ND} --mesh square:4 --order 2 --newton snes --petsc -snes_monitor)
# divergence: the step limit (-snes_max_it 1, or --newton-max-steps) exits 1 with SNES's reason and
# the residual history
hdg_cli_test(newton_snes_max_it 1
  -e "nonlinear_diffusion: Newton \\(SNES newtonls, line search bt\\) did not converge: DIVERGED_MAX_IT after 1 steps. residual history \\|R\\| = [0-9.e+-]+, [0-9.e+-]+$"
  -- ${SNES_HDGC} run ${SNES_ND} --mesh square:4 --newton snes --petsc "-snes_max_it 1" --quiet)
hdg_cli_test(newton_snes_max_steps 1 -e "DIVERGED_MAX_IT after 2 steps. residual history \\|R\\| = [0-9.e+-]+, [0-9.e+-]+, [0-9.e+-]+$"
  -- ${SNES_HDGC} run ${SNES_ND} --mesh square:4 --newton snes --newton-max-steps 2 --quiet)
# ... and in a time step, named
hdg_cli_test(newton_snes_time_max_steps 1
  -e "nonlinear_heat: Newton \\(SNES newtonls, line search bt\\) at time step 1 \\(the solve at t = 0\\.0058[0-9]+\\) did not converge: DIVERGED_MAX_IT after 1 steps. residual history \\|R\\| = [0-9.e+-]+, [0-9.e+-]+$"
  -- ${SNES_HDGC} run ${HDG_EXAMPLES}/nonlinear_heat.hdg --mesh square:4 --newton snes --newton-max-steps 1 --quiet)
# a misspelt option is refused, not ignored
hdg_cli_test(newton_snes_unused_option 1 -e "--petsc: option -snes_monitr was not used by the solve"
  -- ${SNES_HDGC} run ${SNES_ND} --mesh square:4 --newton snes --petsc -snes_monitr --quiet)
# where SNES does not run yet: refused with the way out (the device), and the option
# on a linear problem or a bad value (exit 2, as --newton-* are)
hdg_cli_test(newton_snes_cuda 1 -e "--newton snes .* not with --backend cuda: use --newton hdgc"
  -- ${SNES_HDGC} run ${SNES_ND} --mesh square:2 --newton snes --backend cuda --quiet)
hdg_cli_test(newton_snes_linear 2 -e "--newton applies to nonlinear HDG problems \\(Newton\\). .*poisson.hdg is linear"
  -- ${SNES_HDGC} run ${HDG_EXAMPLES}/poisson.hdg --mesh square:2 --newton snes)
hdg_cli_test(newton_snes_bad_value 2 -e "--newton petsc: expected hdgc \\(hdgc's own loop\\) or snes"
  -- ${SNES_HDGC} run ${SNES_ND} --mesh square:2 --newton petsc)
# under mpirun (SNES on PETSC_COMM_WORLD: each rank's rows are its elements' and its owned faces';
# the partition faces' trace values from their owners, their residual rows summed over the two
# ranks; the distributed trace solve in J^-1): tests/mpi_runs.py --newton, the serial run's steps,
# step lengths, history and errors (to 1e-9; measured 1e-12) at np 2 and 3 with the J^-1 check
# (--newton-check on, its norms over the ranks), and in time steps (nonlinear_heat, np 2: the
# serial 33 Newton steps). A bt line search's step length differs from the serial one in the last
# bits (its slope is a matrix-free difference), so the hard start is not compared here.
find_package(Python3 COMPONENTS Interpreter)
if(COMMAND hdg_mpi_test AND Python3_Interpreter_FOUND)
  set(SNES_RUNS ${Python3_EXECUTABLE} ${HDG_TEST_DIR}/mpi_runs.py $<TARGET_FILE:hdgc>)
  hdg_mpi_test(newton_snes_mpi ${SNES_RUNS} --np 2,3 --rtol 1e-9 --its 100 --newton
    -- ${SNES_ND} --mesh square:8 --newton snes --newton-check on --rtol 1e-14)
  hdg_mpi_test(newton_snes_mpi_time ${SNES_RUNS} --np 2 --rtol 1e-9 --its 100 --newton
    -- ${HDG_EXAMPLES}/nonlinear_heat.hdg --mesh square:4 --final-time 0.2 --newton snes --rtol 1e-14)
endif()
# --petsc's -trace_* options go to the trace solve (without "trace_"): a misspelt one is refused
# naming where it came from
hdg_cli_test(newton_snes_trace_option 1
  -e "--newton snes: the trace solve with --petsc's -trace_\\* options .*option -ksp_typo was not used"
  -- ${SNES_HDGC} run ${SNES_ND} --mesh square:4 --newton snes --solver petsc --petsc "-trace_ksp_typo cg" --quiet)
# the jinv kernels are in every nonlinear module's IR (hdgc emit shows them) but compiled only by a
# --newton snes run: the C source of a run without it has none (and so is what it was before them)
add_test(NAME newton_snes_kernels_dropped COMMAND sh -c
  "rm -rf sk && mkdir sk && '${SNES_HDGC}' emit '${SNES_ND}' -o sk >/dev/null && grep -q 'nonlinear_diffusion_jinv_local' sk/*.c && grep -q 'nonlinear_diffusion_jinv_recover' sk/*.c && HDGC_KEEP_SOURCE=sk/run.c '${SNES_HDGC}' run '${SNES_ND}' --mesh square:2 --quiet && ! grep -q jinv sk/run.c && grep -q nonlinear_diffusion_residual sk/run.c && HDGC_KEEP_SOURCE=sk/snes.c '${SNES_HDGC}' run '${SNES_ND}' --mesh square:2 --newton snes --quiet && grep -q nonlinear_diffusion_jinv_local sk/snes.c"
  WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
