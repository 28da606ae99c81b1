/* report.c — the JSON run report: a cJSON tree addressed by dotted paths,
 * with numbers stored as raw text so that every double round-trips. */
#include "runtime/output/report.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "support/util.h"

struct hdg_report {
    cJSON *node;          /* the object this handle writes into */
    hdg_report *owner;    /* top-level report owning this child; NULL if top-level */
    hdg_report **kids;    /* top-level only: child handles to free with it */
    size_t nkids, capkids;
    cJSON *attic;         /* top-level only: replaced subtrees that hold a child's object */
};

/* cJSON returns NULL only when malloc fails: treat it like hdg_xmalloc does. */
static cJSON *must(cJSON *item)
{
    if (!item) hdg_out_of_memory(0);
    return item;
}

/* ---- numbers ------------------------------------------------------------ */

/* Shortest %.Ng (N = 15, 16, 17) that reads back to exactly v; v finite. */
static void format_double(char buf[32], double v)
{
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(buf, 32, "%.*g", digits, v);
        if (strtod(buf, NULL) == v) return;
    }
}

static cJSON *number_item(double v)
{
    char buf[32];
    if (!isfinite(v)) return must(cJSON_CreateNull());
    format_double(buf, v);
    return must(cJSON_CreateRaw(buf));
}

/* ---- text --------------------------------------------------------------- */

/* The length of the UTF-8 sequence at s (1..4), 0 when it is not one (a stray
 * continuation byte, an overlong form, a surrogate, beyond U+10FFFF, cut short). */
static int utf8_len(const unsigned char *s)
{
    unsigned c = s[0];
    if (c < 0x80) return 1;
    int n = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    for (int i = 1; i < n; i++)
        if ((s[i] & 0xC0) != 0x80) return 0;
    if ((c == 0xE0 && s[1] < 0xA0) || (c == 0xED && s[1] > 0x9F) || (c == 0xF0 && s[1] < 0x90) ||
        (c == 0xF4 && s[1] > 0x8F))
        return 0;
    return n;
}

/* A copy of s (to free) in which every byte that is not part of valid UTF-8 is
 * written as the four characters \xNN, so that the JSON text is valid UTF-8. */
static char *utf8_clean(const char *s)
{
    size_t n = strlen(s), bad = 0;
    for (size_t i = 0; i < n;) {
        int k = utf8_len((const unsigned char *)s + i);
        bad += !k;
        i += k ? (size_t)k : 1;
    }
    if (!bad) return hdg_xstrdup(s);
    char *out = hdg_xmalloc(n + 3 * bad + 1), *o = out;
    for (size_t i = 0; i < n;) {
        int k = utf8_len((const unsigned char *)s + i);
        if (k) memcpy(o, s + i, (size_t)k), o += k, i += (size_t)k;
        else o += sprintf(o, "\\x%02X", (unsigned char)s[i++]);
    }
    *o = '\0';
    return out;
}

/* ---- paths -------------------------------------------------------------- */

/* 1 when the subtree under item holds the object of one of top's child handles. */
static int holds_kid(const hdg_report *top, const cJSON *item)
{
    for (const cJSON *c = item->child; c; c = c->next) {
        for (size_t k = 0; k < top->nkids; k++)
            if (top->kids[k]->node == c) return 1;
        if (c->child && holds_kid(top, c)) return 1;
    }
    return 0;
}

/* old is about to be deleted: when it holds a child handle's object, its children move
 * to a node kept in top's attic (freed with top), so that the handle stays valid. */
static void rescue(hdg_report *top, cJSON *old)
{
    if (!top->nkids || !old->child || !holds_kid(top, old)) return;
    if (!top->attic) top->attic = must(cJSON_CreateArray());
    cJSON *keep = must(cJSON_IsArray(old) ? cJSON_CreateArray() : cJSON_CreateObject());
    keep->child = old->child;
    old->child = NULL;
    if (!cJSON_AddItemToArray(top->attic, keep)) hdg_out_of_memory(0);
}

/* Puts item under key in obj, replacing what was there (keeping its place). */
static void put(hdg_report *top, cJSON *obj, const char *key, cJSON *item)
{
    cJSON *old = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (old) rescue(top, old);
    cJSON_bool ok = old ? cJSON_ReplaceItemInObjectCaseSensitive(obj, key, item) : cJSON_AddItemToObject(obj, key, item);
    if (!ok) hdg_out_of_memory(0);
}

