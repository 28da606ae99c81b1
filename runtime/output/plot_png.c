/* plot_png.c — the laid-out plot (plot_list.h) drawn by cairo into a PNG, and
 * the text measurement the layout uses (cairo's toy font API, PL_FONT). */
#include <cairo.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "runtime/output/plot_list.h"
#include "support/util.h"

#define PI 3.14159265358979323846

static void font(cairo_t *cr, double size)
{
    cairo_select_font_face(cr, PL_FONT, CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, size);
}

static double advance(cairo_t *cr, const char *s, double size)
{
    cairo_text_extents_t e;
    font(cr, size);
    cairo_text_extents(cr, s, &e);
    return e.x_advance;
}

static double width(cairo_t *cr, const char *text, const char *sup, double size)
{
    return advance(cr, text, size) + (sup ? advance(cr, sup, 0.7 * size) : 0);
}

double pl_text_width(const char *text, const char *sup, double size)
{
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 1);
    cairo_t *cr = cairo_create(s);
    double w = width(cr, text, sup, size);
    cairo_destroy(cr);
    cairo_surface_destroy(s);
    return isfinite(w) ? w : 0.6 * size * (double)strlen(text);
}

static void colour(cairo_t *cr, unsigned rgb)
{
    cairo_set_source_rgb(cr, (rgb >> 16 & 255) / 255.0, (rgb >> 8 & 255) / 255.0, (rgb & 255) / 255.0);
}

static void stroke(cairo_t *cr, const pl_item *it)
{
    colour(cr, it->rgb);
    cairo_set_line_width(cr, it->lw);
    double d[2] = {4 * it->lw, 3 * it->lw};
    cairo_set_dash(cr, d, it->dash ? 2 : 0, 0);
    cairo_stroke(cr);
}

static void mark(cairo_t *cr, const pl_item *it)
{
    double x = it->xy[0], y = it->xy[1], r = it->size;
    switch (it->marker) {
    case PL_CIRCLE: cairo_arc(cr, x, y, r, 0, 2 * PI); break;
    case PL_SQUARE: cairo_rectangle(cr, x - r, y - r, 2 * r, 2 * r); break;
    case PL_TRIANGLE:
    case PL_DOWN: {
        double s = it->marker == PL_TRIANGLE ? 1 : -1;
        cairo_move_to(cr, x, y - 1.2 * r * s);
        cairo_line_to(cr, x + 1.1 * r, y + 0.8 * r * s);
        cairo_line_to(cr, x - 1.1 * r, y + 0.8 * r * s);
        break;
    }
    default:
        cairo_move_to(cr, x, y - 1.3 * r), cairo_line_to(cr, x + 1.3 * r, y);
        cairo_line_to(cr, x, y + 1.3 * r), cairo_line_to(cr, x - 1.3 * r, y);
    }
    cairo_close_path(cr);
    colour(cr, it->rgb);
    cairo_fill(cr);
}

static void text(cairo_t *cr, const pl_item *it)
{
    double w = width(cr, it->text, it->sup, it->font);
    double dx = it->anchor == PL_MIDDLE ? -0.5 * w : it->anchor == PL_END ? -w : 0;
    cairo_save(cr);
    cairo_translate(cr, it->xy[0], it->xy[1]);
    if (it->vertical) cairo_rotate(cr, -PI / 2);
    colour(cr, it->rgb);
    font(cr, it->font);
    cairo_move_to(cr, dx, 0);
    cairo_show_text(cr, it->text);
    if (it->sup) {
        font(cr, 0.7 * it->font);
        cairo_rel_move_to(cr, 0, -0.45 * it->font);
        cairo_show_text(cr, it->sup);
    }
    cairo_restore(cr);
}

static void item(cairo_t *cr, const pl_item *it)
{
    const double *p = it->xy;
    cairo_new_path(cr);   /* no current point left by a text */
    switch (it->kind) {
    case PL_RECT:
        cairo_rectangle(cr, p[0], p[1], p[2], p[3]);
        if (it->fill) colour(cr, it->rgb), cairo_fill(cr);
        else stroke(cr, it);
        break;
    case PL_LINE:
        cairo_move_to(cr, p[0], p[1]), cairo_line_to(cr, p[2], p[3]);
        stroke(cr, it);
        break;
    case PL_POLY:
        for (int i = 0; i < it->n; i++) cairo_line_to(cr, p[2 * i], p[2 * i + 1]);
        cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
        stroke(cr, it);
        break;
    case PL_MARK: mark(cr, it); break;
    case PL_TEXT: text(cr, it); break;
    }
}

static cairo_status_t to_file(void *f, const unsigned char *data, unsigned int n)
{
    return fwrite(data, 1, n, f) == n ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR;
}

hdg_status pl_write_png(const pl_list *L, FILE *f, const char *path, hdg_error *err)
{
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, L->width, L->height);
    cairo_t *cr = cairo_create(s);
    for (int i = 0; i < L->n; i++) item(cr, &L->it[i]);
    cairo_destroy(cr);
    cairo_status_t cs = cairo_surface_write_to_png_stream(s, to_file, f);
    cairo_surface_destroy(s);
    if (cs != CAIRO_STATUS_SUCCESS) return hdg_fail(err, HDG_EIO, "%s: %s", path, cairo_status_to_string(cs));
    return HDG_OK;
}
