# fuzz/api_lib.cmake — included from the top-level CMakeLists.txt (so that the source file
# properties set there, jit.cpp's LLVM flags and the lexer's warnings, apply) when HDG_FUZZ is
# on: hdg_fuzz_api_lib, a copy of every source of libhdgc built with the fuzzing
# instrumentation + ASan + UBSan, for the API harness (fuzz/api.c drives include/hdgc.h).
get_target_property(HDG_FUZZ_API_SRC hdgc_lib SOURCES)
get_target_property(HDG_FUZZ_API_DEFS hdgc_lib COMPILE_DEFINITIONS)
get_target_property(HDG_FUZZ_API_INCS hdgc_lib INCLUDE_DIRECTORIES)
get_target_property(HDG_FUZZ_API_LINK hdgc_lib LINK_LIBRARIES)
add_library(hdg_fuzz_api_lib STATIC ${HDG_FUZZ_API_SRC})
target_compile_definitions(hdg_fuzz_api_lib PRIVATE ${HDG_FUZZ_API_DEFS})
target_include_directories(hdg_fuzz_api_lib PUBLIC ${HDG_FUZZ_API_INCS})
target_link_libraries(hdg_fuzz_api_lib PUBLIC ${HDG_FUZZ_API_LINK})
target_compile_options(hdg_fuzz_api_lib PRIVATE -fsanitize=fuzzer-no-link,address,undefined
  -fno-sanitize-recover=all -fno-omit-frame-pointer -g)
add_dependencies(hdg_fuzz_api_lib hdg_frontend_gen hdgc_petsc)
