/* test_report.c — the JSON report: dotted paths, replacement, arrays, rows
 * of objects, exact round-trip of doubles and integers, null for non-finite
 * numbers, writing and reading back, and the I/O error. */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "runtime/output/report.h"
#include "support/util.h"
#include "test.h"

/* The report's text parsed back by cJSON (caller deletes). */
static cJSON *parsed(const hdg_report *r)
{
    char *text = hdg_report_to_string(r);
    cJSON *j = cJSON_Parse(text);
    CHECK(j != NULL, "to_string is not valid JSON:\n%s", text);
    free(text);
    return j;
}

/* The item at a dotted path in a parsed tree (test-side walk). */
static const cJSON *at(const cJSON *j, const char *path)
{
    char buf[256], *save = NULL;
    snprintf(buf, sizeof buf, "%s", path);
    for (char *k = strtok_r(buf, ".", &save); k && j; k = strtok_r(NULL, ".", &save))
        j = cJSON_GetObjectItemCaseSensitive(j, k);
    return j;
}

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *s = strstr(hay, needle); s; s = strstr(s + 1, needle)) n++;
    return n;
}

static void test_paths(void)
{
    hdg_report *r = hdg_report_new();
    int found;
    hdg_report_string(r, "problem", "poisson");
    hdg_report_number(r, "errors.u", 1.5);
    hdg_report_number(r, "errors.q", 2.25);
    hdg_report_int(r, "sizes.mesh.elements", 128);
    hdg_report_bool(r, "converged", 1);
    hdg_report_bool(r, "cached", 0);
    hdg_report_string(r, "note", NULL);

    CHECK(hdg_report_get_number(r, "errors.u", &found) == 1.5 && found, "errors.u");
    CHECK(hdg_report_get_number(r, "sizes.mesh.elements", &found) == 128 && found, "elements");
    CHECK(isnan(hdg_report_get_number(r, "errors", &found)) && !found, "an object is no number");
    CHECK(isnan(hdg_report_get_number(r, "problem", &found)) && !found, "a string is no number");
    CHECK(isnan(hdg_report_get_number(r, "errors.p", &found)) && !found, "missing leaf");
    CHECK(isnan(hdg_report_get_number(r, "nothing.u", &found)) && !found, "missing parent");
    CHECK(isnan(hdg_report_get_number(r, "errors.u.x", &found)) && !found, "through a number");
    CHECK(isnan(hdg_report_get_number(r, "errors.u", NULL)) == 0, "found may be NULL");

    cJSON *j = parsed(r);
    CHECK(cJSON_IsString(at(j, "problem")) && !strcmp(at(j, "problem")->valuestring, "poisson"), "problem");
    CHECK(cJSON_IsNumber(at(j, "errors.q")) && at(j, "errors.q")->valuedouble == 2.25, "errors.q");
    CHECK(cJSON_IsObject(at(j, "sizes.mesh")) && at(j, "sizes.mesh.elements")->valuedouble == 128, "nested");
    CHECK(cJSON_IsTrue(at(j, "converged")) && cJSON_IsFalse(at(j, "cached")), "bools");
    CHECK(cJSON_IsNull(at(j, "note")), "NULL string -> null");
    CHECK(j && j->child && !strcmp(j->child->string, "problem") &&
          !strcmp(j->child->next->string, "errors"), "keys keep insertion order");
    cJSON_Delete(j);

    /* replacing: same path, a leaf by an object, an object by a leaf */
    hdg_report_number(r, "errors.u", 0.5);
    char *text = hdg_report_to_string(r);
    CHECK(count(text, "\"u\"") == 1, "errors.u appears once:\n%s", text);
    free(text);
    CHECK(hdg_report_get_number(r, "errors.u", &found) == 0.5 && found, "replaced value");
    hdg_report_string(r, "errors.u", "gone");
    CHECK(isnan(hdg_report_get_number(r, "errors.u", &found)) && !found, "number -> string");
    hdg_report_number(r, "errors.u.l2", 3e-7);   /* the string becomes an object */
    CHECK(hdg_report_get_number(r, "errors.u.l2", &found) == 3e-7 && found, "leaf -> object");
    hdg_report_number(r, "sizes", 7);            /* the object becomes a number */
    CHECK(hdg_report_get_number(r, "sizes", &found) == 7 && found, "object -> leaf");
    CHECK(isnan(hdg_report_get_number(r, "sizes.mesh.elements", &found)) && !found, "subtree gone");
    j = parsed(r);
    CHECK(cJSON_GetArraySize(j) == 6, "6 top-level keys, got %d", cJSON_GetArraySize(j));
    CHECK(j && !strcmp(j->child->next->string, "errors"), "replacement keeps the key's place");
    cJSON_Delete(j);
    hdg_report_free(r);
}

