/* hdg_kernel.h - the fixed ABI between generated kernels and the runtime.
 *
 * Every kernel hdgc generates, for every backend, is one function
 *
 *     void NAME(long long begin, long long end, const hdg_kargs *a);
 *
 * that processes the items (elements or faces) begin <= item < end. All data
 * reaches it through hdg_kargs: per-item blocks of doubles in in[] / out[] /
 * geom (item i owns the `stride` values starting at i * stride), integer maps
 * imap[] (item i owns `stride` ints starting at i * stride), user parameters
 * by index and the time. A kernel may also read an input or map at an explicit
 * row (e.g. the element of a face, taken from an imap): the slot's flags say
 * so. Outputs are only ever written at the kernel's own item, so any split of
 * [0, nitems) across threads is race-free. Buffers in in[]/geom/imap must not
 * overlap buffers in out[] (generated code uses restrict).
 *
 * hdg_kernel_info is the per-kernel metadata the compiler fills (from the IR):
 * which slots the kernel uses, their strides and meaning, and the cost model.
 * It is plain data (fixed-size strings), safe to copy and keep.
 *
 * This file is plain C (and valid C++ / CUDA); the C emitter pastes it verbatim
 * at the top of every generated source so generated files are self-contained. */
#ifndef HDG_KERNEL_H
#define HDG_KERNEL_H

#define HDG_KERNEL_ABI_VERSION 1
#define HDG_KMAX_IN   8
#define HDG_KMAX_OUT  8
#define HDG_KMAX_IMAP 4

typedef struct hdg_kargs {
    long long nitems;                 /* items (elements or faces) in the whole mesh */
    const double *geom;               /* per-item geometric factors, info.ngeom each */
    const double *params;             /* user parameters by index, info.nparams of them */
    double t;                         /* time */
    const double *in[HDG_KMAX_IN];    /* inputs, info.in[s].stride values per row */
    double *out[HDG_KMAX_OUT];        /* outputs, info.out[s].stride values per item */
    const int *imap[HDG_KMAX_IMAP];   /* integer maps, info.imap[s].stride ints per row */
} hdg_kargs;

typedef void (*hdg_kernel_fn)(long long begin, long long end, const hdg_kargs *a);

/* What a kernel iterates over. */
enum { HDG_KITEM_ELEMENT = 0, HDG_KITEM_FACE = 1 };

/* Slot flags. */
enum {
    HDG_KSLOT_ITEM   = 1,  /* accessed at the kernel's own item (row = item) */
    HDG_KSLOT_GATHER = 2,  /* read at rows computed by the kernel (e.g. from an imap) */
    HDG_KSLOT_READS  = 4   /* output that the kernel also reads (+=, in-place ops):
                              the runtime must initialise it before the call */
};

typedef struct hdg_kslot {
    char name[32];       /* the IR tensor's name */
    int stride;          /* values per row */
    int flags;           /* HDG_KSLOT_* */
    char doc[96];        /* what the slot holds, free text from the lowering */
} hdg_kslot;

typedef struct hdg_kernel_info {
    char name[64];               /* the exported symbol */
    int item;                    /* HDG_KITEM_* */
    int nin, nout, nimap;        /* slots 0..n-1 used (holes allowed: stride 0) */
    int ngeom;                   /* geometric factors per item (0: geom unused) */
    int nparams;                 /* 1 + highest parameter index read (0: none) */
    hdg_kslot in[HDG_KMAX_IN], out[HDG_KMAX_OUT], imap[HDG_KMAX_IMAP];
    /* cost model, per item (see docs/ir.md): */
    long long flops;             /* floating-point operations (calls weighted) */
    long long bytes_read;        /* from in[] / geom / imap (tables not counted) */
    long long bytes_written;     /* to out[] */
    long long table_bytes;       /* constant tables referenced (stay in cache) */
} hdg_kernel_info;

#endif
