# --solver petsc (issue 13): PETSc's KSP/PC on the trace system reproduces the native solution.
hdg_unit_test(petsc test_petsc.c)   # group poisson
foreach(group convdiff neumann)
  add_test(NAME petsc_${group} COMMAND test_petsc ${group} WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
endforeach()

# Without mpirun, loading PETSc sets Open MPI's isolated singleton and the ob1 transport
# (runtime/petsc/petsc_load.c, quick_singleton: MPI_Init 0.02 s instead of 0.3), never over the
# user's own value, and not with HDGC_NO_MPI_DEFAULTS=1; the report says which it set.
set(MPI_DEF_RUN "\"${HDG_TEST_DIR}/data/hdg/poisson_exp.hdg\" --mesh square:16 --order 2 --precond mg")
hdg_cli_test(petsc_mpi_defaults 0
  -e "\"mpi_defaults\":[[:space:]]+\"OMPI_MCA_ess_singleton_isolated=1 OMPI_MCA_pml=ob1\""
  -e "L2 error ustar +1\\.5665"
  -- sh -c "env -u OMPI_MCA_pml -u OMPI_MCA_ess_singleton_isolated \"$0\" run ${MPI_DEF_RUN} --json /dev/stdout" $<TARGET_FILE:hdgc>)
hdg_cli_test(petsc_mpi_defaults_user 0
  -e "\"mpi_defaults\":[[:space:]]+\"OMPI_MCA_ess_singleton_isolated=1\""
  -- sh -c "env -u OMPI_MCA_ess_singleton_isolated OMPI_MCA_pml=ob1 \"$0\" run ${MPI_DEF_RUN} --json /dev/stdout" $<TARGET_FILE:hdgc>)
hdg_cli_test(petsc_mpi_defaults_off 0
  -e "\"mpi_defaults\":[[:space:]]+\"\""
  -e "L2 error ustar +1\\.5665"
  -- sh -c "env -u OMPI_MCA_pml -u OMPI_MCA_ess_singleton_isolated HDGC_NO_MPI_DEFAULTS=1 \"$0\" run ${MPI_DEF_RUN} --json /dev/stdout" $<TARGET_FILE:hdgc>)
