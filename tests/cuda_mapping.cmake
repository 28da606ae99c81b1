# The thread-block-per-item mapping of the CUDA emitter (issue 7; backends/cuda/emit.h).
#   cuda_mapping               the distribution rule on small IR kernels (which loop spreads over
#                              the threads, thread-0 fallbacks, barriers, shared-memory layout),
#                              the choice of mapping and its overrides, and every kernel mapped a
#                              block per item on the CUDA emulator against the C backend; the
#                              48 KiB dynamic shared memory limit and cuFuncSetAttribute
#   hdg_cuda_emulated_block    test_hdg_cuda on the emulator with every kernel a block per item
#   hdg_cuda_emulated_thread   ... and with every kernel an item per thread
#   dg_cuda_block              test_dg_cuda on the emulator, a block per item
#   cuda_gpu_emulated_block    test_cuda_gpu (IR kernels vs the C backend) on the emulator, a block per item
#   cuda_examples_block_*      every kernel of every example at k = 1, 4, 8 through NVRTC with
#                              HDGC_CUDA_MAPPING=block: mapping, shared bytes, registers and stack
#                              printed; the HDG local kernels at k = 4, 8 a block per element with
#                              no stack for locals (skips without libnvrtc)
hdg_unit_test(cuda_mapping test_cuda_mapping.c)
set_tests_properties(cuda_mapping PROPERTIES ENVIRONMENT "HDGC_LIBCUDA=emulator")
add_test(NAME hdg_cuda_emulated_block COMMAND test_hdg_cuda examples WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(hdg_cuda_emulated_block PROPERTIES
  ENVIRONMENT "HDGC_LIBCUDA=emulator;HDG_REQUIRE_GPU=1;HDGC_CUDA_MAPPING=block")
add_test(NAME hdg_cuda_emulated_thread COMMAND test_hdg_cuda examples WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(hdg_cuda_emulated_thread PROPERTIES
  ENVIRONMENT "HDGC_LIBCUDA=emulator;HDG_REQUIRE_GPU=1;HDGC_CUDA_MAPPING=thread")
add_test(NAME dg_cuda_block COMMAND test_dg_cuda WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(dg_cuda_block PROPERTIES ENVIRONMENT "HDGC_LIBCUDA=emulator;HDGC_CUDA_MAPPING=block"
  SKIP_RETURN_CODE 77)
add_test(NAME cuda_gpu_emulated_block COMMAND test_cuda_gpu WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(cuda_gpu_emulated_block PROPERTIES
  ENVIRONMENT "HDGC_LIBCUDA=emulator;HDG_REQUIRE_GPU=1;HDG_BENCH_NF=2000;HDGC_CUDA_MAPPING=block")
foreach(ex poisson reaction_diffusion convection_diffusion maxwell2d acoustics2d advection2d)
  add_test(NAME cuda_examples_block_${ex} COMMAND test_cuda_examples_poisson ${ex}
           WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  set_tests_properties(cuda_examples_block_${ex} PROPERTIES ENVIRONMENT "HDGC_CUDA_MAPPING=block"
    SKIP_RETURN_CODE 77)
endforeach()
# a device with 2 KiB of shared memory per block (emulated): the block-per-item
# kernels keep their locals in global scratch; the HDG and DG pipelines still agree
add_test(NAME hdg_cuda_emulated_scratch COMMAND test_hdg_cuda examples WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(hdg_cuda_emulated_scratch PROPERTIES
  ENVIRONMENT "HDGC_LIBCUDA=emulator;HDG_REQUIRE_GPU=1;HDGC_CUDA_MAPPING=block;HDGC_EMU_SHARED=2048")
hdg_cli_test(run_cuda_scratch_emulated 0 -e "\"mapping\":[ \t]+\"block per element, locals in global scratch\"" -e "L2 error u +2\\.729250e-05"
  -- $<TARGET_FILE:hdgc> run ${HDG_EXAMPLES}/poisson.hdg --backend cuda --json /dev/stdout)
set_tests_properties(run_cuda_scratch_emulated PROPERTIES ENVIRONMENT "HDGC_LIBCUDA=emulator;HDGC_EMU_SHARED=2048;HDGC_CUDA_MAPPING=block")
# auto: poisson's k = 3 element kernels (14-18 KB of locals) a thread per element, the
# measured faster mapping (docs/ir.md); on a device whose memory cannot give every
# resident thread that much stack (128 MiB emulated: 16 KB per thread), a block each
hdg_cli_test(run_cuda_auto_thread_emulated 0 -e "\"mapping\":[ \t]+\"thread per element\"" -n "block per element"
  -e "L2 error u +2\\.729250e-05"
  -- $<TARGET_FILE:hdgc> run ${HDG_EXAMPLES}/poisson.hdg --backend cuda --json /dev/stdout)
set_tests_properties(run_cuda_auto_thread_emulated PROPERTIES ENVIRONMENT "HDGC_LIBCUDA=emulator")
hdg_cli_test(run_cuda_auto_small_device_emulated 0 -e "\"mapping\":[ \t]+\"block per element, locals in shared memory\""
  -e "L2 error u +2\\.729250e-05"
  -- $<TARGET_FILE:hdgc> run ${HDG_EXAMPLES}/poisson.hdg --backend cuda --json /dev/stdout)
set_tests_properties(run_cuda_auto_small_device_emulated PROPERTIES ENVIRONMENT "HDGC_LIBCUDA=emulator;HDGC_EMU_MEMORY=128M")
