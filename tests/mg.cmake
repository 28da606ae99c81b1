# --precond mg and the default stopping rule (issue 13): iterations flat in h, the
# block-Jacobi solution, the defaults' u* rate (tests/test_mg.c).
hdg_unit_test(mg test_mg.c)   # group poisson3
foreach(group poisson1 poisson5 perturbed tensor convdiff same defaults warnings)
  add_test(NAME mg_${group} COMMAND test_mg ${group} WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
endforeach()

# The fused smoother passes (runtime/solve/blockmat.c, hdg_blockmat_smooth_*) do the separate
# operations' arithmetic in the same order: with the double matrix (HDGC_MG_DOUBLE=1), the
# same iterations, residual and errors to the bit as HDGC_MG_UNFUSED=1, under CG
# (poisson_exp, k = 3) and GMRES (convection-diffusion, k = 2).
# mg_single_*: the default smoother reads single-precision copies of the matrix and its
# diagonal blocks; against the double smoother, the same iterations (at most one more), errors
# within 1e-6 relative, and the report says which.
foreach(case "poisson;${HDG_TEST_DIR}/data/hdg/poisson_exp.hdg;--order;3"
             "convdiff;${HDG_EXAMPLES}/convection_diffusion.hdg;--order;2")
  list(GET case 0 name)
  list(SUBLIST case 1 -1 args)
  add_test(NAME mg_fused_same_${name}
    COMMAND sh -c "HDGC_MG_DOUBLE=1 \"$0\" run \"$1\" --mesh square:32,perturb=0.2 --precond mg $2 $3 --json fused_${name}.json >/dev/null && HDGC_MG_UNFUSED=1 \"$0\" run \"$1\" --mesh square:32,perturb=0.2 --precond mg $2 $3 --json unfused_${name}.json >/dev/null && python3 \"$4\" fused_${name}.json unfused_${name}.json --same solver.iterations --same solver.residual --same solver.mg.lmax --same errors && grep -Eq 'fused_passes.:.true' fused_${name}.json && grep -Eq 'fused_passes.:.false' unfused_${name}.json"
            $<TARGET_FILE:hdgc> ${args} ${HDG_TEST_DIR}/compare_reports.py
    WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  add_test(NAME mg_single_${name}
    COMMAND sh -c "HDGC_MG_DOUBLE=1 \"$0\" run \"$1\" --mesh square:32,perturb=0.2 --precond mg $2 $3 --json double_${name}.json >/dev/null && \"$0\" run \"$1\" --mesh square:32,perturb=0.2 --precond mg $2 $3 --json single_${name}.json >/dev/null && python3 \"$4\" double_${name}.json single_${name}.json --rtol 1e-6 --near errors --at-most solver.iterations:1.07 && grep -Eq 'smoother_precision.:.\"double' double_${name}.json && grep -Eq 'smoother_precision.:.\"single' single_${name}.json"
            $<TARGET_FILE:hdgc> ${args} ${HDG_TEST_DIR}/compare_reports.py
    WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
endforeach()

# The single-precision passes have an x86-64-v3 (AVX2) version (runtime/solve/blockmat.c,
# block_cols): the same arithmetic in the same order, so the same iterations, residual and
# errors to the bit as the baseline passes (HDGC_MG_NO_AVX2=1), at block sizes m = 2, 3, 4, 6
# and 8 (one to two vectors of 4 per column, reading past the column). Skipped (77) on a host
# or build without it.
foreach(case "m2;${HDG_TEST_DIR}/data/hdg/poisson_exp.hdg;--order;1"
             "m3;${HDG_EXAMPLES}/convection_diffusion.hdg;--order;2"
             "m4;${HDG_TEST_DIR}/data/hdg/poisson_exp.hdg;--order;3"
             "m6;${HDG_TEST_DIR}/data/hdg/poisson_exp.hdg;--order;5"
             "m8;${HDG_TEST_DIR}/data/hdg/poisson_exp.hdg;--order;7")
  list(GET case 0 name)
  list(SUBLIST case 1 -1 args)
  add_test(NAME mg_avx2_same_${name}
    COMMAND sh -c "\"$0\" run \"$1\" --mesh square:16,perturb=0.2 --precond mg $2 $3 --json avx2_${name}.json >/dev/null && HDGC_MG_NO_AVX2=1 \"$0\" run \"$1\" --mesh square:16,perturb=0.2 --precond mg $2 $3 --json base_${name}.json >/dev/null && grep -Eq 'smoother_avx2.:.false' base_${name}.json && { grep -Eq 'smoother_avx2.:.true' avx2_${name}.json || exit 77; } && python3 \"$4\" avx2_${name}.json base_${name}.json --same solver.iterations --same solver.residual --same solver.mg.lmax --same errors"
            $<TARGET_FILE:hdgc> ${args} ${HDG_TEST_DIR}/compare_reports.py
    WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  set_tests_properties(mg_avx2_same_${name} PROPERTIES SKIP_RETURN_CODE 77)
endforeach()
