# tests/hostile.cmake — the table-driven hostile-input suite (tests/hostile/README.md):
# every row of tests/hostile/*.tsv is one test hostile_<table>_<name>.
file(GLOB HDG_HOSTILE_TABLES CONFIGURE_DEPENDS ${HDG_TEST_DIR}/hostile/*.tsv)
# 60 s catches a hang; under the sanitizers (about 10x slower) the rows that compile large
# kernels take 30-45 s alone and went over 60 s beside other jobs: 180 s there.
set(HDG_HOSTILE_TIMEOUT 60)
if(HDG_SANITIZE)
  set(HDG_HOSTILE_TIMEOUT 180)
endif()
foreach(table ${HDG_HOSTILE_TABLES})
  get_filename_component(tname ${table} NAME_WE)
  file(STRINGS ${table} rows)
  foreach(row ${rows})
    if(row MATCHES "^[ \t]*(#|$)")
      continue()
    endif()
    # NAME \t RC \t REGEX \t COMMAND (the command may hold tabs no more)
    if(NOT row MATCHES "^([^\t]+)\t+([^\t]+)\t+([^\t]+)\t+(.+)$")
      message(FATAL_ERROR "${table}: malformed row (NAME<TAB>RC<TAB>REGEX<TAB>COMMAND): ${row}")
    endif()
    set(name ${CMAKE_MATCH_1})
    set(rc ${CMAKE_MATCH_2})
    set(re ${CMAKE_MATCH_3})
    set(cmd ${CMAKE_MATCH_4})
    # ulimit -v cannot work under ASan (its shadow memory is terabytes of address space)
    if(HDG_SANITIZE AND cmd MATCHES "ulimit -v")
      continue()
    endif()
    add_test(NAME hostile_${tname}_${name}
      COMMAND sh ${HDG_TEST_DIR}/hostile/run_case.sh ${rc} ${re} ${cmd})
    set_tests_properties(hostile_${tname}_${name} PROPERTIES TIMEOUT ${HDG_HOSTILE_TIMEOUT} LABELS hostile
      ENVIRONMENT "HDGC=$<TARGET_FILE:hdgc>;EX=${HDG_EXAMPLES};DATA=${HDG_TEST_DIR}/data;H=${HDG_TEST_DIR}/hostile")
  endforeach()
endforeach()
