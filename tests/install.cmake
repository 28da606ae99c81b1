# make install: the installed tree builds a client with pkg-config and with find_package(hdgc),
# and its hdgc binary runs with the PETSc module (tests/install/run.sh).
# (not in sanitizer builds: a client built without ASan cannot load an ASan libhdgc.so)
if(NOT HDG_SANITIZE)
  hdg_cli_test(install_tree 0 -e "pkg-config.*" -e "poisson: L2 error u [0-9.]+e-0[0-9], 4 fields" -e "L2 error ustar"
    -e "install test: ok" -- sh ${HDG_TEST_DIR}/install/run.sh ${CMAKE_BINARY_DIR} ${HDG_EXAMPLES})
  set_tests_properties(install_tree PROPERTIES TIMEOUT ${HDG_COMPILE_TIMEOUT})
endif()

# pip install . (pyproject.toml, scikit-build-core) into a fresh venv, then import hdgc from a
# folder outside the checkout with no variable set (tests/pip_install.sh). It builds libhdgc
# once more in build/pip-build (minutes; incremental afterwards); skipped, with the reason,
# when PyPI or python3's venv is unavailable. `ctest -L pip` runs it alone.
if(NOT HDG_SANITIZE AND NOT HDG_FUZZ)
  add_test(NAME pip_install COMMAND sh ${HDG_TEST_DIR}/pip_install.sh ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR})
  set_tests_properties(pip_install PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 3600 LABELS "pip;slow")
endif()
