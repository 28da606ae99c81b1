/* replay.c — main() for a fuzz harness without libFuzzer: runs
 * LLVMFuzzerTestOneInput once on every file named, or on every regular file in
 * a folder named (not recursively). tests/fuzz.cmake builds each harness with it
 * against the ordinary libhdgc, so `make test` replays the seed corpora and the
 * saved crash inputs on every build (and `make test-asan` under ASan + UBSan)
 * without clang's libFuzzer; a crash or a broken invariant fails the test. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: cannot open %s\n", path);
        return -1;
    }
    size_t cap = 1 << 16, n = 0, got;
    uint8_t *buf = malloc(cap);
    while ((got = fread(buf + n, 1, cap - n, f)) > 0)
        if ((n += got) == cap) buf = realloc(buf, cap *= 2);
    fclose(f);
    uint8_t *exact = malloc(n ? n : 1); /* exactly n bytes, so ASan sees an over-read */
    memcpy(exact, buf, n);
    free(buf);
    LLVMFuzzerTestOneInput(exact, n);
    free(exact);
    return 1;
}

static int replay(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "replay: no such file or folder: %s\n", path);
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) return replay_file(path);
    DIR *d = opendir(path);
    struct dirent *e;
    int count = 0;
    char sub[4096];
    while (d && (e = readdir(d)) != NULL) {
        snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
        if (e->d_name[0] == '.' || stat(sub, &st) != 0 || !S_ISREG(st.st_mode)) continue;
        if (replay_file(sub) < 0) count = -1000000;
        count++;
    }
    if (d) closedir(d);
    return count;
}

int main(int argc, char **argv)
{
    if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
    int total = 0;
    for (int i = 1; i < argc; i++) {
        int n = replay(argv[i]);
        if (n < 0) return 1;
        total += n;
    }
    printf("replayed %d inputs\n", total);
    return total > 0 ? 0 : 1;
}
