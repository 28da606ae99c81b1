/* test_frontend_robust.c — hostile inputs generated at run time: binary junk,
 * a 1 MB line, 100k-deep nesting of every bracket and operator, NUL bytes,
 * every prefix of an example, empty file, a directory, a missing file, and
 * expressions that explode when expanded. Each must end with diagnostics (or a
 * problem), never a crash or a hang; every diagnostic has a sane position. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/frontend.h"
#include "support/util.h"
#include "test.h"

/* Parses text; checks the outcome is consistent. Returns the error count. */
static int parse(const char *what, const char *src, size_t len)
{
    hdg_diags d;
    hdg_diags_init(&d);
    /* no wall-clock bound here (timing is no pass/fail criterion, and sanitizer
     * builds under load are 10x slower): a quadratic path shows as the test's
     * ctest TIMEOUT (tests/frontend.cmake) */
    hdg_problem *p = hdg_problem_parse("r.hdg", src, len, NULL, &d);
    char *r = hdg_diags_render(&d);
    CHECK((p != NULL) == (d.nerrors == 0), "%s: problem iff no errors", what);
    int lines = 1;
    for (size_t i = 0; i < len; i++) lines += src[i] == '\n';
    for (int i = 0; i < d.count; i++)
        CHECK(d.items[i].loc.line >= 0 && d.items[i].loc.line <= lines && d.items[i].loc.col >= 0,
              "%s: position %d:%d", what, d.items[i].loc.line, d.items[i].loc.col);
    CHECK(strlen(r) < 64 * 1024, "%s: bounded output (%zu bytes)", what, strlen(r));
    if (p) free(hdg_problem_summary(p));
    int n = d.nerrors;
    free(r);
    hdg_problem_free(p);
    hdg_diags_free(&d);
    return n;
}

static char *repeat(const char *head, const char *unit, int times, const char *tail, size_t *len)
{
    size_t hl = strlen(head), ul = strlen(unit), tl = strlen(tail);
    char *s = malloc(hl + ul * (size_t)times + tl + 1);
    memcpy(s, head, hl);
    for (int i = 0; i < times; i++) memcpy(s + hl + ul * (size_t)i, unit, ul);
    memcpy(s + hl + ul * (size_t)times, tail, tl + 1);
    *len = hl + ul * (size_t)times + tl;
    return s;
}

static void test_nesting(void)
{
    static const struct { const char *unit, *tail; } deep[] = {
        {"(", "1"}, {"[", "1"}, {"-", "1"}, {"+", "1"}, {"<", "1"}, {"sin(", "x"}, {"2^", "2"},
        {"if(", "1"}, {"1+", "1"}, {"1*", "1"}, {"(1, ", "1"}, {"grad(", "u"}, {"dot(n, ", "n"},
    };
    for (size_t i = 0; i < sizeof deep / sizeof deep[0]; i++) {
        size_t len;
        char *s = repeat("problem p\nparam a = ", deep[i].unit, 100000, deep[i].tail, &len);
        char what[64];
        snprintf(what, sizeof what, "100k x '%s'", deep[i].unit);
        CHECK(parse(what, s, len) > 0, "%s: an error", what);
        free(s);
    }
}

static void test_long_line(void)
{
    size_t len;
    char *s = repeat("problem p\nparam a = ", "1+", 500000, "1\n", &len);
    CHECK(parse("1 MB sum", s, len) > 0, "1 MB sum: an error (no unknowns)");
    free(s);
    s = repeat("problem ", "a", 1 << 20, "\n", &len);
    CHECK(parse("1 MB name", s, len) > 0, "1 MB name: name too long");
    free(s);
    s = repeat("problem p # ", "x", 1 << 20, "\n", &len);
    CHECK(parse("1 MB comment", s, len) > 0, "1 MB comment: still no unknowns");
    free(s);
    s = repeat("problem p\nparam a = 1", " ", 1 << 20, "$\n", &len);
    CHECK(parse("1 MB blanks", s, len) == 1, "1 MB blanks then a bad character");
    free(s);
    s = repeat("", "\n", 1 << 20, "problem", &len);
    CHECK(parse("1M lines", s, len) > 0, "1M newlines");
    free(s);
}

