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
