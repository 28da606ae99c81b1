/* test_cache.c — unit tests of the on-disk blob cache (support/cache.c):
 * directory resolution, put/get round trip, misses, and damaged entries. */
#include "support/cache.h"
#include "support/util.h"
#include "test.h"
#include "test_fs.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    while (d && (e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
    if (d) closedir(d);
    return n;
}

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static void test_keys(void)
{
    const char *a[] = {"ab", "c"}, *b[] = {"a", "bc"}, *c[] = {"ab", "c"}, *d[] = {"ab", "d"};
    CHECK(hdg_cache_key(a, 2) == hdg_cache_key(c, 2), "key is deterministic");
    CHECK(hdg_cache_key(a, 2) != hdg_cache_key(b, 2), "parts are delimited");
    CHECK(hdg_cache_key(a, 2) != hdg_cache_key(d, 2), "one character changes the key");
    CHECK(hdg_cache_key(a, 1) != hdg_cache_key(a, 2), "part count matters");
}

static void test_dir(const char *root)
{
    char out[4096], want[4096];
    hdg_error err;
    hdg_error_clear(&err);

    snprintf(want, sizeof want, "%s/a/b/c", root);
    CHECK(hdg_cache_dir(want, out, sizeof out, &err) == HDG_OK, "override: %s", err.msg);
    CHECK(!strcmp(out, want), "override dir is %s", out);
    struct stat st;
    CHECK(stat(want, &st) == 0 && S_ISDIR(st.st_mode), "mkdir -p created %s", want);

    CHECK(hdg_cache_dir("", out, sizeof out, &err) == HDG_OK && out[0] == '\0',
          "\"\" disables the cache");

    snprintf(want, sizeof want, "%s/env", root);
    setenv("HDGC_CACHE_DIR", want, 1);
    CHECK(hdg_cache_dir(NULL, out, sizeof out, &err) == HDG_OK && !strcmp(out, want),
          "HDGC_CACHE_DIR gives %s", out);
    setenv("HDGC_CACHE", "off", 1);
    CHECK(hdg_cache_dir(NULL, out, sizeof out, &err) == HDG_OK && out[0] == '\0',
          "HDGC_CACHE=off disables, got '%s'", out);
    CHECK(hdg_cache_dir(want, out, sizeof out, &err) == HDG_OK && out[0] == '\0',
          "HDGC_CACHE=off disables an override too");
    unsetenv("HDGC_CACHE");
    unsetenv("HDGC_CACHE_DIR");

    snprintf(want, sizeof want, "%s/xdg", root);
    setenv("XDG_CACHE_HOME", want, 1);
    CHECK(hdg_cache_dir(NULL, out, sizeof out, &err) == HDG_OK, "xdg: %s", err.msg);
    snprintf(want, sizeof want, "%s/xdg/hdgc", root);
    CHECK(!strcmp(out, want), "XDG_CACHE_HOME gives %s", out);
    unsetenv("XDG_CACHE_HOME");

    snprintf(want, sizeof want, "%s/home", root);
    setenv("HOME", want, 1);
    CHECK(hdg_cache_dir(NULL, out, sizeof out, &err) == HDG_OK, "home: %s", err.msg);
    snprintf(want, sizeof want, "%s/home/.cache/hdgc", root);
    CHECK(!strcmp(out, want), "HOME gives %s", out);

    /* a path under a regular file cannot be created, even as root */
    char file[2048];
    snprintf(file, sizeof file, "%s/plainfile", root);
    FILE *f = fopen(file, "w");
    CHECK(f != NULL, "create %s", file);
    if (f) fclose(f);
    snprintf(want, sizeof want, "%s/sub/dir", file);
    CHECK(hdg_cache_dir(want, out, sizeof out, &err) == HDG_EIO, "dir under a file fails");
    CHECK(strstr(err.msg, "kernel cache disabled") && strstr(err.msg, "plainfile"),
          "message: %s", err.msg);
    CHECK(hdg_cache_dir(file, out, sizeof out, &err) == HDG_EIO, "a file is not a dir");
}

