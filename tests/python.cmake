# The Python package (python/, docs/python.md): its pytest suite over the libhdgc.so and the
# hdgc binary of this build (python/tests/ctest.sh). Skipped, with the reason, when
# /usr/bin/python3 or its numpy or pytest is missing. The kernel cache is one of the build's.
# Not under the sanitizers (nor the fuzzing build): an ASan libhdgc.so cannot be loaded into a Python that was not
# started with the ASan runtime.
if(NOT HDG_SANITIZE AND NOT HDG_FUZZ)
  math(EXPR HDG_PYTHON_TIMEOUT "2 * ${HDG_COMPILE_TIMEOUT}")   # a whole suite that compiles kernels
  add_test(NAME python
    COMMAND ${CMAKE_COMMAND} -E env
      HDGC_LIBRARY=$<TARGET_FILE:hdgc_shared> HDGC_BIN=$<TARGET_FILE:hdgc>
      HDGC_CACHE_DIR=${CMAKE_BINARY_DIR}/python-kcache
      sh ${CMAKE_SOURCE_DIR}/python/tests/ctest.sh
    WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
  set_tests_properties(python PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT ${HDG_PYTHON_TIMEOUT} LABELS python)
endif()
