/* cache.c — libFuzzer entry point over the kernel cache reader (support/cache.c).
 * The input is the bytes of an entry file. hdg_cache_check must accept it only
 * when it is whole and intact; hdg_cache_get, reading it from a file, must agree
 * with hdg_cache_check (a hit returns exactly the payload, a miss deletes the
 * file), and put + get must give back the payload. A disagreement aborts.
 * Built only with -DHDG_FUZZ=ON and clang (fuzz/CMakeLists.txt). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support/cache.h"

static char dir[64];

static void require(int ok, const char *what)
{
    if (ok) return;
    fprintf(stderr, "fuzz_cache: %s\n", what);
    abort();
}

static void cleanup(void) { rmdir(dir); }

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    snprintf(dir, sizeof dir, "/tmp/hdg-fuzz-cache-XXXXXX");
    require(mkdtemp(dir) != NULL, "cannot create a temporary directory");
    atexit(cleanup);
    return 0;
}

/* The key the header claims (bytes 16..23, little-endian), or a fixed one. */
static unsigned long long key_of(const uint8_t *data, size_t size)
{
    unsigned long long k = 0x0123456789abcdefULL;
    if (size >= 24)
        for (int i = 0; i < 8; i++) k = k << 8 | data[23 - i];
    return k;
}

static void check_get(const uint8_t *data, size_t size, unsigned long long key, int valid, size_t payload)
{
    char path[256];
    require(hdg_cache_path(dir, "o", key, path, sizeof path) == 0, "hdg_cache_path");
    FILE *f = fopen(path, "wb");
    require(f && fwrite(data, 1, size, f) == size && fclose(f) == 0, "cannot write the entry");
    void *got;
    size_t n;
    int hit = hdg_cache_get(dir, "o", key, &got, &n);
    require(hit == valid, "hdg_cache_get and hdg_cache_check disagree");
    if (hit) require(n == payload && !memcmp(got, data + HDG_CACHE_HEADER, n), "a hit returns the payload");
    else require(got == NULL && n == 0 && access(path, F_OK) != 0, "a miss deletes the entry");
    free(got);
    unlink(path);
}

static void check_round_trip(const uint8_t *data, size_t size, unsigned long long key)
{
    char warning[256];
    void *got;
    size_t n;
    require(hdg_cache_put(dir, "ptx", key, data, size, warning, sizeof warning) == 0, warning);
    require(hdg_cache_get(dir, "ptx", key, &got, &n) == 1 && n == size && (!n || !memcmp(got, data, n)),
            "put + get gives the payload back");
    free(got);
    char path[256];
    hdg_cache_path(dir, "ptx", key, path, sizeof path);
    unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    unsigned long long key = key_of(data, size);
    size_t payload = 12345;
    int valid = hdg_cache_check(data, size, key, &payload);
    require(valid == 0 || valid == 1, "hdg_cache_check returns 0 or 1");
    require(valid ? size >= HDG_CACHE_HEADER && payload == size - HDG_CACHE_HEADER : payload == 0,
            "the payload length is the rest of the entry");
    size_t other;
    require(!hdg_cache_check(data, size, key ^ 1, &other), "an entry is valid for its own key only");
    if (size >= HDG_CACHE_HEADER) check_get(data, size, key, valid, payload);
    else check_get(data, size, key, 0, 0);
    if (size < 4096) check_round_trip(data, size, key);
    return 0;
}
