# Explicit DG for nonlinear conservation laws (issue 41; ir/lower_dg_nonlinear.c, drivers/run_dg_nonlinear.c,
# drivers/dg_speed.c's state-dependent speed):
#   nldg_euler_rates_N    isentropic vortex (tests/data/nldg/euler_vortex.hdg, final 0.05) on square:8, 16
#                         periodic: the rate in density within [N + 0.5, N + 1.5], N = 1..4 (measured 1.81,
#                         2.88, 3.71, 4.65; square:4 is left out: the vortex core spans about one element)
#   nldg_burgers_rates    Burgers before the shock time, exact solution (burgers_smooth.hdg): fitted rates on
#                         square:8, 16, 32 within 0.35 of N + 1, N = 1..4 (1.95, 2.95, 3.75, 4.69)
#   nldg_burgers3d_rate   the same on tetrahedra (burgers3d.hdg), N = 2 on cube:4, 8 periodic: rate within
#                         [2.5, 3.5] (2.74; 2.88 from cube:6 to 12)
#   nldg_shallow_water_rates  examples/shallow_water.hdg (a depth wave carried with velocity (1, 1), the momentum
#                         source grad(g h^2/2)) on square:4, 8, 16 periodic, N = 2, 3: fitted rates in h and m
#                         within 0.4 of N + 1 (N = 3: 3.91, 3.96 in h)
#   nldg_shallow_water_totals  its totals of h, m.x, m.y kept to < 1e-12 relative (the source is a gradient of
#                         periodic data)
#   nldg_euler_totals     mass, momentum and energy totals conserved to < 1e-12 relative (periodic)
#   nldg_burgers_shock    past the shock time: the clear stop naming time, element and field, exit 1
#   nldg_euler_negative   a negative initial density: the term, element and state named at t = 0, exit 1
#   nldg_strong_refused   a derivative of the state inside a nonlinear term: refused with its position
#   nldg_mpi_euler        mpirun -np 2 equals the serial run to 1e-12 (errors, totals, steps)
#   nldg_euler_backend_*  examples/euler2d.hdg (the builtin 'wavespeed') with --backend c, and --backend cuda on the CUDA
#                         emulator: the host's errors and totals (the same 7 digits; the step's dt travels to the
#                         device whenever the wave speed changes it); the digits are the hand-written flux's
# The builtin 'wavespeed' (ir/lower_dg_wavespeed.c: the spectral radius of the normal flux Jacobian, both sides):
#   nldg_euler_ws_rates_N  the vortex with the builtin (euler_vortex_ws.hdg): density rate in [N + 0.5, N + 1.5],
#                         N = 1..3 (as the hand-written |v.n| + c: the errors agree to 2e-13, rounding)
#   nldg_wavespeed_exact  euler_wavespeed_check.hdg: a field d driven by the lift of (wavespeed - max(|v.n| + c))
#                         on every face stays at 1: its L2 error < 1e-13 (7e-16 measured; a speed off by 1e-10
#                         would show), totals conserved to < 1e-13
#   nldg_wavespeed_exact_3d  the same on tetrahedra (euler3d_wavespeed_check.hdg: an entropy wave, 6 fields, A_n
#                         6 x 6 with a triple eigenvalue v.n): d's L2 error < 1e-13 (5e-16 measured)
#   nldg_wavespeed_two_fields  two fields (the closed form): p_t + 4 u_x = 0, u_t + p_x = 0 with the builtin gives
#                         the errors of the hand-written speed 2 |nx| (--set hand=1) to 7 digits; _complex: b = -1
#                         (eigenvalues -+ 2i nx), the builtin is the modulus 2 |nx| as written by hand (the bound R
#                         = 4 |nx| of three or more fields would give p's error 4.560692e-02, not 4.754399e-02)
#   nldg_wavespeed_complex  a system that is not hyperbolic (eigenvalues nx, +-3i nx): the builtin takes the safe
#                         bound 3 |nx| (= rho), not the largest real root |nx|: wavespeed_complex.hdg's d stays at 1
#   nldg_burgers_ws_rates Burgers with the builtin (burgers_ws.hdg): rates within 0.35 of N + 1, N = 1..3 on
#                         square:8, 16, 32 before the shock (1.95, 2.95, 3.75, as the hand-written flux)
#   nldg_mpi_euler_ws     mpirun -np 2 with the builtin equals the serial run to 1e-12
# Conservation on tetrahedra (both sides of a face integrate the flux at the same points: the face rule's
# frames, ir/lower_dg_nonlinear.c), on tests/data/nldg/shuffled_cube_v22.msh made periodic: perturbed
# interior vertices, all 6 face orientations (test_dg3d_maps), the paired sides:
#   nldg_totals_3d_burgers  burgers3d.hdg (a max of |u| in the flux), N = 2 to t = 0.2: the total of u
#                         drifts < 1e-12 relative (5.6e-16 measured; 5.3e-7 when each side used its own points)
#   nldg_totals_3d_burgers_cuda  the same on the CUDA emulator (--backend cuda): the host's error and total
#   nldg_totals_3d_euler  euler3d_wavespeed_check.hdg (6 fields, the builtin wavespeed): all totals < 1e-12
#                         (1.3e-16; 1.5e-10 before), d's L2 error < 1e-13
#   nldg_mpi_burgers3d    mpirun -np 2 equals the serial run to 1e-12, both runs' totals drift < 1e-12
find_package(Python3 COMPONENTS Interpreter)
set(NLDG ${HDG_TEST_DIR}/data/nldg)
if(Python3_Interpreter_FOUND)
  foreach(N 1 2 3 4)
    add_test(NAME nldg_euler_rates_${N} COMMAND sh -c
      "\"$0\" convergence \"$1\" --orders ${N} --meshes 8,16 --mesh-options periodic=xy --json nldg_euler_rates_${N}.json --quiet && \"$2\" \"$3\" nldg_euler_rates_${N}.json 0.5 rho=1"
      $<TARGET_FILE:hdgc> ${NLDG}/euler_vortex.hdg ${Python3_EXECUTABLE} ${HDG_TEST_DIR}/check_rates.py)
  endforeach()
  foreach(N 1 2 3)
    add_test(NAME nldg_euler_ws_rates_${N} COMMAND sh -c
      "\"$0\" convergence \"$1\" --orders ${N} --meshes 8,16 --mesh-options periodic=xy --json nldg_euler_ws_rates_${N}.json --quiet && \"$2\" \"$3\" nldg_euler_ws_rates_${N}.json 0.5 rho=1"
      $<TARGET_FILE:hdgc> ${NLDG}/euler_vortex_ws.hdg ${Python3_EXECUTABLE} ${HDG_TEST_DIR}/check_rates.py)
  endforeach()
  add_test(NAME nldg_burgers_ws_rates COMMAND sh -c
    "\"$0\" convergence \"$1\" --orders 1..3 --meshes 8,16,32 --mesh-options periodic=xy --json nldg_burgers_ws_rates.json --quiet && \"$2\" \"$3\" nldg_burgers_ws_rates.json 0.35 u=1"
    $<TARGET_FILE:hdgc> ${NLDG}/burgers_ws.hdg ${Python3_EXECUTABLE} ${HDG_TEST_DIR}/check_rates.py)
  add_test(NAME nldg_burgers_rates COMMAND sh -c
    "\"$0\" convergence \"$1\" --orders 1..4 --meshes 8,16,32 --mesh-options periodic=xy --json nldg_burgers_rates.json --quiet && \"$2\" \"$3\" nldg_burgers_rates.json 0.35 u=1"
    $<TARGET_FILE:hdgc> ${NLDG}/burgers_smooth.hdg ${Python3_EXECUTABLE} ${HDG_TEST_DIR}/check_rates.py)
  add_test(NAME nldg_shallow_water_rates COMMAND sh -c
    "\"$0\" convergence \"$1\" --orders 2,3 --meshes 4,8,16 --mesh-options periodic=xy --json nldg_shallow_water_rates.json --quiet && \"$2\" \"$3\" nldg_shallow_water_rates.json 0.4 h=1 m=1"
    $<TARGET_FILE:hdgc> ${HDG_EXAMPLES}/shallow_water.hdg ${Python3_EXECUTABLE} ${HDG_TEST_DIR}/check_rates.py)
  add_test(NAME nldg_burgers3d_rate COMMAND sh -c
    "\"$0\" convergence \"$1\" --orders 2 --meshes 4,8 --mesh-options periodic=xyz --json nldg_burgers3d_rate.json --quiet && \"$2\" \"$3\" nldg_burgers3d_rate.json 0.5 u=1"
    $<TARGET_FILE:hdgc> ${NLDG}/burgers3d.hdg ${Python3_EXECUTABLE} ${HDG_TEST_DIR}/check_rates.py)
