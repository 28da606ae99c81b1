/* test_util.c — unit tests of support/util.c's guards against hostile files
 * and numbers: reading only regular files of sane size (a FIFO never blocks),
 * decimal-only number parsing, the memory check's figures, and atomic output
 * (a failed write keeps the previous file), huge-page advice on large blocks. */
#define _XOPEN_SOURCE 700
#include "support/util.h"
#include "test.h"
#include "test_fs.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

static void test_numbers(void)
{
    static const char *good[] = {"1", "-2.5", "+3", "1e-3", ".5", "5.", "1E+2", "0", "1e-400"};
    static const char *bad[] = {"0x3", "0x1p-20", "inf", "-inf", "nan", "NAN", "1e999", " 1", "1 ",
                                "", "1e", "+", ".", "1,5", "infinity", "1e+"};
    double v;
    for (size_t i = 0; i < sizeof good / sizeof *good; i++)
        CHECK(hdg_parse_double(good[i], &v), "'%s' is a decimal number", good[i]);
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        CHECK(!hdg_parse_double(bad[i], &v), "'%s' is refused", bad[i]);
    CHECK(hdg_parse_double("-2.5e1", &v) && v == -25, "value %g", v);
    long k;
    CHECK(hdg_parse_long("20", 1, 20, &k) && k == 20, "20 in [1, 20]");
    CHECK(!hdg_parse_long("21", 1, 20, &k) && !hdg_parse_long("0x3", 0, 9, &k) && !hdg_parse_long("3.0", 0, 9, &k) &&
          !hdg_parse_long(" 3", 0, 9, &k) && !hdg_parse_long("99999999999999999999", 0, 9, &k),
          "out of range, hex, fraction, space, overflow refused");
    CHECK(hdg_decimal_span("1.5,x") == 3 && hdg_decimal_span("0x1") == 1 && hdg_decimal_span("e5") == 0,
          "spans");
}

static void test_read(const char *root)
{
    char path[4096];
    char *data;
    size_t n;
    hdg_error err;
    snprintf(path, sizeof path, "%s/fifo", root);
    CHECK(mkfifo(path, 0644) == 0, "mkfifo");
    double t0 = hdg_wtime();
    CHECK(hdg_read_file(path, &data, &n, &err) == HDG_EIO && strstr(err.msg, "is a FIFO, not a regular file") &&
              strstr(err.msg, path), "FIFO: %s", err.msg);
    CHECK(hdg_wtime() - t0 < 1, "the FIFO did not block");
    snprintf(path, sizeof path, "%s/sparse", root);
    FILE *f = fopen(path, "w");
    if (f) fclose(f);
    CHECK(truncate(path, 4LL << 30) == 0, "truncate -s 4G");
    CHECK(hdg_read_file(path, &data, &n, &err) == HDG_EIO &&
              strstr(err.msg, "4.0 GiB: larger than the 1.0 GiB limit"), "huge: %s", err.msg);
    CHECK(hdg_read_file(root, &data, &n, &err) == HDG_EIO && strstr(err.msg, "is a directory"), "dir: %s", err.msg);
    CHECK(hdg_read_file("/dev/null", &data, &n, &err) == HDG_EIO && strstr(err.msg, "is a device"), "dev: %s",
          err.msg);
    snprintf(path, sizeof path, "%s/small", root);
    f = fopen(path, "w");
    if (f) fputs("abc", f), fclose(f);
    CHECK(hdg_read_file(path, &data, &n, &err) == HDG_OK && n == 3 && !strcmp(data, "abc"), "a small file reads");
    free(data);
}

static void test_memory(void)
{
    hdg_error err;
    setenv("HDGC_MEMORY_LIMIT", "1073741824", 1);
    CHECK(hdg_memory_check("square:9", 1e6, &err) == HDG_OK, "1 MB fits 1 GiB");
    CHECK(hdg_memory_check("square:9", 2.0 * (1 << 30), &err) == HDG_ENOMEM &&
              strstr(err.msg, "square:9 needs about 2.0 GiB, more than the 1.0 GiB available"),
          "message: %s", err.msg);
    setenv("HDGC_MEMORY_LIMIT", "0x10", 1);
    CHECK(hdg_memory_check("x", 1, &err) == HDG_EINPUT && strstr(err.msg, "HDGC_MEMORY_LIMIT=0x10"), "bad: %s",
          err.msg);
    unsetenv("HDGC_MEMORY_LIMIT");
    double avail;
    CHECK(hdg_memory_available(&avail, &err) == HDG_OK && avail > 0, "MemAvailable read: %g", avail);
    char b[32];
    hdg_format_bytes(512, b, sizeof b);
    CHECK(!strcmp(b, "512 B"), "%s", b);
    hdg_format_bytes(1.5 * 1024 * 1024, b, sizeof b);
    CHECK(!strcmp(b, "1.5 MiB"), "%s", b);
}