static void test_arrays(void)
{
    hdg_report *r = hdg_report_new();
    hdg_report_array_push_number(r, "rates.u", 1.9);
    hdg_report_array_push_number(r, "rates.u", 2.0000000000000004);
    hdg_report_array_push_number(r, "rates.u", NAN);
    hdg_report_number(r, "x", 1);
    hdg_report_array_push_number(r, "x", 4);     /* a number is replaced by [4] */

    hdg_report *row = hdg_report_array_push_object(r, "convergence");
    hdg_report_int(row, "n", 8);
    hdg_report_number(row, "errors.u", 0.1);
    hdg_report *row2 = hdg_report_array_push_object(r, "convergence");
    hdg_report_int(row2, "n", 16);
    hdg_report_number(row2, "errors.u", 0.025);
    hdg_report_array_push_number(row2, "iterations", 31);
    hdg_report *sub = hdg_report_array_push_object(row2, "stages");   /* a child's child */
    hdg_report_string(sub, "name", "solve");
    int found;
    CHECK(hdg_report_get_number(row2, "errors.u", &found) == 0.025 && found, "row get");

    char *rowtext = hdg_report_to_string(row);
    cJSON *rj = cJSON_Parse(rowtext);
    CHECK(rj && cJSON_GetArraySize(rj) == 2 && at(rj, "n")->valuedouble == 8, "row text:\n%s", rowtext);
    cJSON_Delete(rj);
    free(rowtext);

    cJSON *j = parsed(r);
    const cJSON *u = at(j, "rates.u"), *x = at(j, "x"), *conv = at(j, "convergence");
    CHECK(cJSON_IsArray(u) && cJSON_GetArraySize(u) == 3, "rates.u has 3 entries");
    CHECK(cJSON_GetArrayItem(u, 1)->valuedouble == 2.0000000000000004, "array value exact");
    CHECK(cJSON_IsNull(cJSON_GetArrayItem(u, 2)), "NaN in array -> null");
    CHECK(cJSON_IsArray(x) && cJSON_GetArraySize(x) == 1 && cJSON_GetArrayItem(x, 0)->valuedouble == 4, "x = [4]");
    CHECK(cJSON_IsArray(conv) && cJSON_GetArraySize(conv) == 2, "two rows");
    const cJSON *r1 = cJSON_GetArrayItem(conv, 1);
    CHECK(at(r1, "n")->valuedouble == 16 && at(r1, "errors.u")->valuedouble == 0.025, "row 2");
    CHECK(cJSON_GetArraySize(at(r1, "iterations")) == 1, "row 2 iterations");
    const cJSON *st = cJSON_GetArrayItem(at(r1, "stages"), 0);
    CHECK(st && !strcmp(at(st, "name")->valuestring, "solve"), "nested row");
    cJSON_Delete(j);

    hdg_report_free(row);   /* a child handle: ignored, freed with r */
    hdg_report_free(NULL);
    hdg_report_free(r);
}

/* A row handed out by push lives as long as its report: a later write that replaces the
 * array (or an object holding it) leaves the row writable (it was freed: SIGSEGV). */
static void test_rows_outlive_replacement(void)
{
    hdg_report *r = hdg_report_new();
    hdg_report *row = hdg_report_array_push_object(r, "runs");
    hdg_report *sub = hdg_report_array_push_object(row, "stages");
    hdg_report_int(row, "n", 8);
    hdg_report_number(r, "runs", 3);              /* the array becomes a number */
    hdg_report *row2 = hdg_report_array_push_object(r, "table.rows");
    hdg_report_string(r, "table", "flat");        /* an object holding the array */
    hdg_report_number(row, "stages", 1);          /* a child's array replaced through the child */
    for (int i = 0; i < 200; i++) {               /* writes into the three handles */
        char key[32];
        snprintf(key, sizeof key, "k%d.v", i);
        hdg_report_number(row, key, i);
        hdg_report_string(sub, key, "solve");
        hdg_report_int(row2, key, i);
    }
    int found;
    CHECK(hdg_report_get_number(row, "k199.v", &found) == 199 && found, "the row still reads back");
    CHECK(hdg_report_get_number(r, "runs", &found) == 3 && found, "runs = 3");
    cJSON *j = parsed(r);
    CHECK(j && cJSON_GetArraySize(j) == 2 && cJSON_IsString(at(j, "table")), "the document: runs and table only");
    cJSON_Delete(j);
    hdg_report *row3 = hdg_report_array_push_object(r, "runs");   /* pushing again starts a new array */
    hdg_report_int(row3, "n", 16);
    j = parsed(r);
    CHECK(j && cJSON_GetArraySize(at(j, "runs")) == 1 && at(j, "runs")->child &&
          at(at(j, "runs")->child, "n")->valuedouble == 16, "a new array of one row");
    cJSON_Delete(j);
    hdg_report_free(r);
}

