# The public C API (include/hdgc.h, api/): tests/test_api.c is a client of hdgc.h only.
hdg_unit_test(api test_api.c)

# The hdgc commands are clients of the API too (docs/architecture.md): cli/main.c and
# cli/cmd_*.c include hdgc.h, cli/commands.h and the support/ helpers util.h and progress.h,
# nothing of frontend/, ir/, backends/, compiler/, runtime/ (the bench commands may).
add_test(NAME api_cli_includes
         COMMAND sh -c "grep -n '#include \"' cli/main.c cli/cmd_*.c cli/commands.h | grep -v -e '\"hdgc[.]h\"' -e '\"cli/commands[.]h\"' -e '\"support/util[.]h\"' -e '\"support/progress[.]h\"' && exit 1; exit 0"
         WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
hdg_unit_test(api3d test_api3d.c)
