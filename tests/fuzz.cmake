# Fuzz harnesses (fuzz/) replayed without libFuzzer: each harness runs once on
# every file of its seed corpus (which holds the inputs of past crashes), linked
# with the ordinary libhdgc (fuzz/replay.c). make fuzz / fuzz-ci do the fuzzing.
set(HDG_FUZZ_DIR ${CMAKE_SOURCE_DIR}/fuzz)
function(hdg_fuzz_replay target)
  add_executable(fuzz_replay_${target} ${HDG_FUZZ_DIR}/${target}.c ${HDG_FUZZ_DIR}/replay.c)
  target_link_libraries(fuzz_replay_${target} PRIVATE hdgc_lib)
  add_test(NAME fuzz_replay_${target} COMMAND fuzz_replay_${target} ${ARGN})
  set_tests_properties(fuzz_replay_${target} PROPERTIES TIMEOUT ${HDG_HANG_TIMEOUT})
endfunction()
hdg_fuzz_replay(parser ${HDG_EXAMPLES} ${HDG_TEST_DIR}/data/frontend ${HDG_TEST_DIR}/data/frontend/bad
  ${HDG_TEST_DIR}/data/frontend/fuzz)
hdg_fuzz_replay(gmsh ${HDG_FUZZ_DIR}/corpus/gmsh ${HDG_TEST_DIR}/data)
hdg_fuzz_replay(cache ${HDG_FUZZ_DIR}/corpus/cache)
hdg_fuzz_replay(spec ${HDG_FUZZ_DIR}/corpus/spec)
# api: the seed programs solve small problems (kernels compiled once into the cache of api.c)
hdg_fuzz_replay(api ${HDG_FUZZ_DIR}/corpus/api)
target_compile_definitions(fuzz_replay_api PRIVATE HDG_FUZZ_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
set_tests_properties(fuzz_replay_api PROPERTIES TIMEOUT ${HDG_COMPILE_TIMEOUT})
