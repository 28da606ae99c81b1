# Explicit DG on a device (drivers/run_dg_cuda.c) against the host driver (run_dg.c).
#   dg_cuda       under the CUDA emulator (HDGC_LIBCUDA=emulator): maxwell2d (upwind,
#                 central), acoustics2d, advection2d at N = 2, 3: steps, dt, L2 errors
#                 and energies equal to 1e-10 relative; the VTK series; a blow-up at the
#                 same step; all device memory given back
#   dg_cuda_oom   a run that does not fit the emulator's memory (HDGC_EMU_MEMORY): a
#                 clear "out of device memory" error, nothing left allocated
#   dg_cuda_gpu   [label gpu] the dg_cuda checks on a real GPU; skips without one
#                 unless HDG_REQUIRE_GPU=1
hdg_unit_test(dg_cuda test_dg_cuda.c)
set_tests_properties(dg_cuda PROPERTIES ENVIRONMENT "HDGC_LIBCUDA=emulator" SKIP_RETURN_CODE 77)
add_test(NAME dg_cuda_oom COMMAND test_dg_cuda oom WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(dg_cuda_oom PROPERTIES ENVIRONMENT "HDGC_LIBCUDA=emulator;HDGC_EMU_MEMORY=1000000"
  SKIP_RETURN_CODE 77)
add_test(NAME dg_cuda_gpu COMMAND test_dg_cuda WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(dg_cuda_gpu PROPERTIES ENVIRONMENT_MODIFICATION "HDGC_LIBCUDA=unset:"
  SKIP_RETURN_CODE 77 LABELS gpu)
