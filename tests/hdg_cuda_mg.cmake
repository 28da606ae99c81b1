# --precond mg on the device (issue 13; tests/test_hdg_cuda_mg.c): smoother and
# transfers on the device, the coarse solve on the host; iterations, errors and
# fields against the host driver's mg, also with a constant null space and GMRES.
#   hdg_cuda_mg                [label gpu] on the GPU; skips (77) without one
#   hdg_cuda_mg_*_emulated     the same on the CUDA emulator (HDGC_LIBCUDA=emulator): runs in CI
hdg_unit_test(hdg_cuda_mg test_hdg_cuda_mg.c)
set_tests_properties(hdg_cuda_mg PROPERTIES SKIP_RETURN_CODE 77 LABELS gpu)
foreach(group linalg poisson neumann gmres)
  add_test(NAME hdg_cuda_mg_${group}_emulated COMMAND test_hdg_cuda_mg ${group}
           WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  set_tests_properties(hdg_cuda_mg_${group}_emulated PROPERTIES ENVIRONMENT "HDGC_LIBCUDA=emulator;HDG_REQUIRE_GPU=1")
endforeach()
