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
set_tests_properties(jit_valgrind PROPERTIES LABELS valgrind SKIP_RETURN_CODE 77 TIMEOUT ${HDG_COMPILE_TIMEOUT})
endif()

# HDGC_JIT_CPU=name: kernels for another CPU (its own features), to measure on this host the code
# another machine runs. haswell (AVX2, FMA, no AVX-512): 4 lanes per batch whatever the host, the
# same u* as the host's code to 7 digits (skipped, 77, where hdgc says this host lacks one of its
# features). A CPU with a feature the host lacks is refused, naming it (skylake-avx512 on a host
# without AVX-512, else znver3 on one without SSE4a; skipped where the host has both), and so is
# an unknown name, before anything compiles.
add_test(NAME jit_cpu_haswell
  COMMAND sh -c "export HDGC_JIT_CPU=haswell; out=$(\"$0\" run \"$1\" --mesh square:16,perturb=0.2 --order 3 2>&1); case $out in *'this host lacks'*) exit 77;; esac; printf '%s\\n' \"$out\" | grep -Eq 'L2 error ustar +1\\.396871e-09' && \"$0\" bench stages \"$1\" --orders 1..1 --mesh square:4 --reps 1 | grep -Eq '^ 1 local .* 4$'"
          $<TARGET_FILE:hdgc> ${HDG_TEST_DIR}/data/hdg/poisson_exp.hdg)
set_tests_properties(jit_cpu_haswell PROPERTIES SKIP_RETURN_CODE 77)
add_test(NAME jit_cpu_host_lacks
  COMMAND sh -c "if ! grep -qw avx512f /proc/cpuinfo; then cpu=skylake-avx512 f=avx512f; elif ! grep -qw sse4a /proc/cpuinfo; then cpu=znver3 f=sse4a; else exit 77; fi; out=$(HDGC_JIT_CPU=$cpu \"$0\" run \"$1\" --mesh square:4 --order 1 2>&1); rc=$?; echo \"$out\"; [ $rc = 1 ] && printf '%s\\n' \"$out\" | grep -Eq \"HDGC_JIT_CPU=$cpu: this host lacks its .*$f.* \\(its code would not run here\\)\""
          $<TARGET_FILE:hdgc> ${HDG_TEST_DIR}/data/hdg/poisson_exp.hdg)
set_tests_properties(jit_cpu_host_lacks PROPERTIES SKIP_RETURN_CODE 77)
hdg_cli_test(jit_cpu_unknown 1 -e "HDGC_JIT_CPU=pentium9: not a CPU LLVM knows" -n "is not a recognized processor"
  -- env HDGC_JIT_CPU=pentium9 $<TARGET_FILE:hdgc> run ${HDG_TEST_DIR}/data/hdg/poisson_exp.hdg --mesh square:4 --order 1)
