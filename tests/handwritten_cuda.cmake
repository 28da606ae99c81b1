# The hand-written CUDA kernels (backends/handwritten/*.cu, issue 14) against the generated ones:
#   handwritten_cuda_emulated   both run on the CUDA emulator at k = 1, 2, 3, 8 (poisson: local,
#                               recover, post; maxwell2d: rhs, step), outputs agree to 1e-12
#                               relative; and the hand-written source compiles with NVRTC for sm_90
hdg_unit_test(handwritten_cuda test_handwritten_cuda.c)
set_tests_properties(handwritten_cuda PROPERTIES ENVIRONMENT "HDGC_LIBCUDA=emulator;HDGC_CACHE=off" TIMEOUT ${HDG_COMPILE_TIMEOUT})