/* Walks the dotted path (a mutable copy, split in place) from obj, creating
 * objects as needed; returns the parent object and sets *leaf to the last key. */
static cJSON *descend(hdg_report *top, cJSON *obj, char *path, char **leaf)
{
    char *seg = path, *dot;
    while ((dot = strchr(seg, '.'))) {
        *dot = '\0';
        cJSON *child = cJSON_GetObjectItemCaseSensitive(obj, seg);
        if (!cJSON_IsObject(child)) {
            child = must(cJSON_CreateObject());
            put(top, obj, seg, child);
        }
        obj = child;
        seg = dot + 1;
    }
    *leaf = seg;
    return obj;
}

static hdg_report *top_of(hdg_report *r) { return r->owner ? r->owner : r; }

static void set(hdg_report *r, const char *path, cJSON *item)
{
    char *buf = utf8_clean(path), *leaf;
    cJSON *parent = descend(top_of(r), r->node, buf, &leaf);
    put(top_of(r), parent, leaf, item);
    free(buf);
}

/* The array at path, made (replacing what was there) if it is not one. */
static cJSON *array_at(hdg_report *r, const char *path)
{
    char *buf = utf8_clean(path), *leaf;
    cJSON *parent = descend(top_of(r), r->node, buf, &leaf);
    cJSON *arr = cJSON_GetObjectItemCaseSensitive(parent, leaf);
    if (!cJSON_IsArray(arr)) {
        arr = must(cJSON_CreateArray());
        put(top_of(r), parent, leaf, arr);
    }
    free(buf);
    return arr;
}

/* The child of obj named by the n bytes at key, or NULL. */
static const cJSON *child_named(const cJSON *obj, const char *key, size_t n)
{
    if (!cJSON_IsObject(obj)) return NULL;
    for (const cJSON *c = obj->child; c; c = c->next)
        if (c->string && strlen(c->string) == n && memcmp(c->string, key, n) == 0)
            return c;
    return NULL;
}

/* The item at path, or NULL; creates nothing. */
static const cJSON *lookup_clean(const cJSON *obj, const char *path)
{
    for (;;) {
        const char *dot = strchr(path, '.');
        size_t n = dot ? (size_t)(dot - path) : strlen(path);
        obj = child_named(obj, path, n);
        if (!obj || !dot) return obj;
        path = dot + 1;
    }
}

/* The same for a path written as set() writes it (bytes that are not UTF-8 escaped). */
static const cJSON *lookup(const cJSON *obj, const char *path)
{
    char *clean = utf8_clean(path);
    const cJSON *item = lookup_clean(obj, clean);
    free(clean);
    return item;
}

/* ---- public API --------------------------------------------------------- */

hdg_report *hdg_report_new(void)
{
    hdg_report *r = hdg_xcalloc(1, sizeof *r);
    r->node = must(cJSON_CreateObject());
    return r;
}

void hdg_report_free(hdg_report *r)
{
    if (!r || r->owner) return;
    for (size_t i = 0; i < r->nkids; i++) free(r->kids[i]);
    free(r->kids);
    cJSON_Delete(r->attic);
    cJSON_Delete(r->node);
    free(r);
}

void hdg_report_number(hdg_report *r, const char *path, double v)
{
    if (r && path) set(r, path, number_item(v));
}

void hdg_report_int(hdg_report *r, const char *path, long long v)
{
    char buf[32];
    if (!r || !path) return;
    snprintf(buf, sizeof buf, "%lld", v);
    set(r, path, must(cJSON_CreateRaw(buf)));
}

void hdg_report_string(hdg_report *r, const char *path, const char *v)
{
    if (!r || !path) return;
    char *clean = v ? utf8_clean(v) : NULL;
    set(r, path, must(clean ? cJSON_CreateString(clean) : cJSON_CreateNull()));
    free(clean);
}

void hdg_report_bool(hdg_report *r, const char *path, int v)
{
    if (r && path) set(r, path, must(cJSON_CreateBool(v != 0)));
}

void hdg_report_array_push_number(hdg_report *r, const char *path, double v)
{
    if (!r || !path) return;
    if (!cJSON_AddItemToArray(array_at(r, path), number_item(v))) hdg_out_of_memory(0);
}

