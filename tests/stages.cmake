# The HDG element stages (issue 13, deliverable 4): the post-processing kernel's
# reference-tensor path and `hdgc bench stages`. No timings are asserted.
set(HDGC $<TARGET_FILE:hdgc>)
set(STAGES_DATA ${CMAKE_CURRENT_SOURCE_DIR}/data/hdg)

# Cost model of the k = 3 kernels: post-processing with x,y-independent
# coefficients takes compile-time tables (8190 flops per element; the
# quadrature loops it replaced counted 168715), less than condensation (58839
# with the dense LU, 38409 by blocks, 26780 with the q steps by product tables,
# 26756 since each pair weight of the block elimination is computed once per pair
# of faces, 25847 since loop fusion merges the terms' nests and CSE shares their
# table loads, 24665 since product tables with one geometric coefficient are one
# table, 23297 since a filled matrix's first += assigns: ir/unfill.c; post 7048 with
# its tables of one geometric product summed, 5255 with its matrix's atoms summed
# per table: A[i][j] = sum_T C_T T[i][j]; 4390 since its matrix, symmetric positive
# definite once the mean constraint replaces row and column, is solved by Cholesky
# (square-root-free, L D L^T) instead of the pivoted LU).
hdg_cli_test(stages_post_flops 0
  -e "kernel poisson_exp_local \\(per element\\)  flops 23297 "
  -e "kernel poisson_exp_post \\(per element\\)  flops 4390 "
  -- ${HDGC} ir ${STAGES_DATA}/poisson_exp.hdg --order 3)
# The post matrix's atoms (dx dx + dy dy) in one pass, one coefficient per table.
hdg_cli_test(stages_post_block_ir 0
  -e "^      A\\[i\\]\\[j\\] = cT \\* TP_Pr_Pr\\[i\\]\\[j\\] \\+ cT2 \\* TP_sum_Pr_Ps_Ps_Pr\\[i\\]\\[j\\] \\+ cT3 \\* TP_Ps_Ps\\[i\\]\\[j\\]$"
  -- ${HDGC} ir ${STAGES_DATA}/poisson_exp.hdg --order 3)

# A run with and without an optimisation (ENVVAR=1 turns it off): NAME_ON and
# NAME_OFF, both expecting REGEX (the same u* on both paths).
function(stages_both name_on name_off envvar regex)
  hdg_cli_test(${name_on} 0 -e "${regex}" -- ${HDGC} ${ARGN})
  hdg_cli_test(${name_off} 0 -e "${regex}" -- env ${envvar}=1 ${HDGC} ${ARGN})
endfunction()

# The reference-tensor path and per-element quadrature (HDGC_NO_REF_TENSORS=1)
# give the same u* on a constant-coefficient post equation and on one whose
# source varies in x, y (tensor_diffusion: both paths in one kernel).
stages_both(stages_post_ref_poisson stages_post_quad_poisson HDGC_NO_REF_TENSORS "L2 error ustar +1\\.56651[0-9]e-07"
  run ${STAGES_DATA}/poisson_exp.hdg --mesh square:16 --order 2)
stages_both(stages_post_ref_tensor stages_post_quad_tensor HDGC_NO_REF_TENSORS "L2 error ustar +2\\.17421[0-9]e-07"
  run ${STAGES_DATA}/tensor_diffusion.hdg --mesh square:16 --order 2)

# Post systems proved symmetric positive definite (ir/lower_hdg_post.c, post_spd: every atom
# on the post unknown pairs an operator and component with themselves under a positive
# number; each component has a value atom or both derivatives) are solved by Cholesky
# (1 / L_jj on the diagonal, no pivoting); the same u* as the pivoted LU (HDGC_NO_CHOL=1)
# to 7 digits, also with a mass term (post_mass.hdg), whose constant-mode column the mean
# constraint moves to the right-hand side. K grad (anisotropic.hdg: xy atoms) keeps the LU.
stages_both(stages_post_chol_poisson stages_post_lu_poisson HDGC_NO_CHOL "L2 error ustar +1\\.396871e-09"
  run ${STAGES_DATA}/poisson_exp.hdg --mesh square:16,perturb=0.2 --order 3)
stages_both(stages_post_chol_mass stages_post_lu_mass HDGC_NO_CHOL "L2 error ustar +1\\.397698e-09"
  run ${STAGES_DATA}/post_mass.hdg --mesh square:16,perturb=0.2 --order 3)
hdg_cli_test(stages_post_chol_ir 0 -e "post_mass.hdg:28:1: symmetric positive definite: Cholesky"
  -e "^  chol A$" -e "^  chol_solve A, r$"
  -e "^    r\\[j[0-9]+\\] \\+= -\\(A\\[j[0-9]+\\]\\[0\\] \\* r\\[0\\]\\)$"
  -- ${HDGC} ir ${STAGES_DATA}/post_mass.hdg --order 2)
