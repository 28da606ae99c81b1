# tests/newton_cuda.cmake — Newton for nonlinear HDG on the device (--backend cuda; issue 41;
# drivers/run_hdg_cuda_newton.c, docs/solvers.md "Newton"), on the CUDA emulator
# (HDGC_LIBCUDA=emulator: the device paths without a GPU):
#   newton_cuda_emulated_diffusion  tests/data/hdg/newton_diffusion.hdg, k = 1, 2, 3 on square:4: the
#                                   device run takes the host's Newton steps and gives its errors to
#                                   1e-10 relative (measured: 5 steps at each k, the same Krylov
#                                   iterations per step, errors within 1.1e-12, |R| within 5e-14)
#   newton_cuda_emulated_bratu      tests/data/hdg/bratu_exact.hdg (-lap u - lambda e^u = f) likewise
#   newton_cuda_emulated_tets       tests/data/hdg/newton_diffusion3d.hdg, k = 1, 2, 3 on cube:2, likewise
#   newton_cuda_emulated_block      the same at k = 3 on square:2 with the kernels a block per element
#   newton_cuda_emulated_check      --newton-check on on the device: R's finite differences against J
#   newton_cuda_emulated_fallback   near Bratu's turning point: CG breaks down at step 4 on the device
#                                   as on the host, GMRES from there; Newton then stagnates and the run
#                                   exits 1 with the residual history (as newton_cg_fallback)
#   newton_cuda_emulated_time       Newton in implicit time steps on the device
#                                   (drivers/run_hdg_cuda_time.c): examples/nonlinear_heat.hdg, k = 1, 2
#                                   on square:2 to t = 0.06 (dt 0.02), BDF2 (its SDIRK2 start and two
#                                   BDF2 steps) and SDIRK2: the host's Newton steps at every time step
#                                   and its errors to 1e-10 relative (measured: steps 6 3 3 and 6 6 6,
#                                   the same Krylov iterations, errors within 2.7e-13)
#   newton_cuda_emulated_time3d     the same on tetrahedra: tests/data/hdg/nonlinear_heat3d.hdg,
#                                   k = 1, 2 on cube:2, BDF2 to t = 0.02 (dt 0.01) (measured: errors
#                                   within 6.3e-13)
#   newton_cuda_emulated_time_fail  a Newton solve that fails in a time step on the device: exit 1,
#                                   the time step, its time and the residual history named (the
#                                   host's message, newton_time_max_steps)
# The NVRTC compiles of the nonlinear kernels (local and recover with the state, residual,
# initial): cuda_examples_nonlinear_diffusion, cuda_examples_bratu (tests/cuda.cmake).
set(NWC_HDGC $<TARGET_FILE:hdgc>)
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  # host and device at each order: same steps, errors to 1e-10 relative, the device report's backend
  function(nwc_match name file mesh orders env)
    add_test(NAME ${name} COMMAND sh -c
      "for k in ${orders}; do '${NWC_HDGC}' run '${file}' --mesh ${mesh} --order $k --json ${name}_h$k.json --quiet && '${NWC_HDGC}' run '${file}' --mesh ${mesh} --order $k --backend cuda --json ${name}_d$k.json --quiet && grep -Eq '\"backend\":[[:space:]]*\"cuda\"' ${name}_d$k.json && '${Python3_EXECUTABLE}' '${HDG_TEST_DIR}/check_newton.py' ${name}_h$k.json ${name}_d$k.json --same-steps --match-errors 1e-10 || exit 1; done"
      WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
    set_tests_properties(${name} PROPERTIES TIMEOUT ${HDG_COMPILE_TIMEOUT} ENVIRONMENT "HDGC_LIBCUDA=emulator${env}")
  endfunction()
  nwc_match(newton_cuda_emulated_diffusion ${HDG_TEST_DIR}/data/hdg/newton_diffusion.hdg square:4 "1 2 3" "")
  # Bratu with a known solution (tests/data/hdg/bratu_exact.hdg, exp(u)): measured 4, 4, 3 steps, the
  # same Krylov iterations, errors within 3.7e-11 relative (q at k = 3, an absolute 5e-16)
  nwc_match(newton_cuda_emulated_bratu ${HDG_TEST_DIR}/data/hdg/bratu_exact.hdg square:4 "1 2 3" "")
  # tetrahedra (tests/data/hdg/newton_diffusion3d.hdg): measured 4 steps at k = 1, 2, 3 on cube:2, the
  # same Krylov iterations, errors within 2.8e-12 relative
  nwc_match(newton_cuda_emulated_tets ${HDG_TEST_DIR}/data/hdg/newton_diffusion3d.hdg cube:2 "1 2 3" "")
  # the kernels a block per element (locals in shared memory, __syncthreads checked by the emulator)
  nwc_match(newton_cuda_emulated_block ${HDG_TEST_DIR}/data/hdg/newton_diffusion.hdg square:2 "3" ";HDGC_CUDA_MAPPING=block")
  # --newton-check on on the device: the device's residual kernel is the derivative of its Jacobian
  # (rho falls tenfold from e = 1e-3 to 1e-4; measured 3.61e-7/3.61e-9, 7.22e-5/7.22e-6, 6.47e-6/6.47e-7
  # on the steps above the rounding, as on the host), 5 steps, quadratic
  add_test(NAME newton_cuda_emulated_check COMMAND sh -c
    "'${NWC_HDGC}' run '${HDG_TEST_DIR}/data/hdg/newton_diffusion.hdg' --mesh square:4 --order 1 --newton-check on --backend cuda --json nwc_check.json --quiet && '${Python3_EXECUTABLE}' '${HDG_TEST_DIR}/check_newton.py' nwc_check.json --jacobian-check --cmax 5 --max-steps 6"
    WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  set_tests_properties(newton_cuda_emulated_check PROPERTIES TIMEOUT ${HDG_COMPILE_TIMEOUT} ENVIRONMENT "HDGC_LIBCUDA=emulator")
endif()
hdg_cli_test(newton_cuda_emulated_fallback 1 -e "newton     step 4: CG breakdown at iteration [0-9]+: .*GMRES from this step on"
  -e "bratu: Newton stagnated at step [0-9]+: .*residual history \\|R\\| = [0-9.e+-]+, "
  -- ${NWC_HDGC} run ${HDG_EXAMPLES}/bratu.hdg --mesh square:4 --order 1 --set lambda=6.78 --backend cuda)
set_tests_properties(newton_cuda_emulated_fallback PROPERTIES ENVIRONMENT "HDGC_LIBCUDA=emulator")
if(Python3_Interpreter_FOUND)
  # in time, host and device at each order and scheme (the file's 'time' line rewritten for the
  # scheme): the same Newton steps at every time step, errors to 1e-10 relative
  function(nwc_time_match name file mesh orders schemes args)
    add_test(NAME ${name} COMMAND sh -c
      "for s in ${schemes}; do sed \"s/^time bdf2/time $s/\" '${file}' > ${name}_$s.hdg && for k in ${orders}; do '${NWC_HDGC}' run ${name}_$s.hdg --mesh ${mesh} --order $k ${args} --json ${name}_h$s$k.json --quiet && '${NWC_HDGC}' run ${name}_$s.hdg --mesh ${mesh} --order $k ${args} --backend cuda --json ${name}_d$s$k.json --quiet && grep -Eq '\"backend\":[[:space:]]*\"cuda\"' ${name}_d$s$k.json && grep -Eq '\"method\":[[:space:]]*\"'$s'\"' ${name}_d$s$k.json && '${Python3_EXECUTABLE}' '${HDG_TEST_DIR}/check_newton.py' ${name}_h$s$k.json ${name}_d$s$k.json --same-steps --match-errors 1e-10 --max-steps 4 || exit 1; done; done"
      WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
    set_tests_properties(${name} PROPERTIES TIMEOUT ${HDG_COMPILE_TIMEOUT} ENVIRONMENT "HDGC_LIBCUDA=emulator")
  endfunction()
  nwc_time_match(newton_cuda_emulated_time ${HDG_EXAMPLES}/nonlinear_heat.hdg square:2 "1 2" "bdf2 sdirk2"
    "--final-time 0.06")
  nwc_time_match(newton_cuda_emulated_time3d ${HDG_TEST_DIR}/data/hdg/nonlinear_heat3d.hdg cube:2 "1 2" "bdf2"
    "--final-time 0.02 --set step=0.01")
endif()
# a Newton failure in a time step on the device: exit 1 with the host's message
hdg_cli_test(newton_cuda_emulated_time_fail 1
  -e "nonlinear_heat: Newton at time step 1 \\(the solve at t = 0\\.0058[0-9]+\\) did not converge in 1 steps \\(--newton-max-steps. .*residual history \\|R\\| = [0-9.e+-]+, [0-9.e+-]+$"
  -- ${NWC_HDGC} run ${HDG_EXAMPLES}/nonlinear_heat.hdg --mesh square:2 --newton-max-steps 1 --backend cuda --quiet)
set_tests_properties(newton_cuda_emulated_time_fail PROPERTIES ENVIRONMENT "HDGC_LIBCUDA=emulator")
