# tests/hostile.cmake — the table-driven hostile-input suite (tests/hostile/README.md):
# every row of tests/hostile/*.tsv is one test hostile_<table>_<name>.
file(GLOB HDG_HOSTILE_TABLES CONFIGURE_DEPENDS ${HDG_TEST_DIR}/hostile/*.tsv)
# Each row's limit catches a hang (tests/CMakeLists.txt): HDG_HANG_TIMEOUT, or
# HDG_COMPILE_TIMEOUT for the row after a line "# limit: compile" (kernels of a high degree:
# --order 20 took 10 s of CPU alone and 145 s beside other jobs, over the 60 s it had).
foreach(table ${HDG_HOSTILE_TABLES})
  get_filename_component(tname ${table} NAME_WE)
  # a row edited or added re-runs the configure step (the glob above sees only new files)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${table})
  file(STRINGS ${table} rows)
  set(limit ${HDG_HANG_TIMEOUT})
  foreach(row ${rows})
    if(row MATCHES "^# limit: compile[ \t]*$")
      set(limit ${HDG_COMPILE_TIMEOUT})
      continue()
    endif()
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
    set(row_limit ${limit})   # the directive applies to this row only
    set(limit ${HDG_HANG_TIMEOUT})
    # ulimit -v cannot work under ASan (its shadow memory is terabytes of address space)
    if(HDG_SANITIZE AND cmd MATCHES "ulimit -v")
      continue()
    endif()
    add_test(NAME hostile_${tname}_${name}
      COMMAND sh ${HDG_TEST_DIR}/hostile/run_case.sh ${rc} ${re} ${cmd})
    set_tests_properties(hostile_${tname}_${name} PROPERTIES TIMEOUT ${row_limit} LABELS hostile
      ENVIRONMENT "HDGC=$<TARGET_FILE:hdgc>;EX=${HDG_EXAMPLES};DATA=${HDG_TEST_DIR}/data;H=${HDG_TEST_DIR}/hostile")
  endforeach()
endforeach()
