/* test_plot.c — runtime/output/plot.{c,h} and `hdgc convergence --plot` (HDGC: the
 * binary, from the environment):
 *  - hdg_plot_fit: the exact slope and intercept of a power law, NaN/zero/negative
 *    points left out, NaN with fewer than two points or one x;
 *  - hdg_plot_format by extension; hdg_plot_write refuses an unknown extension
 *    (EINPUT) and a missing folder (EIO), escapes XML in labels, draws no
 *    polyline for a series without points and no slope for one with one point;
 *  - poisson_exp at orders 1..2 on square:4,8,16 with --plot c.svg --json: one
 *    <polyline class="series"> per (order, unknown with an exact solution), 3
 *    points each, h falling and the error falling along it; every point lies on
 *    one affine map (log10 h, log10 e) -> pixels, fed with the JSON's errors;
 *    the legend "u, k=2: rate R" and the slope labels equal the JSON fits to
 *    the printed digits; the fitted rates are k+1 for q and u and k+2 for ustar
 *    (within 0.1);
 *  - the x axis fitted to the data: the points span at least 60% of the
 *    frame's width (h from 1/16 to 1/4, 0.6 of a decade: the axis of whole
 *    decades gave 47% or less), and at least 2 x labels, m x 10^k among them;
 *  - --plot c.png: 960x640, inside the plot frame (from the SVG of the same
 *    run) some but not most pixels are ink, and the first two series colours
 *    are there; the title band holds text;
 *  - the progress line: absent when stderr is a file (no '\r', no "run 1/"),
 *    present under a pseudo-terminal (script(1)), absent with --quiet. */
#include <cjson/cJSON.h>
#include <math.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/output/plot.h"
#include "support/util.h"
#include "test.h"

#define NMESH 3
#define NSER 6   /* 2 orders x (q, u, ustar) */

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = calloc((size_t)n + 1, 1);
    if (fread(s, 1, (size_t)n, f) != (size_t)n) n = 0;
    s[n] = '\0';
    fclose(f);
    return s;
}

static int count(const char *s, const char *what)
{
    int n = 0;
    for (const char *p = s; (p = strstr(p, what)); p += strlen(what)) n++;
    return n;
}

/* ---- the module ----------------------------------------------------------------- */

static void test_fit(void)
{
    double x[6] = {0.25, 0.125, NAN, 0.0625, 0.03125, 0.5}, y[6], s, c;
    for (int i = 0; i < 6; i++) y[i] = 3 * pow(x[i], 2.5);
    y[5] = 0;   /* left out */
    CHECK(hdg_plot_fit(6, x, y, &s, &c) == 4, "4 valid points");
    CHECK_NEAR(s, 2.5, 1e-12, "slope of 3 x^2.5");
    CHECK_NEAR(c, log(3), 1e-12, "intercept of 3 x^2.5");
    y[1] = -1;
    CHECK(hdg_plot_fit(2, x, y, &s, &c) == 1 && isnan(s) && isnan(c), "one point: no slope");
    double same[2] = {0.5, 0.5}, ys[2] = {1, 2};
    CHECK(hdg_plot_fit(2, same, ys, &s, NULL) == 2 && isnan(s), "one x: no slope");
}

static void test_format(void)
{
    CHECK(hdg_plot_format("a.svg") == HDG_PLOT_SVG, "a.svg");
    CHECK(hdg_plot_format("d/A.PNG") == HDG_PLOT_PNG, "A.PNG");
    CHECK(hdg_plot_format("a.pdf") == HDG_PLOT_UNKNOWN, "a.pdf");
    CHECK(hdg_plot_format(".svg") == HDG_PLOT_UNKNOWN && hdg_plot_format("d/.png") == HDG_PLOT_UNKNOWN, "no name");
    CHECK(hdg_plot_format("svg") == HDG_PLOT_UNKNOWN && hdg_plot_format(NULL) == HDG_PLOT_UNKNOWN, "no extension");
}