static char *example(const char *name, size_t *len);

/* Flat chains are not nesting: poisson plus 'func g(x, y) = x OP x OP ...' of n terms
 * parses, g's body keeps its value, and its tree is balanced (depth ~ log2 n). */
static void chain(const char *base, size_t blen, const char *unit, int n, double want)
{
    size_t tl, len;
    char *tail = repeat("\nfunc g(x, y) = x", unit, n - 1, "\n", &tl);
    char *s = malloc(blen + tl + 1);
    memcpy(s, base, blen);
    memcpy(s + blen, tail, tl + 1);
    len = blen + tl;
    hdg_diags d;
    hdg_diags_init(&d);
    hdg_problem *p = hdg_problem_parse("chain.hdg", s, len, NULL, &d);
    char *r = hdg_diags_render(&d);
    CHECK(p != NULL, "%d x '%s': parses (%s)", n, unit, r);
    for (int i = 0; p && i < p->nfuncs; i++) {
        if (strcmp(p->funcs[i].name, "g")) continue;
        hdg_eval_env env = {.x = 0.75, .y = 0.5, .problem = p};
        CHECK_NEAR(hdg_expr_eval(p->funcs[i].body[0], &env), want, 1e-9 * fabs(want) + 1e-12, unit);
        CHECK(p->funcs[i].body[0]->depth <= 40, "%d x '%s': depth %d", n, unit, p->funcs[i].body[0]->depth);
    }
    free(r);
    hdg_problem_free(p);
    hdg_diags_free(&d);
    free(s);
    free(tail);
}

static void test_long_chains(void)
{
    size_t len;
    char *text = example("poisson", &len);
    if (!text) return;
    chain(text, len, " + x", 401, 401 * 0.75);
    chain(text, len, " + x", 5000, 5000 * 0.75);
    chain(text, len, " - x", 5000, -4998 * 0.75);
    chain(text, len, " + 2*x - x", 3000, 3000 * 0.75);
    chain(text, len, " * 1.0001", 5000, 0.75 * pow(1.0001, 4999));
    chain(text, len, " / 1.0001 * 1.0002", 3000, 0.75 * pow(1.0002 / 1.0001, 2999));
    free(text);
}

static void test_junk(void)
{
    unsigned long long state = 12345;
    char *buf = malloc(65536);
    for (int iter = 0; iter < 300; iter++) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        size_t len = (size_t)(state >> 33) % 65536;
        for (size_t i = 0; i < len; i++) {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            buf[i] = (char)(state >> 56);
            if (iter % 3 == 0) buf[i] = "()[]<>,:=+-*/^ \nabxyun01.#"[(state >> 40) % 26];   /* token soup */
        }
        parse("junk", buf, len);
    }
    free(buf);
}

static char *example(const char *name, size_t *len)
{
    char path[512], *text = NULL;
    snprintf(path, sizeof path, "%s/%s.hdg", HDG_EXAMPLES, name);
    hdg_error err;
    hdg_error_clear(&err);
    CHECK(hdg_read_file(path, &text, len, &err) == HDG_OK, "read %s", path);
    return text;
}

/* Is byte at inside a '#' comment? */
static bool in_comment(const char *text, size_t at)
{
    size_t i = at;
    while (i > 0 && text[i - 1] != '\n') i--;
    for (; i < at; i++)
        if (text[i] == '#') return true;
    return false;
}

static void test_mutations(void)
{
    size_t len;
    char *text = example("poisson", &len);
    if (!text) return;
    CHECK(parse("poisson", text, len) == 0, "poisson is clean");
    for (size_t cut = 0; cut < len; cut += 7) parse("prefix", text, cut);      /* every 7th prefix */
    char *m = malloc(len + 1);
    for (size_t at = 0; at < len; at += 5) {                                  /* a NUL byte anywhere */
        memcpy(m, text, len);
        m[at] = '\0';
        int errors = parse("nul", m, len);
        CHECK(errors > 0 || in_comment(text, at), "NUL at %zu (outside a comment) is an error", at);
    }
    for (size_t at = 0; at < len; at += 3) {                                  /* a byte deleted */
        memcpy(m, text, at);
        memcpy(m + at, text + at + 1, len - at - 1);
        parse("deleted", m, len - 1);
    }
    free(m);
    free(text);
}

