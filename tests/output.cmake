# Output writers: VTK .vtu/.pvd (runtime/output/vtk.c) and the JSON report (runtime/output/report.c).
hdg_unit_test(output_vtk test_vtk.c)
hdg_unit_test(output_report test_report.c)
set_tests_properties(output_vtk PROPERTIES FIXTURES_SETUP output_vtk_files)

# An independent reader (Python's xml.etree) for the files output_vtk leaves in
# the test directory: well-formedness, counts, and VTK's Lagrange point order.
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  set(specs)
  foreach(p RANGE 0 10)
    math(EXPR nlat "(${p} + 1) * (${p} + 2) / 2")
    if(p EQUAL 0)
      set(npts 6)
      set(nsub 2)
    else()
      math(EXPR npts "2 * ${nlat}")
      math(EXPR nsub "2 * ${p} * ${p}")
    endif()
    list(APPEND specs out_vtk_lagrange_p${p}.vtu:${npts}:2 +f +g
                      out_vtk_subdivide_p${p}.vtu:${npts}:${nsub} +f +g)
  endforeach()
  list(APPEND specs out_vtk_names.vtu:6:2 +f "+a<b & \"c\" 'd'>"
                    out_vtk_nofields.vtu:30:2 out_vtk_empty.vtu:0:0
                    out_vtk_cells_p3.vtu:20:2 +f +g +eta out_vtk_cells_sub3.vtu:20:18 +f +g +eta
                    out_vtk_cells_p0.vtu:6:2 +f +g +eta out_vtk_cells_only.vtu:12:2 +eta
                    out_series.pvd:2 out_pvd/run/series.pvd:3)
  add_test(NAME output_vtk_xml
    COMMAND ${Python3_EXECUTABLE} ${HDG_TEST_DIR}/check_vtu.py ${specs}
    WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  set_tests_properties(output_vtk_xml PROPERTIES FIXTURES_REQUIRED output_vtk_files)
endif()