static void test_write(void)
{
    double x[3] = {0.5, 0.25, 0.125}, y[3] = {1e-2, 2.5e-3, 6.25e-4}, nan3[3] = {NAN, 0, -1};
    hdg_plot_series S[3] = {{"a<b & \"c\"", 3, x, y, 0, 0}, {"one", 1, x, y, 1, 1}, {"none", 3, x, nan3, 2, 2}};
    hdg_plot pl = {600, 400, "t'itle", "h", "e", 3, S, 1};
    hdg_error err = {0};
    CHECK(hdg_plot_write("p.pdf", &pl, &err) == HDG_EINPUT && strstr(err.msg, "unknown extension"), "pdf: %s", err.msg);
    CHECK(hdg_plot_write("no/such/dir/p.svg", &pl, &err) == HDG_EIO, "missing folder: %s", err.msg);
    pl.width = 100;
    CHECK(hdg_plot_write("p.svg", &pl, &err) == HDG_EINPUT, "too small: %s", err.msg);
    pl.width = 600;
    CHECK(hdg_plot_write("p.svg", &pl, &err) == HDG_OK, "p.svg: %s", err.msg);
    char *s = slurp("p.svg");
    CHECK(s && strstr(s, ">a&lt;b &amp; &quot;c&quot;</text>"), "label escaped");
    CHECK(s && strstr(s, ">t&apos;itle</text>"), "title escaped");
    CHECK(s && count(s, "<polyline class=\"series\"") == 2, "a polyline per series with points");
    CHECK(s && count(s, "<text class=\"rate\"") == 1 && strstr(s, ">2.00</text>"), "the slope of the 3-point series only");
    CHECK(s && count(s, "<text class=\"legend\"") == 3, "3 legend entries");
    free(s);
}

/* ---- hdgc convergence --plot --------------------------------------------------- */

typedef struct fits {
    double rate[NSER], err[NSER][NMESH];   /* series order: order-major, unknowns q, u, ustar */
    char name[NSER][16];
    int order[NSER];
} fits;

static const char *UNK[3] = {"q", "u", "ustar"};

static int read_json(const char *path, fits *F)
{
    char *s = slurp(path);
    cJSON *j = s ? cJSON_Parse(s) : NULL;
    free(s);
    if (!j) return 0;
    int nf = 0, nr = 0;
    cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItem(j, "fits"))
    {
        if (nf == NSER) break;
        F->order[nf] = cJSON_GetObjectItem(e, "order")->valueint;
        snprintf(F->name[nf], sizeof F->name[nf], "%s", cJSON_GetObjectItem(e, "unknown")->valuestring);
        F->rate[nf++] = cJSON_GetObjectItem(e, "rate")->valuedouble;
    }
    cJSON_ArrayForEach(e, cJSON_GetObjectItem(j, "runs"))
    {
        int o = cJSON_GetObjectItem(e, "order")->valueint - 1, m = nr++ % NMESH;
        for (int u = 0; u < 3 && o >= 0 && o < 2; u++)
            F->err[3 * o + u][m] = cJSON_GetObjectItem(cJSON_GetObjectItem(e, "errors"), UNK[u])->valuedouble;
    }
    cJSON_Delete(j);
    return nf == NSER && nr == 2 * NMESH;
}

/* The points of the i-th series polyline; returns how many. */
static int polyline(const char *svg, int i, double *px, double *py)
{
    const char *p = svg;
    for (int k = 0; k <= i; k++)
        if (!(p = strstr(p, "<polyline class=\"series\" points=\""))) return 0;
        else p += strlen("<polyline class=\"series\" points=\"");
    int n = 0;
    while (*p != '"' && n < 16) {
        char *e;
        px[n] = strtod(p, &e);
        if (*e != ',') return -1;
        py[n++] = strtod(e + 1, &e);
        p = e + (*e == ' ');
    }
    return n;
}

/* Affine in (log10 h, log10 e): the scales and offsets from every point agree. */
static void check_mapping(const double px[NSER][NMESH], const double py[NSER][NMESH], const fits *F)
{
    const double h[NMESH] = {0.25, 0.125, 0.0625};
    double sx = (px[0][1] - px[0][0]) / log10(h[1] / h[0]), sy = (py[0][1] - py[0][0]) / log10(F->err[0][1] / F->err[0][0]);
    double ox = px[0][0] - sx * log10(h[0]), oy = py[0][0] - sy * log10(F->err[0][0]);
    CHECK(sx > 0 && sy < 0, "h grows right, errors up: %g %g", sx, sy);
    for (int s = 0; s < NSER; s++)
        for (int m = 0; m < NMESH; m++) {
            CHECK_NEAR(px[s][m], ox + sx * log10(h[m]), 0.05, "x pixel of h");
            CHECK_NEAR(py[s][m], oy + sy * log10(F->err[s][m]), 0.05, "y pixel of the JSON error");
            if (m) CHECK(px[s][m] < px[s][m - 1] && py[s][m] > py[s][m - 1], "series %d: h and the error fall", s);
        }
}

