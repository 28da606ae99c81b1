# Output writers: VTK .vtu/.pvd (runtime/output/vtk.c) and the JSON report (runtime/output/report.c).
hdg_unit_test(output_vtk test_vtk.c)
hdg_unit_test(output_report test_report.c)
set_tests_properties(output_vtk PROPERTIES FIXTURES_SETUP output_vtk_files)

# An independent reader (Python's xml.etree, zlib and struct: tests/vtu_read.py) for the
# files output_vtk leaves in the test directory: well-formedness, counts, VTK's Lagrange
# point order, the format, each binary file's values equal to its ASCII twin's.
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
    foreach(m lagrange subdivide)
      set(ncells 2)
      if(m STREQUAL subdivide)
        set(ncells ${nsub})
      endif()
      list(APPEND specs out_vtk_${m}_p${p}.vtu:${npts}:${ncells} +f +g =ascii
                        out_vtk_${m}_p${p}_bin.vtu:${npts}:${ncells} +f +g =binary
                        out_vtk_${m}_p${p}.vtu~out_vtk_${m}_p${p}_bin.vtu)
    endforeach()
  endforeach()
  list(APPEND specs out_vtk_names.vtu:6:2 +f "+a<b & \"c\" 'd'>"
                    out_vtk_nofields.vtu:30:2 out_vtk_empty.vtu:0:0
                    out_vtk_cells_p3.vtu:20:2 +f +g +eta out_vtk_cells_sub3.vtu:20:18 +f +g +eta
                    out_vtk_cells_p0.vtu:6:2 +f +g +eta out_vtk_cells_only.vtu:12:2 +eta
                    out_series.pvd:2 out_pvd/run/series.pvd:3
                    out_vtk_comp.vtu:12:2 +s +v:3 +T:9 =ascii out_vtk_comp_bin.vtu:12:2 +s +v:3 +T:9 =binary
                    out_vtk_comp.vtu~out_vtk_comp_bin.vtu)
  add_test(NAME output_vtk_xml
    COMMAND ${Python3_EXECUTABLE} ${HDG_TEST_DIR}/check_vtu.py ${specs}
    WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  set_tests_properties(output_vtk_xml PROPERTIES FIXTURES_REQUIRED output_vtk_files)
endif()

# Binary .vtu (the default) against --vtk-format ascii, poisson on square:32 (2048 elements)
# at k = 6: the ASCII file at least 4 times the binary one's size, both read back by meshio
# (and by tests/vtu_read.py) value for value (tests/check_vtu_binary.py). /usr/bin/python3
# is Debian's, where scripts/install-deps.sh puts python3-meshio.
add_test(NAME vtk_binary_size
  COMMAND sh -c [=[set -e; d=vtk_binary_$$; rm -rf $d; mkdir $d; a="--mesh square:32 --order 6 --quiet"; "$0" run "$1" $a --vtk $d/b.vtu; "$0" run "$1" $a --vtk $d/a.vtu --vtk-format ascii; PY=/usr/bin/python3; [ -x $PY ] || PY=python3; $PY "$2" $d/b.vtu $d/a.vtu 4; rm -rf $d]=]
    $<TARGET_FILE:hdgc> ${HDG_EXAMPLES}/poisson.hdg ${HDG_TEST_DIR}/check_vtu_binary.py
  WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(vtk_binary_size PROPERTIES TIMEOUT 300)
# explicit DG (acoustics2d: p and the vector u), the same check at a small size
add_test(NAME vtk_binary_dg
  COMMAND sh -c [=[set -e; d=vtk_binary_dg_$$; rm -rf $d; mkdir $d; a="--mesh square:4 --order 3 --final-time 0.1 --quiet"; "$0" run "$1" $a --vtk $d/b.vtu; "$0" run "$1" $a --vtk $d/a.vtu --vtk-format ascii; PY=/usr/bin/python3; [ -x $PY ] || PY=python3; $PY "$2" $d/b.vtu $d/a.vtu 2; rm -rf $d]=]
    $<TARGET_FILE:hdgc> ${HDG_EXAMPLES}/acoustics2d.hdg ${HDG_TEST_DIR}/check_vtu_binary.py
  WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(vtk_binary_dg PROPERTIES TIMEOUT 300)
# a tensor and a vector unknown (elasticity: L of 2x2, u of 2 components) as arrays of 9 and
# 3 components, their z parts zero (tests/check_vtu.py)
if(Python3_Interpreter_FOUND)
  add_test(NAME vtk_tensor
    COMMAND sh -c [=[set -e; "$0" run "$1" --mesh square:2 --order 2 --vtk vtk_tensor.vtu --quiet; "$2" "$3" vtk_tensor.vtu:48:8 +L:9 +u:3 =binary]=]
      $<TARGET_FILE:hdgc> ${HDG_EXAMPLES}/elasticity.hdg ${Python3_EXECUTABLE} ${HDG_TEST_DIR}/check_vtu.py
    WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
endif()

# Tetrahedra (issue 39): test_vtk_tet writes a cube of 6 tetrahedra (p = 0..6, Lagrange and
# subdivided, ASCII and binary) and checks VTK's Lagrange-tetrahedron order against tables
# made by hand; tests/check_vtu_tet.py reads the files independently (cell types, offsets,
# orientation, VTK's node positions, the fields decompressed, binary = ASCII).
hdg_unit_test(output_vtk_tet test_vtk_tet.c)
set_tests_properties(output_vtk_tet PROPERTIES FIXTURES_SETUP output_vtk_tet_files)
if(Python3_Interpreter_FOUND)
  add_test(NAME output_vtk_tet_xml
    COMMAND ${Python3_EXECUTABLE} ${HDG_TEST_DIR}/check_vtu_tet.py 6
    WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  set_tests_properties(output_vtk_tet_xml PROPERTIES FIXTURES_REQUIRED output_vtk_tet_files)
endif()
