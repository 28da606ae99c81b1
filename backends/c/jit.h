/* jit.h — in-process compilation of generated C11 kernels (Clang/LLVM 14 + ORC).
 *
 * hdg_jit_compile turns a C source string into machine code for the host CPU
 * and keeps it loaded until hdg_jit_free. No process is spawned. The object
 * file is cached on disk, keyed by the source, hdg_jit_version(), the host
 * CPU's features and the flags, so a warm compile reads it back and skips Clang entirely.
 *
 * The code is compiled as C11 (or C++17: hdg_jit_compile_cxx) at -O3 for
 * the host CPU with IEEE semantics (no -ffast-math; floating-point
 * contraction into FMA within an expression is allowed, errno is not set by
 * math functions). Unresolved symbols are
 * looked up in the process and in libm. Clang's resource directory is the one
 * found at build time; $HDGC_CLANG_RESOURCE_DIR overrides it. */
#ifndef HDG_JIT_H
#define HDG_JIT_H

#ifdef __cplusplus
extern "C" {
#endif

#include "hdg.h"

typedef struct hdg_jit hdg_jit; /* one compiled module, alive until freed */

typedef struct hdg_jit_options {
    const char *cache_dir; /* NULL: default ($HDGC_CACHE_DIR, else $XDG_CACHE_HOME/hdgc,
                              else ~/.cache/hdgc); "" or HDGC_CACHE=off disables */
    int opt_level;         /* 0..3, default 3 */
    int use_cache;         /* default 1 */
    int threads;           /* a module's kernels are compiled on up to this many threads,
                              0 (default): as many as the machine has; a source of more
                              than 6 MB (tables at high degree) on one */
} hdg_jit_options;

#define HDG_JIT_OPTIONS_DEFAULT {NULL, 3, 1, 0}

typedef struct hdg_jit_stats {
    int cache_hit;          /* 1: object read from the cache, Clang skipped */
    double compile_seconds; /* C -> object (0 on a hit) */
    double load_seconds;    /* cache read + link into the process */
    int objects;            /* objects compiled (kernel groups on their threads; 0 on a hit) */
    char warning[512];      /* non-fatal trouble, e.g. an unwritable cache dir */
} hdg_jit_stats;

/* Compiles source (module_name names it in diagnostics: "<module_name>.c:L:C:")
 * and links it into the process. opt and stats may be NULL (opt NULL means
 * HDG_JIT_OPTIONS_DEFAULT). Errors: HDG_ECOMPILE with Clang's diagnostics
 * (line:col and the offending source line) or with the unresolved symbols;
 * HDG_EINTERNAL if LLVM cannot target the host. */
hdg_status hdg_jit_compile(const char *source, const char *module_name,
                           const hdg_jit_options *opt, hdg_jit **out,
                           hdg_jit_stats *stats, hdg_error *err);

/* The same for C++17 source ("<module_name>.cpp" in diagnostics), compiled
 * without exceptions, RTTI or thread-safe statics, so it needs nothing of
 * the C++ runtime: the CUDA emulator's modules (backends/cuda/emu.h). The
 * cache key tells the languages apart. */
hdg_status hdg_jit_compile_cxx(const char *source, const char *module_name,
                               const hdg_jit_options *opt, hdg_jit **out,
                               hdg_jit_stats *stats, hdg_error *err);

/* Address of a symbol defined by the module, or NULL if absent. */
void *hdg_jit_lookup(hdg_jit *jit, const char *symbol);

/* Unloads the module (its function pointers become invalid). NULL is fine. */
void hdg_jit_free(hdg_jit *jit);

/* "clang 14.0.6 x86_64 znver3": compiler and target, part of the cache key. */
const char *hdg_jit_version(void);

/* 1 when the target the JIT compiles for has the CPU feature (LLVM's name, e.g.
 * "avx512vl"), else 0: the host's features, or with HDGC_JIT_CPU=name (jit.cpp) that
 * CPU's. */
int hdg_jit_host_has(const char *feature);

#ifdef __cplusplus
}
#endif

#endif