/* 1 when the n bytes at s are well-formed UTF-8 (RFC 3629). */
static int utf8_ok(const unsigned char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        unsigned c = s[i];
        size_t k = c < 0x80 ? 1 : c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
        if (!k || i + k > n) return 0;
        for (size_t m = 1; m < k; m++)
            if ((s[i + m] & 0xC0) != 0x80) return 0;
        if ((c == 0xE0 && s[i + 1] < 0xA0) || (c == 0xED && s[i + 1] > 0x9F) || (c == 0xF0 && s[i + 1] < 0x90) ||
            (c == 0xF4 && s[i + 1] > 0x8F))
            return 0;
        i += k;
    }
    return 1;
}

/* Strings and keys that are not UTF-8 (a marker name or a path from a file) are written
 * with the bad bytes as \xNN: the JSON stays valid UTF-8; valid UTF-8 is kept as it is. */
static void test_utf8(void)
{
    hdg_report *r = hdg_report_new();
    hdg_report_string(r, "mesh.spec", "/tmp/m\xff\xfe.msh");
    hdg_report_string(r, "mesh.name", "caf\xc3\xa9 \xe2\x82\xac");         /* valid: kept */
    hdg_report_string(r, "cut", "ab\xe2\x82");                             /* cut short */
    hdg_report_string(r, "surrogate", "\xed\xa0\x80");                    /* U+D800 */
    hdg_report_string(r, "overlong", "\xc0\xaf");
    hdg_report_int(r, "markers.wall\xff", 12);                           /* a key */
    char *text = hdg_report_to_string(r);
    CHECK(utf8_ok((const unsigned char *)text, strlen(text)), "the JSON is not valid UTF-8:\n%s", text);
    free(text);
    cJSON *j = parsed(r);
    CHECK(j && !strcmp(at(j, "mesh.spec")->valuestring, "/tmp/m\\xFF\\xFE.msh"), "spec: %s",
          j ? at(j, "mesh.spec")->valuestring : "");
    CHECK(j && !strcmp(at(j, "mesh.name")->valuestring, "caf\xc3\xa9 \xe2\x82\xac"), "valid UTF-8 kept");
    CHECK(j && !strcmp(at(j, "cut")->valuestring, "ab\\xE2\\x82"), "cut: %s", j ? at(j, "cut")->valuestring : "");
    CHECK(j && !strcmp(at(j, "surrogate")->valuestring, "\\xED\\xA0\\x80"), "surrogate");
    CHECK(j && !strcmp(at(j, "overlong")->valuestring, "\\xC0\\xAF"), "overlong");
    CHECK(j && at(j, "markers.wall\\xFF") && at(j, "markers.wall\\xFF")->valuedouble == 12, "the key escaped");
    cJSON_Delete(j);
    int found;
    CHECK(hdg_report_get_number(r, "markers.wall\xff", &found) == 12 && found, "read back by the raw path");
    CHECK(!strcmp(hdg_report_get_string(r, "mesh.spec"), "/tmp/m\\xFF\\xFE.msh"), "get_string");
    hdg_report_free(r);
}

/* The warnings of a report: strings named "warning" or in an object "warnings", in order. */
static void test_warnings(void)
{
    hdg_report *r = hdg_report_new();
    hdg_report_string(r, "compile.warning", "kernel cache disabled");
    hdg_report_number(r, "solver.iterations", 3);
    hdg_report_string(r, "solver.warning", "the solve stopped early");
    hdg_report_int(r, "mesh.warning", 7);                      /* not a string: no warning */
    hdg_report_string(r, "warnings.mean", "the solution is unique");
    hdg_report_string(r, "warnings.mpi", "fields stay on the ranks");
    hdg_report_string(r, "note", "not a warning");
    hdg_report_array_push_string(r, "list", "in an array: not a warning");
    char **paths, **texts;
    int n = hdg_report_warnings(r, &paths, &texts);
    static const char *want[][2] = {{"compile.warning", "kernel cache disabled"},
                                    {"solver.warning", "the solve stopped early"},
                                    {"warnings.mean", "the solution is unique"},
                                    {"warnings.mpi", "fields stay on the ranks"}};
    CHECK(n == 4, "%d warnings", n);
    for (int i = 0; i < n && i < 4; i++)
        CHECK(!strcmp(paths[i], want[i][0]) && !strcmp(texts[i], want[i][1]), "warning %d: %s = %s", i, paths[i],
              texts[i]);
    hdg_report_warnings_free(n, paths, texts);
    cJSON *j = parsed(r);
    CHECK(j && cJSON_GetArraySize(at(j, "list")) == 1 &&
          !strcmp(cJSON_GetArrayItem(at(j, "list"), 0)->valuestring, "in an array: not a warning"), "string array");
    cJSON_Delete(j);
    hdg_report_free(r);
    CHECK(hdg_report_warnings(NULL, &paths, &texts) == 0, "none in no report");
    hdg_report_warnings_free(0, paths, texts);
}

