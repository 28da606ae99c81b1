# The HDG pipeline on the device against the host (issue 7): errors, element
# fields and iterations agree to 1e-10 for every HDG example.
#   hdg_cuda            [label gpu] on the GPU; skips (77) without one
#   hdg_cuda_high       [label gpu] k = 4..8 on square:16; skips without a GPU
#   hdg_cuda_emulated   the same checks on the CUDA emulator (HDGC_LIBCUDA=emulator): runs in CI
hdg_unit_test(hdg_cuda test_hdg_cuda.c)
set_tests_properties(hdg_cuda PROPERTIES SKIP_RETURN_CODE 77 LABELS gpu)
add_test(NAME hdg_cuda_high COMMAND test_hdg_cuda high WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(hdg_cuda_high PROPERTIES SKIP_RETURN_CODE 77 LABELS gpu)
add_test(NAME hdg_cuda_emulated COMMAND test_hdg_cuda examples WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(hdg_cuda_emulated PROPERTIES ENVIRONMENT "HDGC_LIBCUDA=emulator;HDG_REQUIRE_GPU=1")
# HDG on tetrahedra on the device (issue 39): poisson3d k = 1..3 on cube:2, perturbed cube:3, CG + mg;
# the vector Laplacian (3 trace components), pure Neumann poisson3d, heat3d (BDF3): as above
add_test(NAME hdg_cuda_emulated_tets COMMAND test_hdg_cuda tets WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(hdg_cuda_emulated_tets PROPERTIES TIMEOUT ${HDG_COMPILE_TIMEOUT}
  ENVIRONMENT "HDGC_LIBCUDA=emulator;HDG_REQUIRE_GPU=1")
add_test(NAME hdg_cuda_tets COMMAND test_hdg_cuda tets WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(hdg_cuda_tets PROPERTIES SKIP_RETURN_CODE 77 LABELS gpu)
# the CLI on the emulator: auto picks the device and says so; both families run
hdg_cli_test(run_backend_auto_emulated 0 -e "auto chose cuda: hdgc CUDA emulator" -e "L2 error u +2\\.7292[0-9]+e-05"
  -- $<TARGET_FILE:hdgc> run ${HDG_EXAMPLES}/poisson.hdg --backend auto)
set_tests_properties(run_backend_auto_emulated PROPERTIES ENVIRONMENT "HDGC_LIBCUDA=emulator")
hdg_cli_test(run_backend_cuda_dg_emulated 0 -e "L2 error Ez +2\\.2879[0-9]+e-07"
  -- $<TARGET_FILE:hdgc> run ${HDG_EXAMPLES}/maxwell2d.hdg --backend cuda)
set_tests_properties(run_backend_cuda_dg_emulated PROPERTIES ENVIRONMENT "HDGC_LIBCUDA=emulator")
hdg_cli_test(run_backend_cuda_csr_emulated 1 -e "--format csr: the device solver multiplies in the dense block format only"
  -- $<TARGET_FILE:hdgc> run ${HDG_EXAMPLES}/poisson.hdg --backend cuda --format csr)
set_tests_properties(run_backend_cuda_csr_emulated PROPERTIES ENVIRONMENT "HDGC_LIBCUDA=emulator")
# the stopping rule's rounding floor on the device vectors (runtime/solve/krylov.c estimates it with the
# device operator): the default accepts CG's stagnation there and the summary says so
hdg_cli_test(run_cuda_rounding_floor_emulated 0
  -e "relative residual [0-9.e+-]+ [(]the rounding floor: eps [|][|]A[|][|] [|][|]x[|][|] / [|][|]b[|][|] = [0-9.e+-]+[)]"
  -e "L2 error u +2[.]80944[0-9]*e-08" -n "warning"
  -- $<TARGET_FILE:hdgc> run ${HDG_TEST_DIR}/data/hdg/poisson_bubble.hdg --order 3 --mesh square:32 --set tau=1e6 --precond block --backend cuda)
set_tests_properties(run_cuda_rounding_floor_emulated PROPERTIES ENVIRONMENT "HDGC_LIBCUDA=emulator")

# Dirichlet rows scaled to the operator on the device too (tests/solver.cmake, solver_scaled_*)
hdg_cli_test(run_cuda_scaled_emulated 0
  -e "L2 error u +8[.]6386[0-9]*e-08"
  -- $<TARGET_FILE:hdgc> run ${HDG_TEST_DIR}/data/hdg/poisson_exp.hdg --order 3 --mesh square:16 --set kappa=1e-12 --set tau=1e-12 --precond block --backend cuda)
set_tests_properties(run_cuda_scaled_emulated PROPERTIES ENVIRONMENT "HDGC_LIBCUDA=emulator")
# ... and every one of the six face orientations of tetrahedra on the device: cube:2, cube:3 with
# each element's vertices permuted (tests/poisson3d.cmake, poisson3d_orient) solved with --backend cuda
# against the generated meshes on the host, to 1e-9 (the dense orientation maps in the device's
# assembly and scatter)
add_test(NAME poisson3d_orient_cuda_emulated COMMAND test_poisson3d_orient cuda WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(poisson3d_orient_cuda_emulated PROPERTIES TIMEOUT ${HDG_COMPILE_TIMEOUT}
  ENVIRONMENT "HDGC_LIBCUDA=emulator")
