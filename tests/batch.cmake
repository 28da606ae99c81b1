# Kernels batched across SIMD lanes (backends/c/emit_batch.c, the C backend's default; HDGC_BATCH=1
# turns it off): test_batch compares batched dense operations and per-item choices with the
# scalar kernels for equality, over item ranges of every length modulo the width. batch_same_*
# solve whole problems both ways: the same iterations, residual and errors, to the bit (with
# libm's exp, cos, ... in both, HDGC_NO_MVEC=1: glibc's vector versions, which the scalar kernels
# use for 4 points at a time and batched ones for 4 items, differ from libm's in the last bit).
hdg_unit_test(batch test_batch.c)
foreach(case "poisson;${HDG_TEST_DIR}/data/hdg/poisson_exp.hdg;--order;3;--mesh;square:16,perturb=0.2"
             "convdiff;${HDG_EXAMPLES}/convection_diffusion.hdg;--order;2;--mesh;square:12,perturb=0.2"
             "tensor;${HDG_TEST_DIR}/data/hdg/tensor_diffusion.hdg;--order;4;--mesh;square:7"
             "elasticity;${HDG_EXAMPLES}/elasticity.hdg;--order;2;--mesh;square:9,perturb=0.1"
             "two_traces;${HDG_TEST_DIR}/data/hdg/two_traces.hdg;--order;3;--mesh;square:6")
  list(GET case 0 name)
  list(SUBLIST case 1 -1 args)
  add_test(NAME batch_same_${name}
    COMMAND sh -c "export HDGC_NO_MVEC=1 && HDGC_BATCH=1 \"$0\" run \"$1\" $2 $3 $4 $5 --json scalar_${name}.json >/dev/null && \"$0\" run \"$1\" $2 $3 $4 $5 --json batched_${name}.json >/dev/null && python3 \"$6\" scalar_${name}.json batched_${name}.json --same solver.iterations --same solver.residual --same errors && grep -Eq 'batched_kernels.:[[:space:]]*0$' scalar_${name}.json && grep -Eq 'batched_kernels.:[[:space:]]*[1-9]' batched_${name}.json"
            $<TARGET_FILE:hdgc> ${args} ${HDG_TEST_DIR}/compare_reports.py
    WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
endforeach()

# Locals past HDG_EMIT_C_BATCH_STACK_MAX: a batched kernel keeps them in a block it mallocs per
# call (emit_batch.c, place_locals). poisson3d's local kernel at k = 3 (1.2 MiB of locals 8 wide,
# 0.6 MiB 4 wide) is batched with M in the block, and the solve is the scalar one to the bit.
add_test(NAME batch_same_poisson3d_heap
  COMMAND sh -c "export HDGC_NO_MVEC=1 && HDGC_BATCH=1 \"$0\" run \"$1\" --order 3 --mesh cube:2,perturb=0.2 --json scalar_p3d.json >/dev/null && HDGC_BATCH=4 HDGC_KEEP_SOURCE=batched_p3d.c \"$0\" run \"$1\" --order 3 --mesh cube:2,perturb=0.2 --json batched_p3d.json >/dev/null && python3 \"$2\" scalar_p3d.json batched_p3d.json --same solver.iterations --same solver.residual --same errors && grep -Eq 'batched_kernels.:[[:space:]]*5$' batched_p3d.json && grep -q 'hdg_vd (.restrict M)\\[121\\] = (hdg_vd (.)\\[121\\])(hdg_heap + ' batched_p3d.c && ! grep -q 'one item at a time: its locals' batched_p3d.c"
          $<TARGET_FILE:hdgc> ${HDG_EXAMPLES}/poisson3d.hdg ${HDG_TEST_DIR}/compare_reports.py
  WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