void hdg_report_array_push_string(hdg_report *r, const char *path, const char *v)
{
    if (!r || !path) return;
    char *clean = v ? utf8_clean(v) : NULL;
    cJSON *item = must(clean ? cJSON_CreateString(clean) : cJSON_CreateNull());
    free(clean);
    if (!cJSON_AddItemToArray(array_at(r, path), item)) hdg_out_of_memory(0);
}

hdg_report *hdg_report_array_push_object(hdg_report *r, const char *path)
{
    if (!r || !path) return NULL;
    hdg_report *top = top_of(r);
    cJSON *obj = must(cJSON_CreateObject());
    if (!cJSON_AddItemToArray(array_at(r, path), obj)) hdg_out_of_memory(0);

    hdg_report *kid = hdg_xcalloc(1, sizeof *kid);
    kid->node = obj;
    kid->owner = top;
    if (top->nkids == top->capkids) {
        top->capkids = top->capkids ? 2 * top->capkids : 8;
        top->kids = hdg_xrealloc(top->kids, top->capkids * sizeof *top->kids);
    }
    top->kids[top->nkids++] = kid;
    return kid;
}

char *hdg_report_to_string(const hdg_report *r)
{
    if (!r) return NULL;
    char *text = cJSON_Print(r->node);
    if (!text) hdg_out_of_memory(0);
    char *copy = hdg_xstrdup(text);   /* so that callers may use plain free() */
    cJSON_free(text);
    return copy;
}

hdg_status hdg_report_write(const hdg_report *r, const char *path, hdg_error *err)
{
    if (!r || !path || !*path)
        return hdg_fail(err, HDG_EINPUT, "report: no report or no output path given");
    hdg_ofile o;
    hdg_status st = hdg_ofile_open(&o, path, err);
    if (st) return st;
    char *text = hdg_report_to_string(r);
    fputs(text, o.f);
    fputc('\n', o.f);
    free(text);
    return hdg_ofile_commit(&o, err);
}

double hdg_report_get_number(const hdg_report *r, const char *path, int *found)
{
    const cJSON *item = r && path ? lookup(r->node, path) : NULL;
    int ok = 1;
    double v = NAN;
    if (cJSON_IsRaw(item)) v = strtod(item->valuestring, NULL);
    else if (cJSON_IsNumber(item)) v = item->valuedouble;
    else if (!cJSON_IsNull(item)) ok = 0;
    if (found) *found = ok;
    return v;
}

const char *hdg_report_get_string(const hdg_report *r, const char *path)
{
    const cJSON *item = r && path ? lookup(r->node, path) : NULL;
    return cJSON_IsString(item) ? item->valuestring : NULL;
}

/* ---- warnings ----------------------------------------------------------- */

typedef struct warnings {
    char **paths, **texts;
    int n, cap;
} warnings;

/* The warnings under obj (at dotted path prefix; in_warnings: obj is named "warnings"). */
static void collect(const cJSON *obj, const char *prefix, int in_warnings, warnings *w)
{
    for (const cJSON *c = obj->child; c; c = c->next) {
        if (!c->string) continue;
        size_t n = strlen(prefix) + strlen(c->string) + 2;
        char *path = hdg_xmalloc(n);
        snprintf(path, n, "%s%s%s", prefix, *prefix ? "." : "", c->string);
        if (cJSON_IsObject(c)) collect(c, path, !strcmp(c->string, "warnings"), w);
        if (cJSON_IsString(c) && (in_warnings || !strcmp(c->string, "warning"))) {
            if (w->n == w->cap) {
                w->cap = w->cap ? 2 * w->cap : 4;
                w->paths = hdg_xrealloc(w->paths, sizeof *w->paths * (size_t)w->cap);
                w->texts = hdg_xrealloc(w->texts, sizeof *w->texts * (size_t)w->cap);
            }
            w->paths[w->n] = path, w->texts[w->n++] = hdg_xstrdup(c->valuestring);
            continue;
        }
        free(path);
    }
}

int hdg_report_warnings(const hdg_report *r, char ***paths, char ***texts)
{
    warnings w = {0};
    if (r) collect(r->node, "", 0, &w);
    *paths = w.paths, *texts = w.texts;
    return w.n;
}

void hdg_report_warnings_free(int n, char **paths, char **texts)
{
    for (int i = 0; i < n; i++) free(paths[i]), free(texts[i]);
    free(paths), free(texts);
}