static void check_legend(const char *svg, const fits *F)
{
    const char *p = svg;
    int n = 0;
    while ((p = strstr(p, "<text class=\"legend\"")) && n < NSER + 1) {
        p = strchr(p, '>') + 1;
        char name[16], want[64], got[64];
        int k;
        double r;
        CHECK(sscanf(p, "%15[^,], k=%d: rate %lf", name, &k, &r) == 3, "legend entry %.30s", p);
        snprintf(got, sizeof got, "%.*s", (int)(strchr(p, '<') - p), p);
        if (n < NSER) {
            snprintf(want, sizeof want, "%s, k=%d: rate %.2f", F->name[n], F->order[n], F->rate[n]);
            CHECK(!strcmp(got, want), "legend '%s', JSON '%s'", got, want);
            snprintf(want, sizeof want, ">%.2f</text>", F->rate[n]);
            CHECK(strstr(svg, want) != NULL, "slope label %s", want);
            double theory = F->order[n] + 1 + !strcmp(F->name[n], "ustar");
            CHECK_NEAR(F->rate[n], theory, 0.1, F->name[n]);
        }
        n++;
    }
    CHECK(n == NSER, "%d legend entries", n);
}

static int run(const char *fmt, const char *hdgc, const char *out)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, fmt, hdgc, HDG_TEST_DATA "/hdg/poisson_exp.hdg", out);
    return system(cmd);
}

#define CONV "'%s' convergence '%s' --orders 1..2 --meshes 4,8,16 --json c.json --plot %s"

static void test_svg(const char *hdgc, fits *F)
{
    CHECK(run(CONV " --quiet > quiet.txt", hdgc, "c.svg") == 0, "hdgc convergence --plot c.svg");
    char *q = slurp("quiet.txt"), *svg = slurp("c.svg");
    CHECK(q && !*q, "--quiet: nothing on stdout: '%s'", q ? q : "");
    CHECK(read_json("c.json", F), "c.json: 6 fits, 6 runs");
    CHECK(svg && count(svg, "<polyline class=\"series\"") == NSER, "6 series");
    double px[NSER][NMESH], py[NSER][NMESH], qx[16], qy[16];
    for (int s = 0; s < NSER && svg; s++) {
        int n = polyline(svg, s, qx, qy);
        CHECK(n == NMESH, "series %d: %d points", s, n);
        for (int m = 0; m < NMESH; m++) px[s][m] = qx[m], py[s][m] = qy[m];
    }
    if (svg) check_mapping((const double(*)[NMESH])px, (const double(*)[NMESH])py, F);
    if (svg) check_legend(svg, F);
    double fx = 0, fy = 0, fw = 0, fh = 0, lo = INFINITY, hi = -INFINITY;
    const char *r = svg ? strstr(svg, "<rect class=\"frame\"") : NULL;
    CHECK(r && sscanf(r, "<rect class=\"frame\" x=\"%lf\" y=\"%lf\" width=\"%lf\" height=\"%lf\"", &fx, &fy, &fw, &fh) == 4,
          "the frame");
    for (int k = 0; k < NSER; k++)
        for (int m = 0; m < NMESH; m++) lo = fmin(lo, px[k][m]), hi = fmax(hi, px[k][m]);
    CHECK(fw > 0 && lo > fx && hi < fx + fw && (hi - lo) / fw >= 0.6, "the points span %.0f%% of the x axis",
          100 * (hi - lo) / fw);
    int nx = 0, minor = 0;
    for (const char *t = svg; t && (t = strstr(t, "<text class=\"tick\" x=\"")); t++) {
        double tx, ty;
        if (sscanf(t, "<text class=\"tick\" x=\"%lf\" y=\"%lf\"", &tx, &ty) == 2 && ty > fy + fh)
            nx++, minor += strstr(t, "\xc3\x97" "10<") && strstr(t, "\xc3\x97" "10<") < strchr(t, '\n');
    }
    CHECK(nx >= 2 && minor >= 1, "%d x labels, %d of them m x 10^k", nx, minor);
    CHECK(svg && strstr(svg, ">poisson_exp: L2 error against h</text>"), "title with the problem name");
    CHECK(svg && count(svg, "<text class=\"tick\"") >= 4, "tick labels");
    free(q), free(svg);
}

/* ---- PNG ------------------------------------------------------------------------ */

static unsigned char *decode(const char *path, int *w, int *h)
{
    png_image im;
    memset(&im, 0, sizeof im);
    im.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&im, path)) return NULL;
    im.format = PNG_FORMAT_RGB;
    unsigned char *rgb = malloc(PNG_IMAGE_SIZE(im));
    if (!png_image_finish_read(&im, NULL, rgb, 0, NULL)) return free(rgb), NULL;
    *w = (int)im.width, *h = (int)im.height;
    return rgb;
}

