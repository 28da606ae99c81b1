# Explicit nodal DG (ir/lower_dg.c, drivers/run_dg.c, runtime/solve/lserk4.c).
#   dg            generated RHS vs a plain Hesthaven-Warburton Maxwell RHS (1e-13), fused
#                 stage vs rhs + update, energy kernel, weak vs strong form, element order,
#                 LSERK4 order, convergence rates (Maxwell on square, perturbed and
#                 Gmsh meshes; acoustics; advection), energy (upwind, central,
#                 1000 steps), blow-up detection, rejected forms
#   dg_cli_*      `hdgc run` on the three examples and a blow-up through the CLI
hdg_unit_test(dg test_dg.c)
hdg_cli_test(dg_cli_maxwell 0 -e "L2 error +Ez +[0-9.]+e-0[4-9]" --
  $<TARGET_FILE:hdgc> run ${HDG_EXAMPLES}/maxwell2d.hdg --mesh square:4 --order 3 --final-time 0.2)
hdg_cli_test(dg_cli_acoustics 0 -e "L2 error +p +[0-9.]+e-0[4-9]" -e "L2 error +u " --
  $<TARGET_FILE:hdgc> run ${HDG_EXAMPLES}/acoustics2d.hdg --mesh square:4 --order 3 --final-time 0.2)
hdg_cli_test(dg_cli_advection 0 -e "L2 error +u +[0-9.]+e-0[3-9]" --
  $<TARGET_FILE:hdgc> run ${HDG_EXAMPLES}/advection2d.hdg --mesh square:4,perturb=0.2 --order 3 --final-time 0.2)
hdg_cli_test(dg_cli_blowup 1 -e "unstable: the energy grew from .* at step [0-9]+ \\(t = " --
  $<TARGET_FILE:hdgc> run ${HDG_EXAMPLES}/maxwell2d.hdg --mesh square:4 --order 3 --cfl 20 --final-time 3)
# Benchmark (built, not a test): bench_dg [M] [Nmin] [Nmax] [rounds] [steps]; see docs/performance.md.
add_executable(bench_dg bench_dg.c)
target_link_libraries(bench_dg PRIVATE hdgc_lib)
target_include_directories(bench_dg PRIVATE ${HDG_TEST_DIR})
target_compile_definitions(bench_dg PRIVATE HDG_EXAMPLES="${HDG_EXAMPLES}")
hdg_cli_test(dg_cli_vtk 0 -e "L2 error +Ez" --
  $<TARGET_FILE:hdgc> run ${HDG_EXAMPLES}/maxwell2d.hdg --mesh square:2 --order 2 --final-time 0.1
  --vtk ${CMAKE_CURRENT_BINARY_DIR}/dg_cli_vtk.pvd --every 2)
# dg_speed: the time step from the characteristic speed (drivers/dg_speed.c), the
# energy watch and the step limit (tests/test_dg_speed.c)
hdg_unit_test(dg_speed test_dg_speed.c)
