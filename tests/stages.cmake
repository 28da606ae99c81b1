# The HDG element stages (issue 13, deliverable 4): the post-processing kernel's
# reference-tensor path and `hdgc bench stages`. No timings are asserted.
set(HDGC $<TARGET_FILE:hdgc>)
set(STAGES_DATA ${CMAKE_CURRENT_SOURCE_DIR}/data/hdg)

# Cost model of the k = 3 kernels: post-processing with x,y-independent
# coefficients takes compile-time tables (8190 flops per element; the
# quadrature loops it replaced counted 168715), less than condensation (58839).
hdg_cli_test(stages_post_flops 0
  -e "kernel poisson_exp_local \\(per element\\)  flops 38409 "
  -e "kernel poisson_exp_post \\(per element\\)  flops 8190 "
  -- ${HDGC} ir ${STAGES_DATA}/poisson_exp.hdg --order 3)

# The reference-tensor path and per-element quadrature (HDGC_NO_REF_TENSORS=1)
# give the same u* on a constant-coefficient post equation and on one whose
# source varies in x, y (tensor_diffusion: both paths in one kernel).
foreach(mode ref quad)
  if(mode STREQUAL quad)
    set(STAGES_ENV env HDGC_NO_REF_TENSORS=1)
  else()
    set(STAGES_ENV env)
  endif()
  hdg_cli_test(stages_post_${mode}_poisson 0 -e "L2 error ustar +1\\.56651[0-9]e-07"
    -- ${STAGES_ENV} ${HDGC} run ${STAGES_DATA}/poisson_exp.hdg --mesh square:16 --order 2)
  hdg_cli_test(stages_post_${mode}_tensor 0 -e "L2 error ustar +2\\.17421[0-9]e-07"
    -- ${STAGES_ENV} ${HDGC} run ${STAGES_DATA}/tensor_diffusion.hdg --mesh square:16 --order 2)
endforeach()

# `hdgc bench stages` runs every element kernel and prints the model flops and
# the FMA peak it measured.
hdg_cli_test(stages_bench 0
  -e "one thread, best of 1. FMA peak [0-9.]+ GFLOP/s"
  -e "^ 1 local +[0-9.]+ +4253 "
  -e "^ 2 post +[0-9.]+ +3255 "
  -e "^ 2 errors "
  -e "^ 2 post/local time [0-9.]+"
  -- ${HDGC} bench stages ${STAGES_DATA}/poisson_exp.hdg --orders 1..2 --mesh square:4 --reps 1)
hdg_cli_test(stages_bench_not_hdg 1 -e "is not an HDG problem"
  -- ${HDGC} bench stages ${CMAKE_CURRENT_SOURCE_DIR}/../examples/maxwell2d.hdg)
hdg_cli_test(stages_bench_bad_orders 2 -e "--orders needs a..b"
  -- ${HDGC} bench stages ${STAGES_DATA}/poisson_exp.hdg --orders 3..1)