static void test_roundtrip(const char *root)
{
    char dir[4096], path[4200], w[512];
    snprintf(dir, sizeof dir, "%s/rt", root);
    mkdir(dir, 0755);
    unsigned char blob[1000];
    for (int i = 0; i < 1000; i++) blob[i] = (unsigned char)(i * 37 + 11);
    void *data;
    size_t n;

    CHECK(hdg_cache_get(dir, "o", 42, &data, &n) == 0 && data == NULL, "empty cache misses");
    CHECK(hdg_cache_put(dir, "o", 42, blob, sizeof blob, w, sizeof w) == 0, "put: %s", w);
    CHECK(count_entries(dir) == 1, "one file, no temp left: %d", count_entries(dir));
    CHECK(hdg_cache_get(dir, "o", 42, &data, &n) == 1, "hit after put");
    CHECK(n == sizeof blob && data && !memcmp(data, blob, n), "same bytes back (n=%zu)", n);
    free(data);
    CHECK(hdg_cache_get(dir, "o", 43, &data, &n) == 0, "other key misses");
    CHECK(hdg_cache_get(dir, "cubin", 42, &data, &n) == 0, "other kind misses");
    CHECK(hdg_cache_get(dir, "../o", 42, &data, &n) == 0, "bad kind misses");
    CHECK(hdg_cache_put(dir, "a/b", 42, blob, 1, w, sizeof w) == -1, "bad kind refused");

    /* an empty payload is a valid entry */
    CHECK(hdg_cache_put(dir, "ptx", 7, "", 0, w, sizeof w) == 0, "put empty: %s", w);
    CHECK(hdg_cache_get(dir, "ptx", 7, &data, &n) == 1 && n == 0, "empty entry hits");
    free(data);

    /* overwrite with new content */
    blob[0] ^= 0xff;
    CHECK(hdg_cache_put(dir, "o", 42, blob, sizeof blob, w, sizeof w) == 0, "re-put");
    CHECK(hdg_cache_get(dir, "o", 42, &data, &n) == 1 && !memcmp(data, blob, n), "new bytes");
    free(data);

    /* truncated: a miss, and the file is gone */
    hdg_cache_path(dir, "o", 42, path, sizeof path);
    CHECK(file_size(path) == 40 + 1000, "entry size %ld", file_size(path));
    CHECK(truncate(path, 600) == 0, "truncate");
    CHECK(hdg_cache_get(dir, "o", 42, &data, &n) == 0 && data == NULL, "truncated misses");
    CHECK(file_size(path) == -1, "truncated entry deleted");
    CHECK(truncate(path, 0) != 0, "still gone");

    /* truncated inside the header */
    hdg_cache_put(dir, "o", 42, blob, sizeof blob, w, sizeof w);
    CHECK(truncate(path, 20) == 0, "truncate header");
    CHECK(hdg_cache_get(dir, "o", 42, &data, &n) == 0 && file_size(path) == -1,
          "short header misses and is deleted");

    /* one flipped payload byte: checksum mismatch */
    hdg_cache_put(dir, "o", 42, blob, sizeof blob, w, sizeof w);
    FILE *f = fopen(path, "r+b");
    CHECK(f != NULL, "open entry");
    if (f) {
        fseek(f, 40 + 500, SEEK_SET);
        int c = fgetc(f);
        fseek(f, 40 + 500, SEEK_SET);
        fputc(c ^ 0x01, f);
        fclose(f);
    }
    CHECK(hdg_cache_get(dir, "o", 42, &data, &n) == 0 && file_size(path) == -1,
          "flipped payload byte misses and is deleted");

    /* an entry whose header names another key (e.g. a renamed file) */
    char other[4200];
    hdg_cache_put(dir, "o", 99, blob, sizeof blob, w, sizeof w);
    hdg_cache_path(dir, "o", 99, other, sizeof other);
    CHECK(rename(other, path) == 0, "rename");
    CHECK(hdg_cache_get(dir, "o", 42, &data, &n) == 0, "key mismatch misses");

    /* a bigger file than the header says (appended garbage) */
    hdg_cache_put(dir, "o", 42, blob, sizeof blob, w, sizeof w);
    f = fopen(path, "ab");
    if (f) {
        fputs("junk", f);
        fclose(f);
    }
    CHECK(hdg_cache_get(dir, "o", 42, &data, &n) == 0, "trailing bytes miss");

    /* unwritable: the directory does not exist (and cannot: under a file) */
    char bad[4096];
    snprintf(bad, sizeof bad, "%s/plainfile/sub", root);
    w[0] = '\0';
    CHECK(hdg_cache_put(bad, "o", 1, blob, 10, w, sizeof w) == -1, "put to missing dir fails");
    CHECK(strstr(w, "cache: cannot write") && strstr(w, "plainfile"), "warning: %s", w);
    CHECK(hdg_cache_put(bad, "o", 1, blob, 10, NULL, 0) == -1, "no warning buffer is fine");
}

/* Entries that are not regular files, or absurdly large, are misses with a
 * warning, are removed, and never block or get slurped: a FIFO (no writer), a
 * 100 GiB sparse file, a directory, a link to /dev/zero. */
