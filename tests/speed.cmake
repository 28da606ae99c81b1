# The C emitter's dense helpers for sizes known at compile time give the same
# values as its generic ones (backends/c/emit_dense.c). No timings asserted.
hdg_unit_test(dense_fixed test_dense_fixed.c)
