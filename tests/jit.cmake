# C backend JIT and the on-disk kernel cache.
hdg_unit_test(cache test_cache.c)
hdg_unit_test(jit test_jit.c)
