/* plot_svg.c — the laid-out plot (plot_list.h) as an SVG document: one element
 * per item, with its class (series, legend, rate, tick, ...) so that a reader
 * finds the data: <polyline class="series" points="x,y x,y ...">, and
 * <text class="legend">label</text>. Text is XML-escaped. */
#include <math.h>
#include <stdio.h>

#include "runtime/output/plot_list.h"

static void escaped(FILE *f, const char *s)
{
    for (; *s; s++) switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&apos;", f); break;
        default:
            if ((unsigned char)*s >= 0x20 || *s == '\t') fputc(*s, f);   /* control characters are not XML */
        }
}

static void stroke(FILE *f, const pl_item *it)
{
    fprintf(f, " fill=\"none\" stroke=\"#%06x\" stroke-width=\"%.2f\"", it->rgb, it->lw);
    if (it->dash) fprintf(f, " stroke-dasharray=\"%.1f,%.1f\"", 4 * it->lw, 3 * it->lw);
}

static void mark(FILE *f, const pl_item *it)
{
    double x = it->xy[0], y = it->xy[1], r = it->size;
    fprintf(f, "<");
    switch (it->marker) {
    case PL_CIRCLE: fprintf(f, "circle cx=\"%.2f\" cy=\"%.2f\" r=\"%.2f\"", x, y, r); break;
    case PL_SQUARE: fprintf(f, "rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\"", x - r, y - r, 2 * r, 2 * r); break;
    case PL_TRIANGLE:
        fprintf(f, "polygon points=\"%.2f,%.2f %.2f,%.2f %.2f,%.2f\"", x, y - 1.2 * r, x + 1.1 * r, y + 0.8 * r, x - 1.1 * r, y + 0.8 * r);
        break;
    case PL_DOWN:
        fprintf(f, "polygon points=\"%.2f,%.2f %.2f,%.2f %.2f,%.2f\"", x, y + 1.2 * r, x + 1.1 * r, y - 0.8 * r, x - 1.1 * r, y - 0.8 * r);
        break;
    default:
        fprintf(f, "polygon points=\"%.2f,%.2f %.2f,%.2f %.2f,%.2f %.2f,%.2f\"", x, y - 1.3 * r, x + 1.3 * r, y, x, y + 1.3 * r, x - 1.3 * r, y);
    }
    fprintf(f, " class=\"%s\" fill=\"#%06x\"/>\n", it->cls, it->rgb);
}

static void text(FILE *f, const pl_item *it)
{
    static const char *ANCHOR[] = {"start", "middle", "end"};
    fprintf(f, "<text class=\"%s\" x=\"%.2f\" y=\"%.2f\" font-size=\"%.2f\" text-anchor=\"%s\" fill=\"#%06x\"", it->cls,
            it->xy[0], it->xy[1], it->font, ANCHOR[it->anchor], it->rgb);
    if (it->vertical) fprintf(f, " transform=\"rotate(-90 %.2f %.2f)\"", it->xy[0], it->xy[1]);
    fprintf(f, ">");
    escaped(f, it->text);
    if (it->sup) {
        fprintf(f, "<tspan dy=\"%.2f\" font-size=\"%.2f\">", -0.45 * it->font, 0.7 * it->font);
        escaped(f, it->sup);
        fprintf(f, "</tspan>");
    }
    fprintf(f, "</text>\n");
}

static void item(FILE *f, const pl_item *it)
{
    const double *p = it->xy;
    switch (it->kind) {
    case PL_RECT:
        fprintf(f, "<rect class=\"%s\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\"", it->cls, p[0], p[1], p[2], p[3]);
        if (it->fill) fprintf(f, " fill=\"#%06x\"", it->rgb);
        else stroke(f, it);
        fprintf(f, "/>\n");
        break;
    case PL_LINE:
        fprintf(f, "<line class=\"%s\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"", it->cls, p[0], p[1], p[2], p[3]);
        stroke(f, it);
        fprintf(f, "/>\n");
        break;
    case PL_POLY:
        fprintf(f, "<polyline class=\"%s\" points=\"", it->cls);
        for (int i = 0; i < it->n; i++) fprintf(f, "%s%.2f,%.2f", i ? " " : "", p[2 * i], p[2 * i + 1]);
        fprintf(f, "\"");
        stroke(f, it);
        fprintf(f, " stroke-linejoin=\"round\"/>\n");
        break;
    case PL_MARK: mark(f, it); break;
    case PL_TEXT: text(f, it); break;
    }
}

void pl_write_svg(const pl_list *L, FILE *f)
{
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
               "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
               "font-family=\"%s\">\n",
            L->width, L->height, L->width, L->height, PL_FONT);
    for (int i = 0; i < L->n; i++) item(f, &L->it[i]);
    fprintf(f, "</svg>\n");
}
