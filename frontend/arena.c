/* arena.c — the frontend's allocator: every block is its own malloc, recorded
 * in a list, and freed together (AST after checking, expressions with the problem). */
#include <stdlib.h>
#include <string.h>

#include "frontend/internal.h"
#include "support/util.h"

struct hdg_arena {
    void **blocks;
    size_t n, cap;
};

hdg_arena *hdg_arena_new(void) { return hdg_xcalloc(1, sizeof(hdg_arena)); }

void hdg_arena_free(hdg_arena *a)
{
    if (!a) return;
    for (size_t i = 0; i < a->n; i++) free(a->blocks[i]);
    free(a->blocks);
    free(a);
}

void *hdg_arena_alloc(hdg_arena *a, size_t n)
{
    if (a->n == a->cap) {
        a->cap = a->cap ? 2 * a->cap : 256;
        a->blocks = hdg_xrealloc(a->blocks, a->cap * sizeof(void *));
    }
    void *p = hdg_xcalloc(1, n ? n : 1);
    a->blocks[a->n++] = p;
    return p;
}

char *hdg_arena_strndup(hdg_arena *a, const char *s, size_t n)
{
    char *p = hdg_arena_alloc(a, n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *hdg_arena_strdup(hdg_arena *a, const char *s) { return hdg_arena_strndup(a, s, strlen(s)); }

void *hdg_arena_grow(hdg_arena *a, void *old, size_t oldn, size_t newn)
{
    void *p = hdg_arena_alloc(a, newn);
    if (old && oldn) memcpy(p, old, oldn < newn ? oldn : newn);
    return p;
}
