# Reference element, quadrature and small dense linear algebra (runtime/refel,
# runtime/quadrature, runtime/dense).
hdg_unit_test(dense test_dense.c)
hdg_unit_test(quadrature test_quadrature.c)
hdg_unit_test(refel test_refel.c)
