# `hdgc bench spmv --backend cuda` (issue 7) and the cuSPARSE loader. The CLI
# tests run the device path on the CUDA emulator (HDGC_LIBCUDA=emulator):
# they check what is computed and reported (sizes, agreement with the host,
# the skipped cuSPARSE column), never timings.
#   cusparse           libcusparse of this machine loads, all symbols resolve, version and
#                      status strings (no GPU needed); skips (77) without the library
#   cusparse_missing   $HDGC_LIBCUSPARSE names a missing file: the message
#   cusparse_old       $HDGC_LIBCUSPARSE names a library without the symbols (libm)
#   cusparse_gpu       [label gpu] cuSPARSE CSR SpMV against the host; skips without a GPU
set(HDGC $<TARGET_FILE:hdgc>)
hdg_unit_test(cusparse test_cusparse.c)
set_tests_properties(cusparse PROPERTIES SKIP_RETURN_CODE 77)
add_test(NAME cusparse_missing COMMAND test_cusparse missing WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(cusparse_missing PROPERTIES ENVIRONMENT "HDGC_LIBCUSPARSE=/nonexistent/libcusparse.so.12")
add_test(NAME cusparse_old COMMAND test_cusparse old WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(cusparse_old PROPERTIES ENVIRONMENT "HDGC_LIBCUSPARSE=libm.so.6")
add_test(NAME cusparse_gpu COMMAND test_cusparse gpu WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(cusparse_gpu PROPERTIES SKIP_RETURN_CODE 77 LABELS gpu)

# square:8 at k = 2 on the emulator: 208 faces, 8784 nonzeros; the products
# agree with the host to 1e-13 (printed %.3e: e-14 .. e-99 or exactly 0), the
# copy is exact, and the cuSPARSE column is skipped with the note
set(BENCH_CUDA_AGREE "relative difference max\\|y_block - y_host\\|/max\\|y_host\\|: ([0-9]\\.[0-9]{3}e-(1[4-9]|[2-9][0-9])|0\\.000e\\+00) \\(agree, tolerance 1e-13\\)")
hdg_cli_test(bench_cuda_emulated 0
  -e "^spmv benchmark: mesh square:8 \\(128 elements, 208 faces\\), backend cuda, host threads [0-9]+, 1 samples per kernel$"
  -e "^order: k = 2$" -e "^device: hdgc CUDA emulator \\(host\\), compute capability 9\\.0"
  -e "^note: the device is the CUDA emulator" -e "^cuSPARSE: not available on the emulator \\(its column is skipped\\)$"
  -e "^matrix: 208 face rows, m = 3, 8784 nonzeros. dense block 0\\.1 MB, CSR 0\\.1 MB per SpMV. copy 0\\.1 MB"
  -e "^calls per sample: block [1-9][0-9]*, copy [1-9][0-9]*$"
  -e "^dense block +[0-9]+\\.[0-9]{4} +[0-9]+\\.[0-9]{4} +[0-9]+\\.[0-9]{2} +[0-9]+\\.[0-9]{2} +[0-9]+\\.[0-9]%$"
  -e "^copy +[0-9]+\\.[0-9]{4} +[0-9]+\\.[0-9]{4} +[0-9]+\\.[0-9]{2}$" -e "^cuSPARSE CSR +skipped$"
  -e "^block/copy bandwidth: [0-9]+\\.[0-9]{3} \\([0-9]+\\.[0-9]% of the copy kernel\\)$"
  -e "^block vs cuSPARSE speedup: skipped \\(no cuSPARSE\\)$" -e "${BENCH_CUDA_AGREE}"
  -e "^copy: exact \\(destination equals source\\)$"
  -n "DISAGREE" -n "WRONG" -n "error" -n "y_cusparse" -n "^triad"
  -- env HDGC_LIBCUDA=emulator ${HDGC} bench spmv --backend cuda --order 2 --mesh square:8 --reps 1)

# a sweep k = 1..2 with the JSON report: device, cuSPARSE note, per-order figures
set(BENCH_CUDA_JSON ${CMAKE_CURRENT_BINARY_DIR}/bench_cuda_sweep.json)
hdg_cli_test(bench_cuda_emulated_sweep_json 0
  -e "^orders: k = 1\\.\\.2$" -e "^ k  m  block MB  block ms   cusp ms   copy ms" -e "^ 1  2 +[0-9.]+ +[0-9.]+ +- "
  -e "^ 2  3 +[0-9.]+ +[0-9.]+ +- " -n "^ 3  4 " -n "DISAGREE"
  -e "\"backend\":[[:space:]]+\"cuda\"" -e "\"name\":[[:space:]]+\"hdgc CUDA emulator \\(host\\)\""
  -e "\"emulated\":[[:space:]]+true" -e "\"available\":[[:space:]]+false"
  -e "\"note\":[[:space:]]+\"not available on the emulator\"" -e "\"nnz\":[[:space:]]+3904,"
  -e "\"nnz\":[[:space:]]+8784," -e "\"exact\":[[:space:]]+true" -e "\"agree\":[[:space:]]+true"
  -e "\"block_copy\":[[:space:]]+[0-9]" -n "\"agree\":[[:space:]]+false" -n "block_cusparse_speedup"
  -- sh -c "rm -f ${BENCH_CUDA_JSON} && HDGC_LIBCUDA=emulator ${HDGC} bench spmv --backend cuda --sweep --orders 1..2 --mesh square:8 --reps 2 --json ${BENCH_CUDA_JSON} && cat ${BENCH_CUDA_JSON}")

# no driver: the driver layer's message, exit 1, nothing measured
hdg_cli_test(bench_cuda_no_driver 1
  -e "^hdgc: error: --backend cuda: no CUDA driver: /nonexistent/libcuda\\.so\\.1 not found" -n "^device:" -n "^matrix:"
  -- env HDGC_LIBCUDA=/nonexistent/libcuda.so.1 ${HDGC} bench spmv --backend cuda --mesh square:8 --reps 1)
hdg_cli_test(bench_cuda_bad_backend 2 -e "--backend needs c, cuda or auto \\(as hdgc run\\), not 'opencl'"
  -- ${HDGC} bench spmv --backend opencl)
hdg_cli_test(bench_cuda_help 0 -e "--backend B +c \\(the host, default" -e "cuSPARSE CSR +cusparseSpMV"
  -e "HDGC_LIBCUSPARSE" -e "%copy" -e "blk/cusp" -e "on the CUDA emulator, a note says so"
  -- ${HDGC} bench spmv --help)

# hdgc bench pipeline: stage times per backend in one run, errors compared (emulator for cuda)
hdg_cli_test(bench_pipeline_emulated 0 -e "poisson \\(HDG\\) on square:4, best of 1"
  -e " 1 c +[0-9.e+-]+ .* 1\\.00x +30" -e " 1 cuda +[0-9.e+-]+ " -e "k = 2: errors.q c 1\\.110197e-02, cuda 1\\.110197e-02: agree"
  -- $<TARGET_FILE:hdgc> bench pipeline ${HDG_EXAMPLES}/poisson.hdg --orders 1..2 --mesh square:4 --reps 1)
set_tests_properties(bench_pipeline_emulated PROPERTIES ENVIRONMENT "HDGC_LIBCUDA=emulator")
hdg_cli_test(bench_pipeline_dg_emulated 0 -e "maxwell2d \\(DG\\) on square:4" -e "errors.Hx c [0-9.e+-]+, cuda [0-9.e+-]+: agree"
  -- $<TARGET_FILE:hdgc> bench pipeline ${HDG_EXAMPLES}/maxwell2d.hdg --mesh square:4 --reps 1 --final-time 0.1)
set_tests_properties(bench_pipeline_dg_emulated PROPERTIES ENVIRONMENT "HDGC_LIBCUDA=emulator")
hdg_cli_test(bench_pipeline_host_only 0 -e " 1 c " -n " cuda "
  -- $<TARGET_FILE:hdgc> bench pipeline ${HDG_EXAMPLES}/poisson.hdg --orders 1..1 --mesh square:2 --backends c --reps 1)
hdg_cli_test(bench_pipeline_no_gpu 0 -e "the GPU part \\(cuda\\) is skipped: no CUDA driver" -e "^ 1 c "
  -- $<TARGET_FILE:hdgc> bench pipeline ${HDG_EXAMPLES}/poisson.hdg --orders 1..1 --mesh square:2 --reps 1)
set_tests_properties(bench_pipeline_no_gpu PROPERTIES ENVIRONMENT "HDGC_LIBCUDA=/nonexistent/libcuda.so.1")
hdg_cli_test(bench_pipeline_bad 2 -e "--backends: unknown backend 'opencl'"
  -- $<TARGET_FILE:hdgc> bench pipeline ${HDG_EXAMPLES}/poisson.hdg --backends c,opencl)
hdg_cli_test(bench_pipeline_help 0 -e "usage: hdgc bench pipeline" -e "--orders 1..9"
  -- $<TARGET_FILE:hdgc> bench pipeline --help)
