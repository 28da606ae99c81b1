/* test_jit_far.c — JIT-loaded code reaches its own tables wherever the
 * address space has room. Generated code is compiled for the small code
 * model: a kernel reads its tables PC-relative, with 32-bit offsets, so all
 * sections of one module must lie within 2 GB of each other. A linker that
 * places code and read-only data in separate mappings (LLVM 14's RuntimeDyld
 * with its SectionMemoryManager) can put them tens of GB apart when the
 * address space is fragmented — as a CUDA context on a large GPU leaves it —
 * and then truncates the offsets without a word: the kernel reads other
 * memory (a wrong answer) or faults at a page boundary (seen on an H200).
 *
 * Here the address space is fragmented on purpose: every gap between the
 * mappings of the mmap area is filled (PROT_NONE), then a 64 GB PROT_NONE
 * reservation below them gets a small hole at its top (room for the code)
 * and a large one 32 GB lower (room for the 800 KB table). The module is compiled first,
 * so the load after the fragmentation comes from the cache; its function
 * must return every table entry, and the code and the table must lie within
 * 2 GB of each other; hdg_jit_free gives the memory back. */
#define _GNU_SOURCE
#include "backends/c/jit.h"
#include "support/util.h"
#include "test.h"
#include "test_fs.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

enum { N = 100000 };

static double entry(int i) { return 0.5 * i + 1.0 / (1 + i % 7); }

static char *table_source(void)
{
    hdg_str s;
    hdg_str_init(&s);
    hdg_str_printf(&s, "static const double T[%d] = {", N);
    for (int i = 0; i < N; i++) hdg_str_printf(&s, "%s%.17g", i ? "," : "", entry(i));
    hdg_str_puts(&s, "};\n"
                     "double at(int i) { return T[i]; }\n"
                     "const double *base(void) { return T; }\n");
    return hdg_str_take(&s);
}

/* Fills every gap under 1 TB between the mappings above 16 TB (in the mmap
 * area and around the stack) with PROT_NONE, so that new mappings go below
 * the mmap area. */
static struct { void *p; size_t n; } filler[4096];
static int nfiller;

static void fill_gaps(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f) return;
    unsigned long long prev = 0, a, b;
    char line[512];
    const unsigned long long low = 1ULL << 44;
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "%llx-%llx", &a, &b) != 2) continue;
        if (prev >= low && a > prev && a - prev < (1ULL << 40) && nfiller < 4096) {
            void *q = mmap((void *)(uintptr_t)prev, a - prev, PROT_NONE,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
            if (q != MAP_FAILED) filler[nfiller].p = q, filler[nfiller++].n = a - prev;
        }
        prev = b;
    }
    fclose(f);
}

typedef double at_fn(int);
typedef const double *base_fn(void);

static void check(hdg_jit *jit, const char *what)
{
    at_fn *at = jit ? (at_fn *)hdg_jit_lookup(jit, "at") : NULL;
    base_fn *base = jit ? (base_fn *)hdg_jit_lookup(jit, "base") : NULL;
    CHECK(at && base, "%s: symbols found", what);
    if (!at || !base) return;
    long long d = (long long)((const char *)base() - (const char *)(void *)at);
    printf("%s: code at %p, table at %p (%+.3f GB apart)\n", what, (void *)at, (const void *)base(), d / 1e9);
    CHECK(d > -(1LL << 31) && d < (1LL << 31), "%s: code and table %.3f GB apart (a 32-bit offset reaches 2 GB)",
          what, d / 1e9);
    int bad = 0;
    for (int i = 0; i < N && !bad; i += 997) bad = at(i) != entry(i);
    CHECK(!bad, "%s: the module's function returns its table's entries", what);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    char dir[] = "/tmp/hdgc-test-jit-far-XXXXXX";
    if (!mkdtemp(dir)) return 1;
    char *src = table_source();
    hdg_jit_options o = HDG_JIT_OPTIONS_DEFAULT;
    o.cache_dir = dir;
    hdg_error err = {0};
    hdg_jit *jit = NULL;
    hdg_jit_stats st;
    hdg_status s = hdg_jit_compile(src, "far", &o, &jit, &st, &err);
    CHECK(s == HDG_OK, "compile: %s", err.msg);
    check(jit, "compiled");
    hdg_jit_free(jit);

    const size_t G = (size_t)1 << 30, R = 64 * G;
    fill_gaps();
    char *r = mmap(NULL, R, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    int skipped = r == MAP_FAILED;   /* e.g. under ulimit -v */
    if (skipped) printf("skipped: no 64 GB of address space to fragment (%s)\n", strerror(errno));
    else {
        munmap(r + R - (64 << 10), 64 << 10);   /* small hole at the top */
        munmap(r + 32 * G, 4 << 20);            /* large hole 32 GB lower */
        printf("reserved %p..%p, holes at %p and %p\n", (void *)r, (void *)(r + R), (void *)(r + R - (64 << 10)),
               (void *)(r + 32 * G));
        jit = NULL;
        s = hdg_jit_compile(src, "far", &o, &jit, &st, &err);
        CHECK(s == HDG_OK && st.cache_hit, "load from the cache: %s (hit %d)", err.msg, st.cache_hit);
        check(jit, "fragmented");
        void *page = jit ? (void *)((uintptr_t)hdg_jit_lookup(jit, "at") & ~(uintptr_t)4095) : NULL;
        hdg_jit_free(jit);
        CHECK(!page || msync(page, 4096, MS_ASYNC) != 0, "hdg_jit_free unmaps the module's memory");
        /* the reservation without its holes: whatever was mapped into them stays */
        munmap(r, 32 * G);
        munmap(r + 32 * G + (4 << 20), R - 32 * G - (4 << 20) - (64 << 10));
    }
    for (int i = 0; i < nfiller; i++) munmap(filler[i].p, filler[i].n);   /* the address space as it was */
    free(src);
    rm_tree(dir);
    int failed = test_summary("jit_far");
    return failed || !skipped ? failed : 77;
}