endif()
hdg_cli_test(nldg_euler_totals 0 -e "L2 error rho +1\\.1[0-9]+e-03"
  -e "totals rho 0.98[0-9]+, m.x 0.98[0-9]+, m.y 0.98[0-9]+, E 3.44[0-9]+ \\(max relative drift [0-9.]+e-(1[3-9]|[2-9][0-9])\\)" --
  $<TARGET_FILE:hdgc> run ${NLDG}/euler_vortex.hdg --mesh square:8,periodic=xy --order 3)
hdg_cli_test(nldg_wavespeed_exact 0 -e "L2 error d +[0-9.]+e-(1[3-9]|[2-9][0-9])"
  -e "totals rho 0.98[0-9]+, m.x 0.98[0-9]+, m.y 0.98[0-9]+, E 3.44[0-9]+, d 1 \\(max relative drift [0-9.]+e-(1[3-9]|[2-9][0-9])\\)" --
  $<TARGET_FILE:hdgc> run ${NLDG}/euler_wavespeed_check.hdg --mesh square:8,periodic=xy --order 3)
hdg_cli_test(nldg_wavespeed_exact_3d 0 -e "L2 error d +[0-9.]+e-(1[3-9]|[2-9][0-9])" --
  $<TARGET_FILE:hdgc> run ${NLDG}/euler3d_wavespeed_check.hdg --mesh cube:3,periodic=xyz)
