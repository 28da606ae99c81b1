# Explicit nodal DG on tetrahedra (issue 39 items 2 and 6; tests/test_dg3d.c):
#   dg3d_maps        face maps pair every interior face node with the neighbour's node at the same
#                    point (1e-12), perturbed and periodic cubes, N = 1..5, Morton order too
#   dg3d_semi        semi-discrete energy rate of maxwell3d: 0 (central), < 0 (upwind); step = rhs + update
#   dg3d_rates_N     maxwell3d upwind, cube:2 -> cube:4: rate N+1 within 0.3 (H and E), N = 1..4
#   dg3d_energy      central flux: drift < 1e-10 over >= 200 steps, falling like dt^4; upwind non-increasing
#   dg3d_cli_*       `hdgc run examples/maxwell3d.hdg` and what 3D refuses (--png, --vtk)
hdg_unit_test(dg3d_maps test_dg3d.c)   # the program's default part; the others by argument
add_test(NAME dg3d_semi COMMAND test_dg3d_maps semi)
add_test(NAME dg3d_energy COMMAND test_dg3d_maps energy)
foreach(N 1 2 3 4)
  add_test(NAME dg3d_rates_${N} COMMAND test_dg3d_maps rates ${N})
endforeach()
hdg_cli_test(dg3d_cli_maxwell 0 -e "L2 error +Ez +[0-9.]+e-0[2-9]" --
  $<TARGET_FILE:hdgc> run ${HDG_EXAMPLES}/maxwell3d.hdg --mesh cube:2 --order 2 --final-time 0.1)
hdg_cli_test(dg3d_cli_png 1 -e "pictures of a 3D DG run are not available yet" --
  $<TARGET_FILE:hdgc> run ${HDG_EXAMPLES}/maxwell3d.hdg --mesh cube:1 --order 1 --final-time 0.1 --png dg3d.png)
