# hdgc convergence --plot (runtime/output/plot.c, cli/cmd_convergence.c): tests/test_plot.c
# parses the SVG, decodes the PNG with libpng, and runs hdgc under script(1) for the progress line
find_package(PNG REQUIRED)
hdg_unit_test(plot test_plot.c)
target_link_libraries(test_plot PRIVATE PNG::PNG)
set_tests_properties(plot PROPERTIES TIMEOUT ${HDG_COMPILE_TIMEOUT} ENVIRONMENT "HDGC=$<TARGET_FILE:hdgc>")