static int write_text(const char *path, const char *text, hdg_error *err)
{
    hdg_ofile o;
    if (hdg_ofile_open(&o, path, err)) return 1;
    fputs(text, o.f);
    return hdg_ofile_commit(&o, err) != HDG_OK;
}

static void test_atomic(const char *root)
{
    char path[4096], link[4096], big[20000];
    hdg_error err;
    snprintf(path, sizeof path, "%s/out.txt", root);
    CHECK(write_text(path, "old\n", &err) == 0, "first write: %s", err.msg);
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    /* a write that fails half-way (file size limit, the signal ignored: EFBIG) */
    struct rlimit old, lim;
    getrlimit(RLIMIT_FSIZE, &old);
    lim = old;
    lim.rlim_cur = 4096;
    signal(SIGXFSZ, SIG_IGN);
    setrlimit(RLIMIT_FSIZE, &lim);
    int failed = write_text(path, big, &err);
    setrlimit(RLIMIT_FSIZE, &old);
    CHECK(failed && strstr(err.msg, "write error") && strstr(err.msg, "unchanged"), "failed write: %s", err.msg);
    char *data;
    size_t n;
    CHECK(hdg_read_file(path, &data, &n, &err) == HDG_OK && !strcmp(data, "old\n"), "the old file is intact");
    free(data);
    DIR *d = opendir(root);
    struct dirent *e;
    int temps = 0;
    while (d && (e = readdir(d)) != NULL) temps += strstr(e->d_name, ".tmp-") != NULL;
    if (d) closedir(d);
    CHECK(temps == 0, "no temporary left behind (%d)", temps);
    /* through a symbolic link: the target is replaced, the link stays */
    snprintf(link, sizeof link, "%s/link.txt", root);
    CHECK(symlink("out.txt", link) == 0, "symlink");
    CHECK(write_text(link, "new\n", &err) == 0, "write through link: %s", err.msg);
    struct stat st;
    CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode), "the link is still a link");
    CHECK(hdg_read_file(path, &data, &n, &err) == HDG_OK && !strcmp(data, "new\n"), "the target has the text");
    free(data);
    CHECK(write_text(root, "x", &err) != 0 && strstr(err.msg, "Is a directory"), "dir: %s", err.msg);
    CHECK(write_text("/dev/full", "x", &err) != 0 && strstr(err.msg, "No space left"), "/dev/full: %s", err.msg);
    CHECK(write_text("/dev/null", "x", &err) == 0, "/dev/null is written in place");
}

/* The VmFlags of the mapping that holds address p ("" when not found). */
static void vm_flags(const void *p, char *flags, size_t n)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    char line[512];
    int inside = 0;
    flags[0] = '\0';
    while (f && fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' '))
            inside = (unsigned long)p >= lo && (unsigned long)p < hi;
        else if (inside && !strncmp(line, "VmFlags:", 8)) {
            snprintf(flags, n, "%s", line + 8);
            break;
        }
    }
    if (f) fclose(f);
}

/* Blocks of 4 MiB or more ask for transparent huge pages (madvise: the "hg"
 * flag on the 2 MiB-aligned middle of the block), unless HDGC_NO_HUGEPAGES. */
static void test_hugepages(void)
{
    char flags[512];
    size_t n = (size_t)8 << 20;
    setenv("HDGC_NO_HUGEPAGES", "1", 1);
    char *a = hdg_xmalloc(n);
    vm_flags(a + n / 2, flags, sizeof flags);
    CHECK(flags[0] && !strstr(flags, " hg"), "HDGC_NO_HUGEPAGES: no huge-page advice (VmFlags:%s)", flags);
    unsetenv("HDGC_NO_HUGEPAGES");
    if (access("/sys/kernel/mm/transparent_hugepage/enabled", F_OK) != 0) {
        printf("note: this kernel has no transparent huge pages; the advice is not checked\n");
        free(a);
        return;
    }
    char *b = hdg_xcalloc(2 * n, 1), *c = hdg_xmalloc((size_t)1 << 20);
    vm_flags(b + n, flags, sizeof flags);
    CHECK(strstr(flags, " hg") != NULL, "16 MiB calloc: huge pages asked for (VmFlags:%s)", flags);
    CHECK(b[n] == 0 && b[2 * n - 1] == 0, "the calloc'd block is still zero");
    vm_flags(c, flags, sizeof flags);
    CHECK(!strstr(flags, " hg"), "1 MiB block: no advice (VmFlags:%s)", flags);
    free(a), free(b), free(c);
}

int main(void)
{
    char root[] = "/tmp/hdgc-test-util-XXXXXX";
    if (!mkdtemp(root)) return 1;
    test_numbers();
    test_read(root);
    test_memory();
    test_atomic(root);
    test_hugepages();
    rm_tree(root);
    return test_summary("util");
}
