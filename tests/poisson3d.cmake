# HDG on tetrahedra (issue 39): the orientation maps of the trace bases
# (drivers/run_hdg_common.h hdg_hdg_face_maps) and the trace assembly through them;
# examples/poisson3d.hdg (u = exp(x) cos(2y) + x^2 y z) converging at rates k+1 (u, q) and
# k+2 (u*), fitted over cube:2,4,8 at k = 1..3 (k = 1 also cube:16), on the plain and the
# perturbed meshes, asserted within 0.3 by tests/check_rates.py (h = 1/N, the nominal size).
hdg_unit_test(face_maps test_face_maps.c)
# the same errors, to 1e-9, with every tetrahedron's vertices listed in a random order (all six
# face orientations then occur; the generated cube:N has two)
hdg_unit_test(poisson3d_orient test_poisson3d_orient.c)

set(P3D_HDGC $<TARGET_FILE:hdgc>)
set(P3D_FILE ${HDG_EXAMPLES}/poisson3d.hdg)
find_package(Python3 COMPONENTS Interpreter)
function(p3d_rates name file orders meshes)
  add_test(NAME ${name} COMMAND sh -c
    "'${P3D_HDGC}' convergence '${file}' --orders ${orders} --meshes ${meshes} --json ${name}.json --quiet && '${Python3_EXECUTABLE}' '${HDG_TEST_DIR}/check_rates.py' ${name}.json 0.3 u=1 q=1 ustar=2"
    WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  set_tests_properties(${name} PROPERTIES TIMEOUT ${HDG_COMPILE_TIMEOUT})
endfunction()
if(Python3_Interpreter_FOUND)
  p3d_rates(poisson3d_rates ${P3D_FILE} 1..3 cube:2,cube:4,cube:8)
  p3d_rates(poisson3d_rates_perturbed ${P3D_FILE} 1..3 cube:2,perturb=0.2,cube:4,perturb=0.2,cube:8,perturb=0.2)
  p3d_rates(poisson3d_rates_k1_cube16 ${P3D_FILE} 1 cube:4,cube:8,cube:16)
  # in time: BDF3 (dt = 0.01, its error ~1e-6 below the spatial one), k = 2, cube:2 -> cube:4:
  # u 2.97, q 2.92, u* 3.93 (cube:8: 2.99, 2.96, 3.97; 36 s, not a test)
  p3d_rates(heat3d_rates ${HDG_TEST_DIR}/data/hdg/heat3d.hdg 2 cube:2,cube:4)
endif()

# One run's figures (cube:4, k = 2): the errors, the estimate's effectivity; block Jacobi
# below 10000 trace unknowns (cube:2), as in 2D.
hdg_cli_test(poisson3d_run 0 -e "384 elements, 864 faces" -e "L2 error u +4\\.246[0-9]+e-04"
  -e "L2 error ustar +3\\.126[0-9]+e-05" -e "effectivity 0\\.9[0-9]+"
  -- ${P3D_HDGC} run ${P3D_FILE} --mesh cube:4 --order 2)
add_test(NAME poisson3d_run_report COMMAND sh -c
  "'${P3D_HDGC}' run '${P3D_FILE}' --mesh cube:2 --order 1 --json p3d.json --quiet && grep -Eq '\"precond\":[[:space:]]*\"block\"' p3d.json && grep -Eq '\"trace_per_face\":[[:space:]]*3,' p3d.json"
  WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
# mg on tetrahedra (its P1 coarse space on the vertices, runtime/solve/mg.c): CG iterations
# flat in h, cube:8 within 1.3x of cube:4 at k = 1, 2 (measured 25 -> 27, 29 -> 31; k = 3:
# 33 -> 34; cube:16 at k = 1: 27), and mg by default from 10000 trace unknowns (cube:8, k = 2)
if(Python3_Interpreter_FOUND)
  add_test(NAME poisson3d_mg_flat COMMAND sh -c
    "for k in 1 2; do for n in 4 8; do '${P3D_HDGC}' run '${P3D_FILE}' --mesh cube:$n --order $k --precond mg --json mg_\${k}_\${n}.json --quiet || exit 1; done; '${Python3_EXECUTABLE}' -c \"import json,sys; a, b = (json.load(open(f))['solver']['iterations'] for f in sys.argv[1:]); print(a, b); sys.exit(not (0 < a <= 40 and b <= 1.3 * a))\" mg_\${k}_4.json mg_\${k}_8.json || exit 1; done"
    WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
endif()
add_test(NAME poisson3d_mg_default COMMAND sh -c
  "'${P3D_HDGC}' run '${P3D_FILE}' --mesh cube:8 --order 2 --json mgd.json --quiet && grep -Eq '\"precond\":[[:space:]]*\"mg\"' mgd.json && grep -Eq '\"iterations\":[[:space:]]*(2[0-9]|3[0-5]),' mgd.json"
  WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})

# --vtk on tetrahedra (issue 39.8; it said "HDG on tetrahedra does not do --vtk yet"): cube:4,
# k = 2, Lagrange tetrahedra of degree 3 whose points hold u* to its error (rms at the points
# 1.19e-4 against the L2 error 3.1e-5; a wrong lattice or vertex order gives ~1e-1)
if(Python3_Interpreter_FOUND)
  add_test(NAME poisson3d_vtk COMMAND sh -c
    "'${P3D_HDGC}' run '${P3D_FILE}' --mesh cube:4 --order 2 --vtk p3d_vtk.vtu --quiet && '${Python3_EXECUTABLE}' '${HDG_TEST_DIR}/vtu_exact3d.py' p3d_vtk.vtu ustar 1.5e-4 && rm -f p3d_vtk.vtu"
    WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  set_tests_properties(poisson3d_vtk PROPERTIES TIMEOUT ${HDG_COMPILE_TIMEOUT} PASS_REGULAR_EXPRESSION "ok: 7680 points")
endif()

# hdgc convergence --meshes N,... on a 'mesh tetrahedron' file makes cube:N (square:N before:
# refused as a mesh of the other dimension): cube:2 -> cube:4 at k = 1, u rate 1.98
hdg_cli_test(convergence_3d_cube_n 0 -e "poisson3d, order 1" -e " 4 +[0-9.e+-]+ +1\\.[89][0-9] +[0-9.e+-]+ +(1\\.9[0-9]|2\\.0[0-9]) "
  -- $<TARGET_FILE:hdgc> convergence ${P3D_FILE} --orders 1 --meshes 2,4 --json /dev/null)
