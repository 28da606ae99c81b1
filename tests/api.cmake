# The public C API (include/hdgc.h, api/): tests/test_api.c is a client of hdgc.h only.
hdg_unit_test(api test_api.c)
