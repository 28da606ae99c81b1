# Trace-system runtime: thread pool, dense block matrix + CSR, Krylov solvers.
hdg_unit_test(parallel test_parallel.c)
hdg_unit_test(blockmat test_blockmat.c)
hdg_unit_test(krylov test_krylov.c)
