# `hdgc bench spmv`: the trace SpMV benchmark. These tests check what it
# computes and reports (sizes, agreement of the two products), never timings.
set(HDGC $<TARGET_FILE:hdgc>)
# max|y_block - y_csr| / max|y_csr| printed in %.3e: below 1e-14 means e-15 .. e-99 or exactly 0
set(BENCH_AGREE "relative difference max\\|y_block - y_csr\\|/max\\|y_csr\\|: ([0-9]\\.[0-9]{3}e-(1[5-9]|[2-9][0-9])|0\\.000e\\+00) \\(agree, tolerance 1e-14\\)")

# square:8 at k = 2: 208 faces; 176 interior rows of 5 blocks + 32 boundary rows of 3 = 976 blocks of 3 x 3
hdg_cli_test(bench_spmv_agree 0
  -e "^spmv benchmark: mesh square:8 \\(128 elements, 208 faces\\)" -e "^order: k = 2$"
  -e "^matrix: 208 face rows, m = 3, 8784 nonzeros" -e "^triad: [0-9]+\\.[0-9]+ GB/s"
  -e "^dense block +[0-9]" -e "^CSR +[0-9]" -e "^smoother +[0-9]" -e "^block vs CSR speedup: [0-9.]+x" -e "${BENCH_AGREE}"
  -n "DISAGREE" -n "error"
  -- ${HDGC} bench spmv --order 2 --mesh square:8 --reps 2)

# sweep over k = 1..3 on a perturbed mesh, with the JSON report
set(BENCH_JSON ${CMAKE_CURRENT_BINARY_DIR}/bench_sweep.json)
hdg_cli_test(bench_spmv_sweep_json 0
  -e "^orders: k = 1\\.\\.3$" -e "^ 1  2 " -e "^ 2  3 " -e "^ 3  4 " -n "^ 4  5 " -n "DISAGREE"
  -e "\"benchmark\":[[:space:]]+\"spmv\"" -e "\"faces\":[[:space:]]+3136" -e "\"nnz\":[[:space:]]+61696,"
  -e "\"agree\":[[:space:]]+true" -n "\"agree\":[[:space:]]+false"
  -e "\"bytes\":[[:space:]]+664832,"
  -- sh -c "rm -f ${BENCH_JSON} && ${HDGC} bench spmv --sweep --orders 1..3 --mesh square:32,perturb=0.2 --reps 1 --triad-mib 8 --threads 2 --json ${BENCH_JSON} && cat ${BENCH_JSON}")

hdg_cli_test(bench_help 0 -e "usage: hdgc bench spmv" -e "--sweep" -e "STREAM triad" -e "HDG_THREADS"
  -- ${HDGC} bench spmv --help)
hdg_cli_test(bench_no_benchmark 2 -e "no benchmark given" -- ${HDGC} bench)
hdg_cli_test(bench_unknown 2 -e "unknown benchmark 'dgemm'" -- ${HDGC} bench dgemm)
hdg_cli_test(bench_bad_order 2 -e "--order needs an integer 1\\.\\.10, not '0'" -- ${HDGC} bench spmv --order 0)
hdg_cli_test(bench_bad_orders 2 -e "--orders needs a range a\\.\\.b" -- ${HDGC} bench spmv --orders 3..1)
hdg_cli_test(bench_unknown_option 2 -e "unknown option '--frob'" -- ${HDGC} bench spmv --frob)
hdg_cli_test(bench_bad_mesh 1 -e "^hdgc: error: .*square:N needs an integer N" -- ${HDGC} bench spmv --mesh square:x)
