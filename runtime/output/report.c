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

/* ---- paths -------------------------------------------------------------- */

/* Puts item under key in obj, replacing what was there (keeping its place). */
static void put(cJSON *obj, const char *key, cJSON *item)
{
    cJSON_bool ok = cJSON_GetObjectItemCaseSensitive(obj, key)
                        ? cJSON_ReplaceItemInObjectCaseSensitive(obj, key, item)
                        : cJSON_AddItemToObject(obj, key, item);
    if (!ok) hdg_out_of_memory(0);
}

/* Walks the dotted path (a mutable copy, split in place) from obj, creating
 * objects as needed; returns the parent object and sets *leaf to the last key. */
static cJSON *descend(cJSON *obj, char *path, char **leaf)
{
    char *seg = path, *dot;
    while ((dot = strchr(seg, '.'))) {
        *dot = '\0';
        cJSON *child = cJSON_GetObjectItemCaseSensitive(obj, seg);
        if (!cJSON_IsObject(child)) {
            child = must(cJSON_CreateObject());
            put(obj, seg, child);
        }
        obj = child;
        seg = dot + 1;
    }
    *leaf = seg;
    return obj;
}

static void set(hdg_report *r, const char *path, cJSON *item)
{
    char *buf = hdg_xstrdup(path), *leaf;
    cJSON *parent = descend(r->node, buf, &leaf);
    put(parent, leaf, item);
    free(buf);
}

/* The array at path, made (replacing what was there) if it is not one. */
static cJSON *array_at(hdg_report *r, const char *path)
{
    char *buf = hdg_xstrdup(path), *leaf;
    cJSON *parent = descend(r->node, buf, &leaf);
    cJSON *arr = cJSON_GetObjectItemCaseSensitive(parent, leaf);
    if (!cJSON_IsArray(arr)) {
        arr = must(cJSON_CreateArray());
        put(parent, leaf, arr);
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
static const cJSON *lookup(const cJSON *obj, const char *path)
{
    for (;;) {
        const char *dot = strchr(path, '.');
        size_t n = dot ? (size_t)(dot - path) : strlen(path);
        obj = child_named(obj, path, n);
        if (!obj || !dot) return obj;
        path = dot + 1;
    }
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
    if (r && path) set(r, path, must(v ? cJSON_CreateString(v) : cJSON_CreateNull()));
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

hdg_report *hdg_report_array_push_object(hdg_report *r, const char *path)
{
    if (!r || !path) return NULL;
    hdg_report *top = r->owner ? r->owner : r;
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
