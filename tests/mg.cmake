# --precond mg and the default stopping rule (issue 13): iterations flat in h, the
# block-Jacobi solution, the defaults' u* rate (tests/test_mg.c).
hdg_unit_test(mg test_mg.c)   # group poisson3
foreach(group poisson1 poisson5 perturbed tensor convdiff same defaults)
  add_test(NAME mg_${group} COMMAND test_mg ${group} WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
endforeach()
