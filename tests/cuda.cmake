# CUDA backend: emitter, NVRTC, driver loading, runtime kernels.
#   cuda_nvrtc       IR kernels and runtime kernels compile to sm_90 CUBIN/PTX with NVRTC
#                    (registers from ptxas), cache, compile errors (skips only without libnvrtc)
#   cuda_nvcc        the emitted .cu compiles standalone with nvcc -ptx (skips without nvcc)
#   cuda_no_driver   libcuda / libnvrtc missing (forced by env): the clear messages
#   cuda_device      the real state of this machine: a GPU opens, or the reason why not
#   cuda_gpu         [label gpu] kernels and solvers on the GPU against the C backend and
#                    the host runtime; skips without a GPU unless HDG_REQUIRE_GPU=1
hdg_unit_test(cuda_nvrtc test_cuda_nvrtc.c)
set_tests_properties(cuda_nvrtc PROPERTIES SKIP_RETURN_CODE 77)
hdg_unit_test(cuda_nvcc test_cuda_nvcc.c)
set_tests_properties(cuda_nvcc PROPERTIES SKIP_RETURN_CODE 77)
hdg_unit_test(cuda_driver test_cuda_driver.c)
set_tests_properties(cuda_driver PROPERTIES ENVIRONMENT
  "HDGC_LIBCUDA=/nonexistent/libcuda.so.1;HDGC_LIBNVRTC=/nonexistent/libnvrtc.so")
add_test(NAME cuda_device COMMAND test_cuda_driver --real WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
hdg_unit_test(cuda_gpu test_cuda_gpu.c)
set_tests_properties(cuda_gpu PROPERTIES SKIP_RETURN_CODE 77 LABELS gpu)
#   cuda_examples    every kernel of every example at k = 1, 4, 8 compiles with NVRTC (sm_90);
#                    on tetrahedra (poisson3d, heat3d, maxwell3d, acoustics3d) at k = 1, 2, 4; the
#                    nonlinear ones (Newton's kernels: nonlinear_diffusion, bratu, nonlinear_heat) at
#                    k = 1, 2, 3; nonlinear explicit DG (euler2d with 'wavespeed', burgers2d,
#                    shallow_water) at N = 1, 2, 4
hdg_unit_test(cuda_examples_poisson test_cuda_examples.c)
set_tests_properties(cuda_examples_poisson PROPERTIES SKIP_RETURN_CODE 77)
foreach(ex reaction_diffusion convection_diffusion maxwell2d acoustics2d advection2d poisson3d heat3d maxwell3d acoustics3d
        nonlinear_diffusion bratu nonlinear_heat euler2d burgers2d shallow_water)
  add_test(NAME cuda_examples_${ex} COMMAND test_cuda_examples_poisson ${ex}
           WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  set_tests_properties(cuda_examples_${ex} PROPERTIES SKIP_RETURN_CODE 77)
endforeach()
