# The documents' commands as a reader types them, so that they cannot rot:
#   readme_usage   every line of README.md's Usage block (tests/doc_commands.py lines; GPU lines
#                  skipped without a GPU, mpirun lines without mpirun, each with the reason)
#   readme_c       README.md's C program saved as hello.c, `make install` (default prefix under
#                  $HOME) and the pkg-config line as shown (tests/readme_c.sh)
#   tutorial       every block of docs/tutorial.md in order (tests/doc_commands.py blocks)
# With Debian's /usr/bin/python3 (numpy, matplotlib: scripts/install-deps.sh). Not in the
# sanitizer or fuzzing builds (a client cannot load an ASan libhdgc.so). `ctest -L docs`.
if(NOT HDG_SANITIZE AND NOT HDG_FUZZ)
  add_test(NAME readme_usage COMMAND /usr/bin/python3 ${HDG_TEST_DIR}/doc_commands.py lines
    ${CMAKE_SOURCE_DIR}/README.md "## Usage" ${CMAKE_BINARY_DIR} ${CMAKE_SOURCE_DIR})
  set_tests_properties(readme_usage PROPERTIES TIMEOUT 2400 LABELS "docs;slow")
  add_test(NAME readme_c COMMAND sh ${HDG_TEST_DIR}/readme_c.sh ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR})
  set_tests_properties(readme_c PROPERTIES TIMEOUT 600 LABELS docs)
  add_test(NAME tutorial COMMAND /usr/bin/python3 ${HDG_TEST_DIR}/doc_commands.py blocks
    ${CMAKE_SOURCE_DIR}/docs/tutorial.md ${CMAKE_BINARY_DIR} ${CMAKE_SOURCE_DIR})
  set_tests_properties(tutorial PROPERTIES TIMEOUT 1200 LABELS docs)
endif()

# help texts without the project's internal jargon, documents that point nowhere outside the
# repository (tests/help_jargon.sh)
add_test(NAME help_jargon COMMAND sh ${HDG_TEST_DIR}/help_jargon.sh $<TARGET_FILE:hdgc> ${CMAKE_SOURCE_DIR})
set_tests_properties(help_jargon PROPERTIES LABELS docs)
