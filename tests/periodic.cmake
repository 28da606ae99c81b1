# tests/periodic.cmake — periodic meshes (issue 18): square:N,periodic=x|y|xy and
# PATH.msh,periodic=A:B,C:D (runtime/mesh/mesh_periodic.c). Test data in tests/data/periodic/
# (the .msh files from make_periodic_msh.py there). Refusals are rows of
# tests/hostile/periodic.tsv.
#   periodic_topology   counts, orientation, translations, vtop/ftv, refine, the Gmsh pairs
#   periodic_mg         --precond mg flat from square:16 to 64, identified vertices one coarse
#                       unknown, mg = block-Jacobi = PETSc fields
#   periodic_*_rates    HDG k+1, k+1, k+2; DG k+1 (fits over three meshes)
hdg_unit_test(periodic test_periodic.c)
add_test(NAME periodic_mg COMMAND test_periodic mg WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})

set(HDGC $<TARGET_FILE:hdgc>)
set(P ${HDG_TEST_DIR}/data/periodic)
set(PMSH ${P}/square_periodic_v22.msh)
set(RATE2 "(1\\.9[0-9]|2\\.0[0-9])")
set(RATE3 "(2\\.9[0-9]|3\\.0[0-9])")
set(RATE4 "(3\\.9[0-9]|4\\.0[0-9])")
set(RATE5 "(4\\.9[0-9]|5\\.0[0-9])")

# HDG, periodic in x, Dirichlet on bottom and top; exp(sin(2 pi x))*(y^2+y+1)
hdg_cli_test(periodic_hdg_rates 0
  -e "fit +${RATE2} +${RATE2} +${RATE3}$" -e "fit +(2\\.9[0-9]|3\\.0[0-9]|2\\.8[5-9]) +(2\\.9[0-9]|3\\.0[0-9]|2\\.8[5-9]) +${RATE4}$"
  -e "fit +${RATE4} +${RATE4} +${RATE5}$"
  -- ${HDGC} convergence ${P}/poisson_periodic.hdg --orders 1..3 --meshes 8,16,32 --mesh-options periodic=x
  --json /dev/null)
# HDG on the torus (no boundary face): the constant null space, 'mean u = uex'
hdg_cli_test(periodic_torus_rates 0
  -e "fit +${RATE2} +${RATE2} +${RATE3}$" -e "fit +${RATE3} +${RATE3} +${RATE4}$" -n "error"
  -- ${HDGC} convergence ${P}/poisson_torus.hdg --orders 1,2 --meshes 8,16,32 --mesh-options periodic=xy
  --json /dev/null)
# the same on the Gmsh file (graded, perturbed, shuffled node tags), refined 1..3 times
hdg_cli_test(periodic_gmsh_rates 0
  -e "fit +${RATE3} +${RATE3} +${RATE4}$"
  -- ${HDGC} convergence ${P}/poisson_periodic.hdg --refine ${PMSH},periodic=left:right --levels 1..3 --orders 2
  --json /dev/null)
hdg_cli_test(periodic_gmsh_torus_rates 0
  -e "fit +${RATE3} +${RATE3} +${RATE4}$"
  -- ${HDGC} convergence ${P}/poisson_torus.hdg --meshes ${PMSH},periodic=left:right,bottom:top,refine=1,${PMSH},periodic=4:2,1:3,refine=2,${PMSH},periodic=left:right,bottom:top,refine=3
  --orders 2 --json /dev/null)
# DG advection across the periodic sides to t = 1: k+1
hdg_cli_test(periodic_dg_rates 0
  -e "fit +(3\\.0[0-9]|3\\.1[0-9]|3\\.2[0-9])$" -e "fit +${RATE4}$"
  -- ${HDGC} convergence ${P}/advection_periodic.hdg --orders 2,3 --meshes 8,16,32 --mesh-options periodic=xy
  --json /dev/null)
# Maxwell with the central flux on the torus: the energy stays (LSERK4's damping only,
# 3e-7 relative to t = 1); on the same square with PEC walls it falls by 8e-3
hdg_cli_test(periodic_maxwell_energy 0
  -e "energy 0\\.5002576[0-9]* -> 0\\.500257[0-9]*$" -e "L2 error Ez +[0-9.]+e-04"
  -- ${HDGC} run ${P}/maxwell_periodic.hdg --mesh square:8,periodic=xy --set alpha=0)
# the CUDA emulator runs the same mesh data: the host's errors
hdg_cli_test(periodic_hdg_cuda_emulated 0 -e "L2 error u +3\\.0930[0-9]*e-02" -e "L2 error ustar +8\\.3817[0-9]*e-04"
  -- ${HDGC} run ${P}/poisson_periodic.hdg --mesh square:8,periodic=x --backend cuda)
set_tests_properties(periodic_hdg_cuda_emulated PROPERTIES ENVIRONMENT "HDGC_LIBCUDA=emulator")
hdg_cli_test(periodic_dg_cuda_emulated 0 -e "L2 error u +4\\.9067[0-9]*e-03"
  -- ${HDGC} run ${P}/advection_periodic.hdg --mesh square:4,periodic=xy --backend cuda --final-time 0.25)
set_tests_properties(periodic_dg_cuda_emulated PROPERTIES ENVIRONMENT "HDGC_LIBCUDA=emulator")
# hdgc mesh: the pairs and counts; check --mesh asks nothing of the paired markers
hdg_cli_test(periodic_mesh_info 0 -e "^faces: 200$" -e "^boundary faces: 16$" -e "^markers: bottom\\(8\\) top\\(8\\)$"
  -e "^periodic: left:right \\(8 periodic faces\\)$" -- ${HDGC} mesh square:8,periodic=x)
hdg_cli_test(periodic_check_mesh 0 -e "^markers: bottom top$" -n "error"
  -- ${HDGC} check ${P}/poisson_periodic.hdg --mesh square:8,periodic=x)
# DG on the Gmsh torus (graded, perturbed, shuffled tags), refined 0..2 times: k+1 at k = 3
hdg_cli_test(periodic_dg_gmsh_rates 0 -e "fit +(3\\.8[5-9]|3\\.9[0-9]|4\\.[0-1][0-9])$"
  -- ${HDGC} convergence ${P}/advection_periodic.hdg --refine ${PMSH},periodic=left:right,bottom:top --levels 0..2
  --orders 3 --json /dev/null)

# data that do not repeat across the paired sides (examples/elasticity.hdg's f on periodic=x):
# a warning naming the term and the two points; periodic data give none
hdg_cli_test(periodic_data_not_periodic 0
  -e "warning: the data are not periodic across the paired sides .left:right.: the term .*f[(]x, y[)][.]x [*] v[.]x' of equation 2 [(]line 31[)] is 2[.]70332 at [(]0, 0[.]0985844[)] but 4[.]45702 at [(]1, 0[.]0985844[)]"
  -- $<TARGET_FILE:hdgc> run ${HDG_EXAMPLES}/elasticity.hdg --mesh square:8,periodic=x)
hdg_cli_test(periodic_data_periodic 0 -e "L2 error u " -n "not periodic"
  -- $<TARGET_FILE:hdgc> run ${HDG_TEST_DIR}/data/periodic/poisson_periodic.hdg --mesh square:8,periodic=x)
