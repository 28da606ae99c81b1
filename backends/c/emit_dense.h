/* emit_dense.h — texts of the C emitter's dense helpers for sizes known at
 * compile time (see emit_dense.c); NULL where the generic text is used. */
#ifndef HDG_EMIT_DENSE_H
#define HDG_EMIT_DENSE_H

#define HDG_EMIT_C_NFIXED 3
extern const char *const hdg_emit_c_fixed_text[HDG_EMIT_C_NFIXED];

#endif
