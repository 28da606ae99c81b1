# tests/tensor.cmake — components and 2x2 matrices in the language, tensor unknowns V^(2x2)
# (issue 18; docs/language.md sections 3, 5): the matrix algebra and the examples' atoms
# (test_tensor.c), and the rates of examples/elasticity.hdg (displacement gradient L : V^(2x2),
# u : V^2, uhat : M^2) and examples/anisotropic.hdg (full variable tensor K(x, y), inv(K)),
# both on manufactured solutions that are not Laplace eigenfunctions. Malformed inputs
# (shapes, indices, inv of unknowns, V^(2x3), tensors in DG) are in tests/frontend.cmake.
set(HDGC $<TARGET_FILE:hdgc>)
set(EX ${CMAKE_SOURCE_DIR}/examples)
set(RATE2 "(1\\.9[0-9]|2\\.0[0-9])")
set(RATE3 "(2\\.9[0-9]|3\\.0[0-9])")
set(RATE4 "(3\\.9[0-9]|4\\.0[0-9])")

hdg_unit_test(frontend_tensor test_tensor.c)

# elasticity: L and u at rate k+1 (columns L, u)
hdg_cli_test(tensor_elasticity_convergence 0
  -e "fit +${RATE2} +${RATE2}$" -e "fit +${RATE3} +${RATE3}$"
  -- ${HDGC} convergence ${EX}/elasticity.hdg --orders 1..2 --meshes 4,8,16 --json /dev/null)
# full variable diffusion tensor: q and u at k+1, ustar at k+2 (columns q, u, ustar)
hdg_cli_test(tensor_anisotropic_convergence 0
  -e "fit +${RATE2} +${RATE2} +${RATE3}$" -e "fit +${RATE3} +${RATE3} +${RATE4}$"
  -- ${HDGC} convergence ${EX}/anisotropic.hdg --orders 1..2 --meshes 4,8,16 --json /dev/null)
# a tensor unknown's components are fields of their own (--field L_xy; VTU arrays L_xx ... L_yy)
hdg_cli_test(tensor_field_name 0 -e "L2 error L +7\\.2845[0-9]+e-03" -e "L2 error u +3\\.8071[0-9]+e-03"
  -- ${HDGC} run ${EX}/elasticity.hdg --mesh square:4 --png ${CMAKE_CURRENT_BINARY_DIR}/tensor_L_xy.png --field L_xy)
hdg_cli_test(tensor_field_unknown 1 -e "--field L_zz: no such field [(]fields: L_xx, L_xy, L_yx, L_yy, u_x, u_y[)]"
  -- ${HDGC} run ${EX}/elasticity.hdg --mesh square:4 --png ${CMAKE_CURRENT_BINARY_DIR}/tensor_L_zz.png --field L_zz)
# vector traces in the multilevel preconditioner (P1 coarse space per component): the errors of
# the default solver, iterations flat (25 at square:16; face-block Jacobi takes 359)
hdg_cli_test(tensor_elasticity_mg 0 -e "L2 error L +1\\.21198[0-9]e-04" -e "L2 error u +6\\.01261[0-9]e-05"
  -e "solver iterations ([0-9]|[1-3][0-9]),"
  -- ${HDGC} run ${EX}/elasticity.hdg --mesh square:16 --precond mg)
# vector Neumann data (two source atoms per face) on right, top: the same rates
hdg_cli_test(tensor_elasticity_neumann_convergence 0
  -e "fit +${RATE2} +${RATE2}$" -e "fit +${RATE3} +${RATE3}$"
  -- ${HDGC} convergence ${HDG_TEST_DIR}/data/hdg/elasticity_neumann.hdg --orders 1..2 --meshes 4,8,16 --json /dev/null)
# the device driver (CUDA emulator) with 4-component element unknowns and a vector trace
hdg_cli_test(tensor_elasticity_cuda_emulated 0 -e "L2 error L +9\\.50692[0-9]e-04" -e "L2 error u +4\\.80027[0-9]e-04"
  -- env HDGC_LIBCUDA=emulator ${HDGC} run ${EX}/elasticity.hdg --mesh square:8 --backend cuda)
