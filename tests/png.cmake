# hdgc run --png (runtime/output/png.c, drivers/run_png.c): tests/test_png.c decodes the pictures with libpng
find_package(PNG REQUIRED)
hdg_unit_test(png test_png.c)
target_link_libraries(test_png PRIVATE PNG::PNG)
hdg_cli_test(png_cli 0 -e "\"png_max\":[[:space:]]*(1\\.0|0\\.99)" -e "\"png_subdivision\":[[:space:]]*[1-8]," -- $<TARGET_FILE:hdgc> run ${HDG_EXAMPLES}/poisson.hdg --png /dev/null --size 300x200 --field ustar --json /dev/stdout)
# tetrahedra (issue 39): plane sections and the boundary surface seen from an angle
# (runtime/output/png3d.c) on a cube of 384 tetrahedra, the pictures decoded with libpng
hdg_unit_test(png3d test_png3d.c)
target_link_libraries(test_png3d PRIVATE PNG::PNG)
