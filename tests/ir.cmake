# IR core and C emitter: kernels built by hand with the IR API.
#   ir       construction, verifier, printer, cost model, kernel info, passes
#   ir_emit  emitted C compiled with cc (and clang if present) -Wall -Wextra -Werror,
#            loaded with dlopen and checked against plain C references
hdg_unit_test(ir test_ir.c)
hdg_unit_test(ir_emit test_ir_emit.c)
