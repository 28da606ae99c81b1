# make install: the installed tree builds a client with pkg-config and with find_package(hdgc),
# and its hdgc binary runs with the PETSc module (tests/install/run.sh).
# (not in sanitizer builds: a client built without ASan cannot load an ASan libhdgc.so)
if(NOT HDG_SANITIZE)
  hdg_cli_test(install_tree 0 -e "pkg-config.*" -e "poisson: L2 error u [0-9.]+e-0[0-9], 4 fields" -e "L2 error ustar"
    -e "install test: ok" -- sh ${HDG_TEST_DIR}/install/run.sh ${CMAKE_BINARY_DIR} ${HDG_EXAMPLES})
  set_tests_properties(install_tree PROPERTIES TIMEOUT ${HDG_COMPILE_TIMEOUT})
endif()
