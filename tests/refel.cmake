# Reference elements (triangle, tetrahedron), quadrature and small dense linear algebra (runtime/fem/refel,
# runtime/fem/quadrature, runtime/fem/geometry, runtime/solve/dense).
hdg_unit_test(dense test_dense.c)
hdg_unit_test(quadrature test_quadrature.c)
hdg_unit_test(refel test_refel.c)
hdg_unit_test(refel_tet test_refel_tet.c)
hdg_unit_test(geometry test_geometry.c)
