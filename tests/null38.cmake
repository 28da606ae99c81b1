# tests/null38.cmake — issue 38, what session 23 left: several free constants projected by
# every solver (PETSc's MatNullSpace with several vectors, mg's coarse level with a pinned
# coarse unknown per free component, mpirun's sums over the ranks). Each run is compared with
# the host's native answer (GMRES + block Jacobi) to 1e-8 relative on every error; before,
# --solver petsc, --precond mg and mpirun refused them by name (exit 1).
set(N38_HDGC $<TARGET_FILE:hdgc>)
set(N38_DATA ${HDG_TEST_DIR}/data/hdg)
set(N38_CMP ${HDG_TEST_DIR}/compare_reports.py)

# native, then each other solver on the same file and mesh; $2.. the run's arguments
set(N38_SOLVERS [=[set -e; d=$(mktemp -d); h="$0"; c="$1"; shift; "$h" run "$@" --solver gmres --precond block --quiet --json $d/native.json; "$h" run "$@" --solver petsc --quiet --json $d/petsc.json; "$h" run "$@" --precond mg --quiet --json $d/mg.json; for s in petsc mg; do python3 "$c" $d/native.json $d/$s.json --rtol 1e-8 --near errors --same solver.null_dimension --same solver.null_mean; done; rm -rf $d]=])

# two trace unknowns with flux data only (the constants of h1 and of h2), square:8
add_test(NAME null38_two_constants_solvers COMMAND sh -c "${N38_SOLVERS}" ${N38_HDGC} ${N38_CMP}
  ${N38_DATA}/two_traces_both_neumann.hdg --mesh square:8)
# the three translations of a vector trace on tetrahedra (cube:2, k = 1)
add_test(NAME null38_translations3d_solvers COMMAND sh -c "${N38_SOLVERS}" ${N38_HDGC} ${N38_CMP}
  ${N38_DATA}/veclap3d_neumann.hdg --mesh cube:2)
# pure-traction elasticity whose form leaves the two translations free (square:4, k = 2)
add_test(NAME null38_traction_translations_solvers COMMAND sh -c "${N38_SOLVERS}" ${N38_HDGC} ${N38_CMP}
  ${N38_DATA}/elasticity_translations.hdg --mesh square:4)
set_tests_properties(null38_two_constants_solvers null38_translations3d_solvers null38_traction_translations_solvers
  PROPERTIES TIMEOUT ${HDG_COMPILE_TIMEOUT} WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})

find_program(N38_MPIRUN mpirun)
find_package(Python3 COMPONENTS Interpreter)
if(N38_MPIRUN AND Python3_Interpreter_FOUND)
  # under mpirun (PETSc on the summed matrix, the null vectors orthonormal over the owned
  # faces, the right-hand side projected on them): the serial errors to 1e-8 at np 1 and 3
  foreach(case "two_constants;two_traces_both_neumann.hdg;square:6;1,3" "translations3d;veclap3d_neumann.hdg;cube:2;2")
    list(GET case 0 name)
    list(GET case 1 file)
    list(GET case 2 mesh)
    list(GET case 3 np)
    add_test(NAME null38_mpi_${name} COMMAND ${Python3_EXECUTABLE} ${HDG_TEST_DIR}/mpi_runs.py ${N38_HDGC}
      --np ${np} --rtol 1e-8 -- ${N38_DATA}/${file} --mesh ${mesh})
    set_tests_properties(null38_mpi_${name} PROPERTIES TIMEOUT ${HDG_COMPILE_TIMEOUT} RESOURCE_LOCK mpirun ENVIRONMENT
      "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1;OMPI_MCA_btl_vader_single_copy_mechanism=none")
  endforeach()
endif()
