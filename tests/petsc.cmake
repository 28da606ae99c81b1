# --solver petsc (issue 13): PETSc's KSP/PC on the trace system reproduces the native solution.
hdg_unit_test(petsc test_petsc.c)   # group poisson
foreach(group convdiff neumann)
  add_test(NAME petsc_${group} COMMAND test_petsc ${group} WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
endforeach()
# A sanitizer build: LeakSanitizer is told about Open MPI's allocations kept to the end
# of the process (tests/lsan_petsc.supp), for these tests and the hostile rows that start PETSc.
if(HDG_SANITIZE)
  set(HDG_PETSC_LSAN "LSAN_OPTIONS=suppressions=${HDG_TEST_DIR}/lsan_petsc.supp:fast_unwind_on_malloc=0")
  foreach(t petsc petsc_convdiff petsc_neumann hostile_hdg_petsc_bad_ksp hostile_hdg_petsc_bad_value
          hostile_hdg_petsc_env_bad_pc hostile_hdg_petsc_misspelt hostile_hdg_petsc_diverged hostile_hdg_petsc_ok
          hostile_hdg_petsc_convergence_bad_ksp)
    set_property(TEST ${t} APPEND PROPERTY ENVIRONMENT ${HDG_PETSC_LSAN})
  endforeach()
endif()