static void test_round_trip(void)
{
    const double v[] = {0.1 + 0.2, 1e-300, 1.2345678901234567e-12, 1.0 / 3, 2.0 / 3, -0.0,
                        5e-324, DBL_MAX, -DBL_MIN, 9007199254740993.0, 123456789.12345679, 0.5};
    const int n = (int)(sizeof v / sizeof v[0]);
    hdg_report *r = hdg_report_new();
    char key[32];
    for (int k = 0; k < n; k++) {
        snprintf(key, sizeof key, "v.%d", k);
        hdg_report_number(r, key, v[k]);
        hdg_report_array_push_number(r, "all", v[k]);
    }
    hdg_report_int(r, "big", 9007199254740993LL);
    hdg_report_int(r, "min", LLONG_MIN);
    hdg_report_number(r, "inf", INFINITY);
    hdg_report_number(r, "nan", NAN);

    char *text = hdg_report_to_string(r);
    cJSON *j = cJSON_Parse(text);
    CHECK(j != NULL, "not JSON:\n%s", text);
    for (int k = 0; k < n && j; k++) {
        snprintf(key, sizeof key, "v.%d", k);
        const cJSON *a = at(j, key), *b = cJSON_GetArrayItem(at(j, "all"), k);
        CHECK(cJSON_IsNumber(a) && a->valuedouble == v[k] && signbit(a->valuedouble) == signbit(v[k]),
              "%s: %.17g read back as %.17g", key, v[k], a ? a->valuedouble : NAN);
        CHECK(cJSON_IsNumber(b) && b->valuedouble == v[k], "all[%d]", k);
        int found;
        CHECK(hdg_report_get_number(r, key, &found) == v[k] && found, "get %s", key);
    }
    CHECK(strstr(text, "0.30000000000000004") && strstr(text, "1e-300") &&
          strstr(text, "1.2345678901234567e-12"), "digits in text:\n%s", text);
    CHECK(strstr(text, "\"0\":\t0.30000000000000004,") && strstr(text, "\"11\":\t0.5\n"),
          "shortest form:\n%s", text);
    CHECK(strstr(text, "\"big\":\t9007199254740993") && strstr(text, "\"min\":\t-9223372036854775808"),
          "integers exact:\n%s", text);
    CHECK(cJSON_IsNull(at(j, "inf")) && cJSON_IsNull(at(j, "nan")), "non-finite -> null");
    int found;
    CHECK(isnan(hdg_report_get_number(r, "nan", &found)) && found, "null reads as NaN, found");
    CHECK(hdg_report_get_number(r, "big", &found) == 9007199254740992.0 && found, "int as double");
    cJSON_Delete(j);
    free(text);
    hdg_report_free(r);
}

static void test_write(void)
{
    hdg_report *r = hdg_report_new();
    hdg_error err;
    hdg_report_string(r, "problem", "a \"quoted\"\nname");
    hdg_report_number(r, "timings.assemble", 0.1 + 0.2);
    hdg_report_int(r, "iterations", 42);

    remove("out_report.json");
    CHECK(hdg_report_write(r, "out_report.json", &err) == HDG_OK, "%s", err.msg);
    char *data;
    size_t len;
    if (hdg_read_file("out_report.json", &data, &len, &err) == HDG_OK) {
        CHECK(len > 0 && data[len - 1] == '\n', "ends with a newline");
        cJSON *j = cJSON_Parse(data);
        CHECK(j && !strcmp(at(j, "problem")->valuestring, "a \"quoted\"\nname"), "string escaped");
        CHECK(j && at(j, "timings.assemble")->valuedouble == 0.1 + 0.2, "number exact in file");
        CHECK(j && at(j, "iterations")->valuedouble == 42, "int in file");
        cJSON_Delete(j);
        free(data);
    } else {
        CHECK(0, "cannot read back: %s", err.msg);
    }

    hdg_status st = hdg_report_write(r, "no-such-dir/r.json", &err);
    CHECK(st == HDG_EIO && strstr(err.msg, "no-such-dir/r.json") && strstr(err.msg, "No such file"),
          "unwritable: %d %s", st, err.msg);
    st = hdg_report_write(r, "", &err);
    CHECK(st == HDG_EINPUT, "empty path: %d %s", st, err.msg);
    hdg_report_free(r);
}

int main(void)
{
    test_paths();
    test_arrays();
    test_rows_outlive_replacement();
    test_utf8();
    test_warnings();
    test_round_trip();
    test_write();
    return test_summary("test_report");
}
