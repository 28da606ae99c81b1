/* nvrtc.h — NVRTC, the CUDA run-time compiler, loaded with dlopen: CUDA C++
 * source -> CUBIN (for a real sm_XX, with the PTX too) or PTX (compute_XX).
 * No GPU is needed to compile, so CI checks every generated kernel.
 *
 * Library lookup: $HDGC_LIBNVRTC if set, else libnvrtc.so, libnvrtc.so.13,
 * .so.12, .so.11.2, then the same names under /usr/local/cuda/lib64. Failure
 * is HDG_EDEVICE "NVRTC not available: libnvrtc.so not found (tried ...)".
 *
 * Compile options: --gpu-architecture, -default-device (no __device__
 * needed on helpers), -std=c++17, and for CUBIN -Xptxas=-v, whose log gives
 * registers, stack frame and spill bytes per kernel: parsed into
 * hdg_nvrtc_stats. A failed compile is HDG_ECOMPILE with the first errors of
 * the log, the offending generated line and the kernel it lies in:
 *   "NVRTC failed to compile poisson.cu for sm_90: kernel 'local_solve', line 212: `x = ;`
 *    poisson.cu(212): error: expected an expression ..." */
#ifndef HDG_NVRTC_H
#define HDG_NVRTC_H

#include <stddef.h>
#include "hdg.h"

/* Per-kernel resource use reported by ptxas. */
typedef struct hdg_nvrtc_stats {
    char name[64];
    int registers;       /* -1 when not reported */
    int stack_bytes;     /* stack frame (local arrays, spills) per thread */
    int spill_stores, spill_loads;   /* bytes */
} hdg_nvrtc_stats;

typedef struct hdg_nvrtc_options {
    int arch;            /* 90 for sm_90 (default when 0) */
    int ptx_only;        /* 1: compute_XX, PTX only (no ptxas, no stats) */
    int line_info;       /* 1: -lineinfo (profilers map SASS to source lines) */
    int max_registers;   /* 0: no limit, else --maxrregcount */
    const char *const *defines;   /* "NAME=VALUE" strings for -D, ndefines of them */
    int ndefines;
} hdg_nvrtc_options;

typedef struct hdg_nvrtc_output {
    void *image;         /* CUBIN (ELF) or NUL-terminated PTX */
    size_t image_size;
    int is_ptx;
    char *ptx;           /* PTX text (also kept with a CUBIN), NUL-terminated */
    size_t ptx_size;
    char *log;           /* the compiler log, NUL-terminated ("" when empty) */
    hdg_nvrtc_stats *stats;
    int nstats;
    char arch_flag[32];  /* e.g. "--gpu-architecture=sm_90" */
} hdg_nvrtc_output;

/* Loads libnvrtc once per process. version: "13.0". */
hdg_status hdg_nvrtc_load(char *version, size_t n, hdg_error *err);

/* The highest architecture NVRTC supports that is <= want (e.g. a newer GPU
 * than the compiler knows gets the newest known one); 0 if none. */
int hdg_nvrtc_best_arch(int want);

/* Compiles src (file_name is used in the log, e.g. "poisson.cu"). out is
 * filled on success; on failure it is left empty and err holds the log. */
hdg_status hdg_nvrtc_compile(const char *src, const char *file_name, const hdg_nvrtc_options *opt,
                             hdg_nvrtc_output *out, hdg_error *err);
void hdg_nvrtc_output_free(hdg_nvrtc_output *out);

/* Parses an -Xptxas=-v log into per-kernel stats (malloc'd; returns the count). */
int hdg_nvrtc_parse_stats(const char *log, hdg_nvrtc_stats **stats);
/* The stats of one kernel, or NULL. */
const hdg_nvrtc_stats *hdg_nvrtc_find_stats(const hdg_nvrtc_output *out, const char *kernel);

/* The options string that determines the output for a given options struct
 * (for cache keys): e.g. "--gpu-architecture=sm_90 -default-device ...". */
void hdg_nvrtc_flags_string(const hdg_nvrtc_options *opt, char *buf, size_t n);

#endif
