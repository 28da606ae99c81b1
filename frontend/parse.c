/* parse.c — runs the reentrant flex scanner and the pure bison parser over a
 * buffer, and frees their state. */
#include "frontend/internal.h"
#define YYSTYPE HDG_YYSTYPE
#define YYLTYPE HDG_YYLTYPE
#include "frontend/parser.h"

typedef void *yyscan_t;
typedef struct yy_buffer_state *YY_BUFFER_STATE;
int hdg_yylex_init_extra(parse_ctx *extra, yyscan_t *scanner);
int hdg_yylex_destroy(yyscan_t scanner);
YY_BUFFER_STATE hdg_yy_scan_bytes(const char *bytes, int len, yyscan_t scanner);

bool hdg_parse_text(parse_ctx *pc, const char *src, size_t len)
{
    pc->line = pc->col = 1;
    if (len > (size_t)1 << 30) {
        hdg_diag_add(pc->diags, HDG_DIAG_ERROR, (hdg_loc){0, 0}, "file too large (more than 1 GiB)");
        return false;
    }
    yyscan_t scanner;
    if (hdg_yylex_init_extra(pc, &scanner)) {
        hdg_diag_add(pc->diags, HDG_DIAG_ERROR, (hdg_loc){0, 0}, "cannot start the lexer");
        return false;
    }
    hdg_yy_scan_bytes(src, (int)len, scanner);
    int rc = hdg_yyparse(scanner, pc);
    hdg_yylex_destroy(scanner);
    if (rc == 0) ast_balance(pc);
    return rc == 0 && !pc->syntax_errors && !pc->lex_error && !pc->nest_error;
}