hdg_cli_test(nldg_wavespeed_two_fields 0 -e "L2 error p +5\\.086664e-02" -e "L2 error u +2\\.543332e-02" --
  $<TARGET_FILE:hdgc> run ${NLDG}/wavespeed_two_fields.hdg --mesh square:4,periodic=xy)
hdg_cli_test(nldg_wavespeed_two_fields_complex 0 -e "L2 error p +4\\.754399e-02" -e "L2 error u +1\\.115186e-01" --
  $<TARGET_FILE:hdgc> run ${NLDG}/wavespeed_two_fields.hdg --mesh square:4,periodic=xy --set b=-1 --final-time 0.01)
hdg_cli_test(nldg_wavespeed_complex 0 -e "L2 error d +[0-9.]+e-(1[3-9]|[2-9][0-9])" --
  $<TARGET_FILE:hdgc> run ${NLDG}/wavespeed_complex.hdg --mesh square:4,periodic=xy)
hdg_cli_test(nldg_shallow_water_totals 0 -e "L2 error h +5\\.4[0-9]+e-05"
  -e "totals h 1, m.x 1, m.y 1 \\(max relative drift [0-9.]+e-(1[3-9]|[2-9][0-9])\\)" --
  $<TARGET_FILE:hdgc> run ${HDG_EXAMPLES}/shallow_water.hdg --mesh square:8,periodic=xy)
set(NLDG_SHUFFLED ${NLDG}/shuffled_cube_v22.msh,periodic=left:right,front:back,bottom:top)
set(NLDG_DRIFT "max relative drift ([0-9.]+e-(1[3-9]|[2-9][0-9])|0\\.00e\\+00)\\)")
foreach(B c cuda)
  set(name nldg_totals_3d_burgers)
  if(B STREQUAL "cuda")
    set(name nldg_totals_3d_burgers_cuda)
  endif()
  hdg_cli_test(${name} 0 -e "16 steps" -e "L2 error u +5\\.5277[0-9]+e-02" -e "totals u 0\\.4995224863 \\(${NLDG_DRIFT}" --
    env HDGC_LIBCUDA=emulator $<TARGET_FILE:hdgc> run ${NLDG}/burgers3d.hdg --mesh ${NLDG_SHUFFLED} --final-time 0.2
    --backend ${B})
endforeach()
set_tests_properties(nldg_totals_3d_burgers_cuda PROPERTIES TIMEOUT ${HDG_COMPILE_TIMEOUT})
hdg_cli_test(nldg_totals_3d_euler 0 -e "L2 error d +[0-9.]+e-(1[3-9]|[2-9][0-9])"
  -e "totals rho 1\\.005[0-9]+, m.x 1\\.005[0-9]+, m.y 0\\.50[0-9]+, m.z -0\\.30[0-9]+, E 3\\.17[0-9]+, d 1 \\(${NLDG_DRIFT}" --
  $<TARGET_FILE:hdgc> run ${NLDG}/euler3d_wavespeed_check.hdg --mesh ${NLDG_SHUFFLED})
