# --precond mg and the default stopping rule (issue 13): iterations flat in h, the
# block-Jacobi solution, the defaults' u* rate (tests/test_mg.c).
hdg_unit_test(mg test_mg.c)   # group poisson3
foreach(group poisson1 poisson5 perturbed tensor convdiff same defaults)
  add_test(NAME mg_${group} COMMAND test_mg ${group} WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
endforeach()
if(HDG_SANITIZE)   # PETSc starts: Open MPI's leaks (tests/lsan_petsc.supp)
  foreach(t mg mg_poisson1 mg_poisson5 mg_perturbed mg_tensor mg_convdiff mg_same mg_defaults)
    set_property(TEST ${t} APPEND PROPERTY ENVIRONMENT ${HDG_PETSC_LSAN})
  endforeach()
endif()