static void test_hostile_entries(const char *root)
{
    char dir[4096], path[4200], w[4600];
    void *data = NULL;
    size_t n = 0;
    unsigned char blob[64] = {1, 2, 3};
    snprintf(dir, sizeof dir, "%s/hostile", root);
    mkdir(dir, 0755);
    hdg_cache_path(dir, "o", 5, path, sizeof path);

    CHECK(mkfifo(path, 0644) == 0, "mkfifo %s", path);
    CHECK(hdg_cache_get_warn(dir, "o", 5, &data, &n, w, sizeof w) == 0 && data == NULL, "a FIFO misses");
    CHECK(strstr(w, "not a regular file") && strstr(w, path), "FIFO warning: %s", w);
    CHECK(file_size(path) == -1, "the FIFO is removed");

    FILE *f = fopen(path, "w");
    if (f) fclose(f);
    CHECK(truncate(path, 100LL << 30) == 0, "truncate -s 100G");
    double t0 = hdg_wtime();
    CHECK(hdg_cache_get_warn(dir, "o", 5, &data, &n, w, sizeof w) == 0, "a 100 GiB entry misses");
    CHECK(hdg_wtime() - t0 < 1, "without reading it (%.2f s)", hdg_wtime() - t0);
    CHECK(strstr(w, "100.0 GiB: larger than the 1.0 GiB limit"), "size warning: %s", w);
    CHECK(file_size(path) == -1, "the huge entry is removed");
    CHECK(hdg_cache_put(dir, "o", 5, blob, sizeof blob, w, sizeof w) == 0, "replaced: %s", w);
    CHECK(hdg_cache_get_warn(dir, "o", 5, &data, &n, w, sizeof w) == 1 && n == sizeof blob && !w[0],
          "hit after replacement, no warning");
    free(data);

    unlink(path);
    CHECK(symlink("/dev/zero", path) == 0, "link to /dev/zero");
    CHECK(hdg_cache_get_warn(dir, "o", 5, &data, &n, w, sizeof w) == 0 && strstr(w, "a device"),
          "a device misses: %s", w);
    CHECK(hdg_cache_get_warn(dir, "o", 6, &data, &n, w, sizeof w) == 0 && !w[0], "a plain miss is silent");
    CHECK(hdg_cache_put(dir, "o", 7, blob, sizeof blob, w, sizeof w) == 0, "put 7");
    hdg_cache_path(dir, "o", 7, path, sizeof path);
    CHECK(truncate(path, 50) == 0, "truncate");
    CHECK(hdg_cache_get_warn(dir, "o", 7, &data, &n, w, sizeof w) == 0 && strstr(w, "damaged entry"),
          "damaged: %s", w);
}

/* hdg_cache_check, the parser of an entry's bytes (fuzzed by fuzz/cache.c). */
static void test_check(const char *root)
{
    char dir[4096], path[4200];
    snprintf(dir, sizeof dir, "%s/check", root);
    mkdir(dir, 0755);
    unsigned long long key = 0x1234abcdULL;
    CHECK(hdg_cache_put(dir, "o", key, "payload", 7, NULL, 0) == 0, "put");
    hdg_cache_path(dir, "o", key, path, sizeof path);
    unsigned char e[64];
    FILE *f = fopen(path, "rb");
    size_t len = f ? fread(e, 1, sizeof e, f) : 0, n = 99;
    if (f) fclose(f);
    CHECK(len == HDG_CACHE_HEADER + 7, "entry is %zu bytes", len);
    CHECK(hdg_cache_check(e, len, key, &n) == 1 && n == 7 && !memcmp(e + HDG_CACHE_HEADER, "payload", 7),
          "valid entry, payload %zu", n);
    CHECK(hdg_cache_check(e, len, key + 1, &n) == 0 && n == 0, "another key");
    for (size_t cut = 0; cut < len; cut++) /* every truncation, down to nothing */
        CHECK(hdg_cache_check(e, cut, key, &n) == 0 && n == 0, "cut to %zu bytes", cut);
    for (size_t i = 0; i < len; i++) { /* every single-bit flip */
        e[i] ^= 0x10;
        CHECK(hdg_cache_check(e, len, key, &n) == 0, "bit flipped in byte %zu", i);
        e[i] ^= 0x10;
    }
    e[24] = 0xd8, memset(e + 25, 0xff, 7); /* payload length -40: len - HEADER wraps */
    CHECK(hdg_cache_check(e, 0, key, &n) == 0 && hdg_cache_check(e, len, key, &n) == 0, "length -40");
}

int main(void)
{
    char root[] = "/tmp/hdgc-test-cache-XXXXXX";
    if (!mkdtemp(root)) {
        perror("mkdtemp");
        return 1;
    }
    test_keys();
    test_dir(root);
    test_roundtrip(root);
    test_check(root);
    test_hostile_entries(root);
    rm_tree(root);
    return test_summary("cache");
}
