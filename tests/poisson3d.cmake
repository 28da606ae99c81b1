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
  # k = 4 on cube:2,4,8 (measured 4.99/4.97/5.99) and k = 2 to cube:16 (2.99/2.98/3.99)
  p3d_rates(poisson3d_rates_k4 ${P3D_FILE} 4 cube:2,cube:4,cube:8)
  p3d_rates(poisson3d_rates_k2_cube16 ${P3D_FILE} 2 cube:4,cube:8,cube:16)
  # a Gmsh tetrahedral mesh of a non-cubic domain (tests/data/mesh3d/lblock_v41.msh: the L-shaped
  # block, 144 tetrahedra, refined into 8 twice; h measured): measured u, q, u* 1.99/1.93/2.92
  # (k = 1), 2.98/2.96/3.97 (k = 2), 3.99/3.96/5.00 (k = 3)
  set(P3D_LB ${HDG_TEST_DIR}/data/mesh3d/lblock_v41.msh)
  p3d_rates(poisson3d_rates_gmsh_lblock ${P3D_FILE} 1..3 ${P3D_LB},${P3D_LB},refine=1,${P3D_LB},refine=2)
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
# flat in h (tests/mg_flat.py: the fine mesh's within 1.3x of the coarse one's), cube:4 ->
# cube:16 at k = 1, 2, 3 (measured 25 -> 27, 29 -> 31, 33 -> 34; cube:8 27, 31, 34), perturbed
# cube:4 -> cube:12 (27 -> 33, 32 -> 36, 35 -> 39 at cube:16: 33, 36, 40), and heat3d (BDF3)
# with dt = 0.16 h^2, the same mass-to-stiffness ratio on every mesh, its largest solve
# cube:4 -> cube:8 (k = 1: 15 -> 16, k = 2: 18 -> 18; cube:16: 17, 18; with a fixed dt = 0.01
# the coarse meshes' solves are easier, 15 -> 25, below the steady 27). cube:32 is in
# bench/mg_iterations.sh.
# Then mg by default from 10000 trace unknowns (cube:8, k = 2).
if(Python3_Interpreter_FOUND)
  foreach(k 1 2 3)
    add_test(NAME poisson3d_mg_flat_k${k} COMMAND ${Python3_EXECUTABLE} ${HDG_TEST_DIR}/mg_flat.py
      ${P3D_HDGC} ${P3D_FILE} --coarse cube:4 --fine cube:16 --orders ${k})
  endforeach()
  add_test(NAME poisson3d_mg_flat_perturbed COMMAND ${Python3_EXECUTABLE} ${HDG_TEST_DIR}/mg_flat.py
    ${P3D_HDGC} ${P3D_FILE} --coarse cube:4,perturb=0.2 --fine cube:12,perturb=0.2 --orders 1,2,3)
  add_test(NAME heat3d_mg_flat COMMAND ${Python3_EXECUTABLE} ${HDG_TEST_DIR}/mg_flat.py
    ${P3D_HDGC} ${HDG_TEST_DIR}/data/hdg/heat3d.hdg --coarse cube:4 --fine cube:8 --orders 1,2 --dt-h2 0.16)
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

# --png on tetrahedra (HDG): the section z = 0.37 of u on cube:4 at k = 3; the picture's range (of
# the flat sub-triangles drawn) within 0.05 of the exact one on that plane, -0.761 .. e
# (measured -0.732 .. 2.710); refused before ("does not do --png yet")
add_test(NAME poisson3d_png COMMAND sh -c
  "$<TARGET_FILE:hdgc> run ${HDG_EXAMPLES}/poisson3d.hdg --mesh cube:4 --order 3 --png p3d_slice.png --slice z=0.37 --json p3d_png.json --quiet && python3 -c \"import json, math, sys; o = json.load(open('p3d_png.json'))['output']; print(o['png_min'], o['png_max']); sys.exit(not (abs(o['png_min'] + 0.7612) < 0.05 and abs(o['png_max'] - math.e) < 0.05 and o['png_view'] == 'slice z = 0.37'))\""
  WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