hdg_cli_test(stages_post_lu_ir 0 -e "^  lu_solve A, piv, r$" -n "chol" -n "\\+= -\\(A\\[j[0-9]+\\]\\[0\\]"
  -- env HDGC_NO_CHOL=1 ${HDGC} ir ${STAGES_DATA}/post_mass.hdg --order 2)
hdg_cli_test(stages_post_lu_anisotropic 0 -e "mean constraint" -n "chol"
  -- ${HDGC} ir ${CMAKE_SOURCE_DIR}/examples/anisotropic.hdg --order 2)

# The local kernel's diagonal (q) steps by product tables made at compile time
# (ir/lower_hdg_elim.c, product_step): used for poisson_exp, and the same u* as the
# elimination from M (HDGC_NO_PRODUCT_TABLES=1) to 5 digits at 3e-12 on a
# perturbed mesh; the IR says which steps took them.
hdg_cli_test(stages_product_ir 0 -e "diagonal step by product tables" -e "TP0\\[[0-9]+\\]\\[[0-9]+\\]"
  -- ${HDGC} ir ${STAGES_DATA}/poisson_exp.hdg --order 3)
stages_both(stages_product_on stages_product_off HDGC_NO_PRODUCT_TABLES "L2 error ustar +8\\.4720[0-9]+e-12"
  run ${STAGES_DATA}/poisson_exp.hdg --mesh square:16,perturb=0.2 --order 4)

# A coefficient that calls exp, sin... (poisson_exp's source) is evaluated at all points in a
# loop of its own (ir/lower_hdg_atoms.c, emit_atom), and so are the exact values in the errors kernel,
# which the C backend vectorises with glibc's vector math (backends/c/jit.cpp); the same u*
# error (the errors kernel's) with the split off, and with scalar libm.
hdg_cli_test(stages_coef_split_ir 0 -e "local cq\\[36\\]" -e "cq\\[q\\] = vol_w\\[q\\] [*] t[0-9]+ [*] -[(]param[.]kappa"
  -e "let c[0-9]+ = cq\\[q[0-9]*\\]" -e "local exq\\[4\\]\\[64\\]" -e "exq\\[1\\]\\[q\\] = .*sin[(]"
  -- ${HDGC} ir ${STAGES_DATA}/poisson_exp.hdg --order 3)
stages_both(stages_coef_split_on stages_coef_split_off HDGC_NO_COEF_SPLIT "L2 error ustar +1\\.39687[0-9]e-09"
  run ${STAGES_DATA}/poisson_exp.hdg --mesh square:16,perturb=0.2 --order 3)
hdg_cli_test(stages_coef_split_scalar 0 -e "L2 error ustar +1\\.39687[0-9]e-09"
  -- env HDGC_NO_MVEC=1 ${HDGC} run ${STAGES_DATA}/poisson_exp.hdg --mesh square:16,perturb=0.2 --order 3)

# Loop fusion (ir/fuse.c, docs/ir.md): off (HDGC_NO_FUSE=1), the local kernel keeps
# one nest per term and its 24206 flops; the zero fills (ir/unfill.c): off
# (HDGC_NO_UNFILL=1), the first accumulations stay += (24665 flops) and M's fill is
# whole; on, only the source column and the blocks that face sums alone add to keep
# their zeros. On or off, the same errors on a perturbed mesh, with the kernels
# batched (k = 3) and one element at a time (k = 7).
hdg_cli_test(stages_fuse_off_flops 0 -e "kernel poisson_exp_local \\(per element\\)  flops 24206 "
  -- env HDGC_NO_FUSE=1 ${HDGC} ir ${STAGES_DATA}/poisson_exp.hdg --order 3)
hdg_cli_test(stages_unfill_off_flops 0 -e "kernel poisson_exp_local \\(per element\\)  flops 24665 "
  -e "^      M\\[i[0-9]*\\]\\[j[0-9]*\\] = 0$"
  -- env HDGC_NO_UNFILL=1 ${HDGC} ir ${STAGES_DATA}/poisson_exp.hdg --order 3)
hdg_cli_test(stages_unfill_boxes 0 -e "^    M\\[z\\]\\[42\\] = 0$" -n "^      M\\[i[0-9]*\\]\\[j[0-9]*\\] = 0$"
  -e "^      M\\[i[0-9]*\\]\\[j[0-9]*\\] = t[0-9]+$"
  -- ${HDGC} ir ${STAGES_DATA}/poisson_exp.hdg --order 3)
