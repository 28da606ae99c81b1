# C backend JIT and the on-disk kernel cache.
hdg_unit_test(cache test_cache.c)
hdg_unit_test(support_util test_util.c)
hdg_unit_test(jit test_jit.c)
hdg_unit_test(jit_far test_jit_far.c)   # code and tables within 2 GB in a fragmented address space
set_tests_properties(jit_far PROPERTIES SKIP_RETURN_CODE 77)   # no 64 GB of address space (ulimit -v)

# memcheck over hdgc run at a high degree, JIT kernels included, with a cache warmed under
# valgrind (about 45 s at k = 14; k = 20 is clean too but takes about 60 s of memcheck
# alone): label valgrind, skipped (77) without valgrind.
# (not in a sanitizer build: valgrind cannot run an ASan binary; ASan checks that build instead)
if(NOT HDG_SANITIZE)
add_test(NAME jit_valgrind COMMAND sh ${HDG_TEST_DIR}/valgrind_kernels.sh $<TARGET_FILE:hdgc> ${HDG_EXAMPLES} 14)
set_tests_properties(jit_valgrind PROPERTIES LABELS valgrind SKIP_RETURN_CODE 77 TIMEOUT 300)
endif()