static void test_png(const char *hdgc)
{
    char *svg = slurp("c.svg");
    double fx = 0, fy = 0, fw = 0, fh = 0;
    const char *r = svg ? strstr(svg, "<rect class=\"frame\"") : NULL;
    CHECK(r && sscanf(r, "<rect class=\"frame\" x=\"%lf\" y=\"%lf\" width=\"%lf\" height=\"%lf\"", &fx, &fy, &fw, &fh) == 4,
          "the frame in the SVG");
    free(svg);
    CHECK(run(CONV " --quiet", hdgc, "c.png") == 0, "hdgc convergence --plot c.png");
    int w = 0, h = 0;
    unsigned char *rgb = decode("c.png", &w, &h);
    CHECK(rgb && w == 960 && h == 640, "c.png %dx%d", w, h);
    if (!rgb || w != 960 || h != 640) { free(rgb); return; }
    long ink = 0, area = 0, blue = 0, orange = 0, title = 0;
    for (int y = (int)fy + 3; y < (int)(fy + fh) - 3; y++)
        for (int x = (int)fx + 3; x < (int)(fx + fw) - 3; x++) {
            const unsigned char *p = rgb + 3 * ((size_t)y * w + x);
            unsigned c = (unsigned)p[0] << 16 | (unsigned)p[1] << 8 | p[2];
            area++;
            ink += p[0] + p[1] + p[2] < 600;   /* not white, not the light grid */
            blue += c == 0x1f77b4, orange += c == 0xff7f0e;
        }
    for (int y = 0; y < (int)fy; y++)
        for (int x = 0; x < w; x++) title += rgb[3 * ((size_t)y * w + x)] < 128;
    CHECK(ink > area / 200 && ink < area / 3, "ink in the plot area: %ld of %ld", ink, area);
    CHECK(blue > 30 && orange > 30, "order 1 (blue) %ld and order 2 (orange) %ld pixels", blue, orange);
    CHECK(title > 50, "title pixels %ld", title);
    free(rgb);
}

/* ---- the progress line ---------------------------------------------------------- */

static void test_progress(const char *hdgc)
{
    CHECK(run(CONV " > out.txt 2> err.txt", hdgc, "p.svg") == 0, "run with stderr in a file");
    char *out = slurp("out.txt"), *err = slurp("err.txt");
    CHECK(out && strstr(out, "poisson_exp, order 2") && strstr(out, "plot written to p.svg"), "the table on stdout");
    CHECK(err && !strchr(err, '\r') && !strstr(err, "run 1/"), "no progress line in a file: '%s'", err ? err : "");
    free(out), free(err);
    CHECK(system("command -v script > /dev/null") == 0, "script(1) is installed");
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "TERM=xterm script -qec \"" CONV "\" /dev/null > tty.txt 2>&1", hdgc,
             HDG_TEST_DATA "/hdg/poisson_exp.hdg", "p.svg");
    CHECK(system(cmd) == 0, "run under script");
    char *tty = slurp("tty.txt");
    CHECK(tty && strstr(tty, "run 1/6: order 1, square:4") && strstr(tty, "run 6/6: order 2, square:16, ETA"),
          "progress on a terminal: '%s'", tty ? tty : "");
    CHECK(tty && strstr(tty, "poisson_exp, order 1"), "and the table");
    free(tty);
    snprintf(cmd, sizeof cmd, "TERM=xterm script -qec \"" CONV " --quiet\" /dev/null > tty.txt 2>&1", hdgc,
             HDG_TEST_DATA "/hdg/poisson_exp.hdg", "p.svg");
    CHECK(system(cmd) == 0, "--quiet under script");
    tty = slurp("tty.txt");
    CHECK(tty && !strstr(tty, "run 1/") && !strstr(tty, "order 1"), "--quiet: nothing: '%s'", tty ? tty : "");
    free(tty);
}

int main(void)
{
    char dir[] = "/tmp/test_plot.XXXXXX";   /* its own folder: ctest -j runs others beside it */
    if (!mkdtemp(dir) || chdir(dir)) return fprintf(stderr, "no temporary folder\n"), 1;
    test_fit();
    test_format();
    test_write();
    const char *hdgc = getenv("HDGC");
    CHECK(hdgc != NULL, "HDGC names the hdgc binary");
    if (hdgc) {
        fits F;
        memset(&F, 0, sizeof F);
        test_svg(hdgc, &F);
        test_png(hdgc);
        test_progress(hdgc);
    }
    if (!test_failures) system("rm -rf \"$PWD\"");   /* kept for a look when something failed */
    return test_summary("plot");
}