static void test_explosion(void)
{
    /* each func doubles the expanded size: rejected with "too large", not hung */
    char src[8192];
    size_t n = (size_t)snprintf(src, sizeof src, "problem p\ndegree k = 1\nfunc f0(x, y) = x*y + sin(x)\n");
    for (int i = 1; i <= 60; i++)
        n += (size_t)snprintf(src + n, sizeof src - n, "func f%d(x, y) = f%d(x, y)*f%d(y, x) + cos(f%d(x, y))\n",
                              i, i - 1, i - 1, i - 1);
    n += (size_t)snprintf(src + n, sizeof src - n,
                          "space V = L2(P k)\nspace M = trace(P k)\nunknown q : V^2, u : V\ntrace uhat : M\n"
                          "equation (q, r) - (u, div(r)) + <uhat, dot(r, n)> = 0 for r : V^2\n"
                          "equation -(q, grad(w)) + <dot(q, n) + u - uhat, w> = (div(grad(f60)), w) for w : V\n"
                          "equation <dot(q, n) + u - uhat, mu> = 0 for mu : M\n"
                          "boundary dirichlet uhat = f60 on all\nexact u = f60, q = grad(f60)\n");
    CHECK(parse("explosion", src, n) > 0, "exploding expressions are rejected");
}

static void test_files(void)
{
    hdg_diags d;
    hdg_diags_init(&d);
    CHECK(hdg_problem_load("/nonexistent/x.hdg", NULL, &d) == NULL && d.nerrors == 1, "missing file");
    char *r = hdg_diags_render(&d);
    CHECK(strstr(r, "error: /nonexistent/x.hdg: cannot open") != NULL, "%s", r);
    free(r);
    hdg_diags_free(&d);
    hdg_diags_init(&d);
    CHECK(hdg_problem_load(HDG_TEST_DATA, NULL, &d) == NULL && d.nerrors == 1, "directory");
    r = hdg_diags_render(&d);
    CHECK(strstr(r, "is a directory") != NULL, "%s", r);
    free(r);
    hdg_diags_free(&d);
    char path[] = "/tmp/hdg_empty_XXXXXX";
    FILE *f = fdopen(mkstemp(path), "w");
    CHECK(f != NULL, "temp file");
    if (f) fclose(f);
    hdg_diags_init(&d);
    CHECK(hdg_problem_load(path, NULL, &d) == NULL, "empty file");
    r = hdg_diags_render(&d);
    CHECK(strstr(r, ":1:1: error: empty problem") != NULL, "%s", r);
    free(r);
    hdg_diags_free(&d);
    remove(path);
    CHECK(parse("empty", "", 0) == 1, "empty text");
}

/* Regression inputs (tests/data/frontend/fuzz/: what `make fuzz` or a bug report
 * ever found): each must give errors or a problem, no crash. */
static void test_regressions(void)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s/frontend/fuzz", HDG_TEST_DATA);
    DIR *dp = opendir(dir);
    CHECK(dp != NULL, "open %s", dir);
    if (!dp) return;
    int n = 0;
    for (struct dirent *e; (e = readdir(dp));) {
        if (e->d_name[0] == '.') continue;
        char path[1024], *text = NULL;
        size_t len;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        hdg_error err;
        hdg_error_clear(&err);
        if (hdg_read_file(path, &text, &len, &err) != HDG_OK) continue;
        parse(e->d_name, text, len);
        free(text);
        n++;
    }
    closedir(dp);
    CHECK(n >= 4, "%d regression inputs", n);
}

int main(void)
{
    test_regressions();
    test_nesting();
    test_long_line();
    test_long_chains();
    test_junk();
    test_mutations();
    test_explosion();
    test_files();
    return test_summary("frontend_robust");
}