# the recovery's block elimination scales the rows of a diagonal block by the diagonal's
# reciprocals, one division a row (was one per entry: 220 divisions at k = 3, 1.06-1.16x)
hdg_cli_test(stages_recover_reciprocals 0 -e "^    Dr\\[i[0-9]+\\] = 1 / M\\[i[0-9]+\\]\\[i[0-9]+\\]$"
  -e "^      Wg\\[i[0-9]+\\]\\[j[0-9]+\\] = M\\[i[0-9]+\\]\\[20 \\+ j[0-9]+\\] \\* t[0-9]+$"
  -n "/ t[0-9]+$" -e "kernel poisson_exp_recover \\(per element\\)  flops 12929 "
  -- ${HDGC} ir ${STAGES_DATA}/poisson_exp.hdg --order 3)
foreach(fuse 0 1)
  hdg_cli_test(stages_fuse_${fuse}_k3 0 -e "L2 error q +2\\.724755e-07" -e "L2 error ustar +1\\.396871e-09"
    -- env HDGC_NO_FUSE=${fuse} HDGC_NO_UNFILL=${fuse} ${HDGC} run ${STAGES_DATA}/poisson_exp.hdg --mesh square:16,perturb=0.2 --order 3)
  hdg_cli_test(stages_fuse_${fuse}_k7 0 -e "L2 error q +8\\.421617e-13" -e "L2 error ustar +2\\.9269[0-9][0-9]e-14"
    -- env HDGC_NO_FUSE=${fuse} HDGC_NO_UNFILL=${fuse} ${HDGC} run ${STAGES_DATA}/poisson_exp.hdg --mesh square:16,perturb=0.2 --order 7)
endforeach()

# `hdgc bench stages` runs every element kernel and prints the model flops and
# the FMA peak it measured.
hdg_cli_test(stages_bench 0
  -e "one thread, best of 1. FMA peak [0-9.]+ GFLOP/s"
  -e "^ 1 local +[0-9.]+ +3485 .* +[48]$"
  -e "^ 2 post +[0-9.]+ +1740 "
  -e "^ 2 errors "
  -e "^ 2 post/local time [0-9.]+"
  -- ${HDGC} bench stages ${STAGES_DATA}/poisson_exp.hdg --orders 1..2 --mesh square:4 --reps 1)
# lanes: the kernels batched 4 wide by default (8 on a host with AVX-512; backends/c/emit_batch.c),
# one at a time under HDGC_BATCH=1
hdg_cli_test(stages_bench_one_lane 0
  -e " x model lanes$" -e "^ 1 local +[0-9.]+ +3485 .* +1$" -e "^ 1 errors +[0-9.]+ +4680 .* +1$"
  -- env HDGC_BATCH=1 ${HDGC} bench stages ${STAGES_DATA}/poisson_exp.hdg --orders 1..1 --mesh square:4 --reps 1)
hdg_cli_test(stages_bench_not_hdg 1 -e "is not an HDG problem"
  -- ${HDGC} bench stages ${CMAKE_CURRENT_SOURCE_DIR}/../examples/maxwell2d.hdg)
hdg_cli_test(stages_bench_bad_orders 2 -e "--orders needs a..b"
  -- ${HDGC} bench stages ${STAGES_DATA}/poisson_exp.hdg --orders 3..1)

# bench/profile/kernel.sh: one generated kernel outside hdgc (hdgc emit, clang-14 with the JIT's
# options, bench/profile/kernel_driver.c over square:64); an unknown kernel name lists the module's,
# a face kernel is refused.
hdg_cli_test(stages_profile_kernel 0 -e "^poisson_exp_post, poisson_exp.hdg order 1, -march=native, geometry stride 20:$"
  -e "^[0-9]+\\.[0-9]+ us per element \\(best of 3 over 8192 elements\\)  checksum -?[0-9]"
  -- env REPS=3 sh ${CMAKE_SOURCE_DIR}/bench/profile/kernel.sh ${HDGC} ${STAGES_DATA}/poisson_exp.hdg 1 poisson_exp_post)
hdg_cli_test(stages_profile_no_kernel 2 -e "no kernel 'poisson_exp_nosuch' in" -e "^  poisson_exp_recover$"
  -- sh ${CMAKE_SOURCE_DIR}/bench/profile/kernel.sh ${HDGC} ${STAGES_DATA}/poisson_exp.hdg 1 poisson_exp_nosuch)
hdg_cli_test(stages_profile_face_kernel 2 -e "'poisson_exp_dirichlet_0' is not an element kernel"
  -- sh ${CMAKE_SOURCE_DIR}/bench/profile/kernel.sh ${HDGC} ${STAGES_DATA}/poisson_exp.hdg 1 poisson_exp_dirichlet_0)
