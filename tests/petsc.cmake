# --solver petsc (issue 13): PETSc's KSP/PC on the trace system reproduces the native solution.
hdg_unit_test(petsc test_petsc.c)   # group poisson
foreach(group convdiff neumann)
  add_test(NAME petsc_${group} COMMAND test_petsc ${group} WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
endforeach()
# A sanitizer build: HDG_PETSC_LSAN (tests/CMakeLists.txt) for these tests and the hostile
# rows that start PETSc.
if(HDG_SANITIZE)
  foreach(t petsc petsc_convdiff petsc_neumann hostile_hdg_petsc_bad_ksp hostile_hdg_petsc_bad_value
          hostile_hdg_petsc_env_bad_pc hostile_hdg_petsc_misspelt hostile_hdg_petsc_diverged hostile_hdg_petsc_ok
          hostile_hdg_petsc_convergence_bad_ksp)
    set_property(TEST ${t} APPEND PROPERTY ENVIRONMENT ${HDG_PETSC_LSAN})
  endforeach()
endif()