hdg_cli_test(nldg_burgers_shock 1
  -e "burgers2d': the solution left the smooth regime at t = 0\\.3[0-9]+ \\(step [0-9]+\\): at element [0-9]+ .* of u's modal energy, above the limit 0\\.00309 = 0\\.25/N\\^4 for N = 3" -e "Gibbs oscillations [(]docs/method[.]md, section 6[)]" --
  $<TARGET_FILE:hdgc> run ${HDG_EXAMPLES}/burgers2d.hdg --mesh square:16,periodic=xy --final-time 0.6)
hdg_cli_test(nldg_euler_negative 1
  -e "euler_negative': the state left the admissible set at t = 0 \\(step 0\\): the face term at .*euler_negative.hdg:29:40 is -?nan at element [0-9]+, node [0-9]+ \\(0\\.25, 0\\.25\\), where rho = -0\\.5.*see docs/method[.]md, section 6[)]" --
  $<TARGET_FILE:hdgc> run ${NLDG}/euler_negative.hdg --mesh square:8,periodic=xy --order 2)
hdg_cli_test(nldg_strong_refused 1
  -e "strong_form.hdg:9:23: explicit DG evaluates nonlinear terms from the state's values: a derivative of an unknown inside a nonlinear term is not supported" --
  $<TARGET_FILE:hdgc> run ${NLDG}/strong_form.hdg --mesh square:4,periodic=xy)
find_program(NLDG_MPIRUN mpirun)
if(NLDG_MPIRUN AND Python3_Interpreter_FOUND)
  add_test(NAME nldg_mpi_euler COMMAND ${Python3_EXECUTABLE} ${HDG_TEST_DIR}/nldg_mpi.py $<TARGET_FILE:hdgc>
    ${NLDG_MPIRUN} 2 1e-12 -- ${NLDG}/euler_vortex.hdg --mesh square:8,periodic=xy --order 2)
  set_tests_properties(nldg_mpi_euler PROPERTIES TIMEOUT ${HDG_COMPILE_TIMEOUT} RESOURCE_LOCK mpirun)
  add_test(NAME nldg_mpi_euler_ws COMMAND ${Python3_EXECUTABLE} ${HDG_TEST_DIR}/nldg_mpi.py $<TARGET_FILE:hdgc>
    ${NLDG_MPIRUN} 2 1e-12 -- ${NLDG}/euler_vortex_ws.hdg --mesh square:8,periodic=xy --order 2)
  set_tests_properties(nldg_mpi_euler_ws PROPERTIES TIMEOUT ${HDG_COMPILE_TIMEOUT} RESOURCE_LOCK mpirun)
  add_test(NAME nldg_mpi_burgers3d COMMAND ${Python3_EXECUTABLE} ${HDG_TEST_DIR}/nldg_mpi.py $<TARGET_FILE:hdgc>
    ${NLDG_MPIRUN} 2 1e-12 -- ${NLDG}/burgers3d.hdg --mesh ${NLDG_SHUFFLED} --final-time 0.2)
  set_tests_properties(nldg_mpi_burgers3d PROPERTIES TIMEOUT ${HDG_COMPILE_TIMEOUT} RESOURCE_LOCK mpirun)
endif()
# the host's figures, then the device driver's on the emulator (the same digits)
foreach(B c cuda)
  hdg_cli_test(nldg_euler_backend_${B} 0 -e "L2 error rho +2\\.193388e-02" -e "L2 error E +1\\.057241e-01"
    -e "totals rho 0\\.9873986379, m.x 0\\.9873986379, m.y 0\\.9873986379, E 3\\.474873503" --
    env HDGC_LIBCUDA=emulator $<TARGET_FILE:hdgc> run ${HDG_EXAMPLES}/euler2d.hdg --mesh square:4,periodic=xy --order 2
    --final-time 0.02 --backend ${B})
endforeach()
set_tests_properties(nldg_euler_backend_cuda PROPERTIES TIMEOUT ${HDG_COMPILE_TIMEOUT})
