# Explicit nodal DG on tetrahedra (issue 39 items 2 and 6; tests/test_dg3d.c):
#   dg3d_maps        face maps pair every interior face node with the neighbour's node at the same
#                    point (1e-12), perturbed and periodic cubes, N = 1..5, Morton order too
#   dg3d_semi        semi-discrete energy rate of maxwell3d: 0 (central), < 0 (upwind); step = rhs + update
#   dg3d_snapshot    the API's fields: the snapshot of a 3D run (dim 3, the lattice's t, 3D vertices)
#   dg3d_png         --png --slice z=0.25 of E_z: the picture's range is the exact one to 0.03
#   dg3d_vtk         --vtk on tetrahedra (.vtu checked against the exact E by tests/dg3d_vtu.py, a .pvd series)
#   dg3d_weak        weak-form 3D advection (dx(v), dy(v), dz(v)) = strong form's rhs to 1e-11
#   dg3d_rates_N     maxwell3d upwind, a mesh and its twice finer one: rate N+1 within 0.3 (E and H), N = 1..5
#   dg3d_energy      central flux: LSERK4 drift falling like dt^5, < 1e-10 over 310 steps at cfl 0.05;
#                    upwind non-increasing over 124 steps
#   dg3d_cli_*       `hdgc run` on examples/maxwell3d.hdg and acoustics3d.hdg (what 3D refuses: hostile/dg.tsv tet_*)
#   dg3d_cuda_emulated  the GPU driver on the CUDA emulator equals the host
hdg_unit_test(dg3d_maps test_dg3d.c)   # the program's default part; the others by argument
add_test(NAME dg3d_semi COMMAND test_dg3d_maps semi)
add_test(NAME dg3d_weak COMMAND test_dg3d_maps weak)
add_test(NAME dg3d_energy COMMAND test_dg3d_maps energy)
add_test(NAME dg3d_snapshot COMMAND test_dg3d_maps snapshot)
# N COARSE FINE: the coarsest pair in the asymptotic range within a few seconds (N = 1 is not
# on cube:2 -> 4: rate 1.6 there)
foreach(case "1 cube:4 cube:8" "2 cube:2 cube:4" "3 cube:3 cube:6" "4 cube:3 cube:6" "5 cube:2 cube:4")
  separate_arguments(args UNIX_COMMAND "${case}")
  list(GET args 0 N)
  add_test(NAME dg3d_rates_${N} COMMAND test_dg3d_maps rates ${args})
endforeach()
# on perturbed meshes (not nested: the rates scatter more; N = 3: 3.91 and 3.72)
add_test(NAME dg3d_rates_3_perturbed COMMAND test_dg3d_maps rates 3 cube:3,perturb=0.2 cube:6,perturb=0.2)
hdg_cli_test(dg3d_cli_maxwell 0 -e "maxwell3d: DG, order 2, 48 elements, 2880 dofs" -e "L2 error E +6.9[0-9]+e-02"
  -e "L2 error H +6.6[0-9]+e-02" --
  $<TARGET_FILE:hdgc> run ${HDG_EXAMPLES}/maxwell3d.hdg --mesh cube:2 --order 2 --final-time 0.1)
hdg_cli_test(dg3d_cli_acoustics 0 -e "acoustics3d: DG, order 3, 48 elements" -e "L2 error p +5.[0-9]+e-03"
  -e "L2 error u +5.[0-9]+e-03" --
  $<TARGET_FILE:hdgc> run ${HDG_EXAMPLES}/acoustics3d.hdg --mesh cube:2 --order 3)
# The same run on the GPU driver (drivers/run_dg_cuda.c), on the CUDA emulator: the same errors and
# energy as the host to 1e-12 (tests/compare_reports.py)
add_test(NAME dg3d_cuda_emulated COMMAND sh -c
  "$<TARGET_FILE:hdgc> run ${HDG_EXAMPLES}/maxwell3d.hdg --mesh cube:2,perturb=0.2 --order 3 --final-time 0.2 --quiet --json dg3d_host.json && HDGC_LIBCUDA=emulator $<TARGET_FILE:hdgc> run ${HDG_EXAMPLES}/maxwell3d.hdg --mesh cube:2,perturb=0.2 --order 3 --final-time 0.2 --backend cuda --quiet --json dg3d_emu.json && python3 ${HDG_TEST_DIR}/compare_reports.py dg3d_host.json dg3d_emu.json --rtol 1e-12 --near errors --near energy.end --same steps"
  WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
# `hdgc ir` and `hdgc emit` of a 3D DG problem: the 3D tables (Dt, the exterior nodes of the 6 orientations)
hdg_cli_test(dg3d_cli_ir 0 -e "^module maxwell3d" -e "table int FmaskExt[[]24[]][[]3[]]" -e "table tnode[[]4[]]" --
  $<TARGET_FILE:hdgc> ir ${HDG_EXAMPLES}/maxwell3d.hdg --order 1)
# --vtk on tetrahedra: VTK Lagrange tetrahedra of the final state, E at every point within 0.02 of the
# cavity mode (largest 0.0053 at N = 4 on cube:3; a wrong lattice order gives O(1)); a .pvd series
add_test(NAME dg3d_vtk COMMAND sh -c
  "$<TARGET_FILE:hdgc> run ${HDG_EXAMPLES}/maxwell3d.hdg --mesh cube:3 --order 4 --final-time 0.2 --vtk dg3d.vtu --quiet && python3 ${HDG_TEST_DIR}/dg3d_vtu.py dg3d.vtu 0.2 0.02 && $<TARGET_FILE:hdgc> run ${HDG_EXAMPLES}/maxwell3d.hdg --mesh cube:1 --order 2 --final-time 0.2 --vtk dg3d_series.pvd --every 2 --quiet && python3 ${HDG_TEST_DIR}/check_vtu.py dg3d_series.pvd:3"
  WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
# --png on tetrahedra (drivers/run_png_dg.c, runtime/output/png3d.c): the section z = 0.25 of E_z at t = 0.05,
# whose exact range there is [-2 cos(pi/4) cos(0.05 omega), 0] = [-1.362, 0]
add_test(NAME dg3d_png COMMAND sh -c
  "$<TARGET_FILE:hdgc> run ${HDG_EXAMPLES}/maxwell3d.hdg --mesh cube:3 --order 3 --final-time 0.05 --png dg3d_slice.png --field E_z --slice z=0.25 --size 400x400 --json dg3d_png.json --quiet && python3 -c \"import json, math, sys; o = json.load(open('dg3d_png.json'))['output']; lo = -2 * math.cos(math.pi / 4) * math.cos(0.05 * math.pi * math.sqrt(3)); print(o['png_min'], o['png_max'], lo); sys.exit(not (abs(o['png_min'] - lo) < 0.03 and abs(o['png_max']) < 0.03 and o['png_view'] == 'slice z = 0.25'))\""
  WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
