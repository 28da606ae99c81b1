# --solver petsc (issue 13): PETSc's KSP/PC on the trace system reproduces the native solution.
hdg_unit_test(petsc test_petsc.c)   # group poisson
foreach(group convdiff neumann)
  add_test(NAME petsc_${group} COMMAND test_petsc ${group} WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
endforeach()
