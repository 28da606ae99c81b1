# The host emulator of the CUDA driver (HDGC_LIBCUDA=emulator; runtime/cuda/cuda_emu.h):
#   cuda_emu            the emulator itself: shared-memory reductions with __syncthreads
#                       (fibers), barrier misuse, memory/launch/module errors and their
#                       messages, out of memory with HDGC_EMU_MEMORY
#   cuda_gpu_emulated   the GPU test program (test_cuda_gpu.c) run for real on the emulator:
#                       IR kernels vs the C backend, device SpMV/PCG vs the host
hdg_unit_test(cuda_emu test_cuda_emu.c)
set_tests_properties(cuda_emu PROPERTIES ENVIRONMENT "HDGC_LIBCUDA=emulator;HDGC_EMU_MEMORY=64M")
add_test(NAME cuda_gpu_emulated COMMAND test_cuda_gpu WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(cuda_gpu_emulated PROPERTIES
  ENVIRONMENT "HDGC_LIBCUDA=emulator;HDG_REQUIRE_GPU=1;HDG_BENCH_NF=2000")
