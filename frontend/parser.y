/* parser.y — the grammar of the .hdg language (pure bison, with locations).
 * Builds the declaration list of parse_ctx; recovers from a syntax error at
 * the next declaration keyword, so one run reports several errors. */
%define api.pure full
%define api.prefix {hdg_yy}
%define api.token.prefix {TOK_}
%define parse.error custom
%locations
%lex-param {yyscan_t scanner}
%parse-param {yyscan_t scanner} {parse_ctx *pc}

%code requires {
#include "frontend/internal.h"
typedef void *yyscan_t;
}

%code {
#include <stdio.h>
#include <string.h>

int hdg_yylex(HDG_YYSTYPE *lval, HDG_YYLTYPE *lloc, yyscan_t scanner);
static void hdg_yyerror(HDG_YYLTYPE *loc, yyscan_t scanner, parse_ctx *pc, const char *msg);
#define L(l) ((hdg_loc){(l).first_line, (l).first_column})
/* V^(NxM): N*N for the square tensors 2x2 and 3x3, -1 for any other shape. */
static int tensor_power(bool is_int, double n, double m)
{
    return is_int && (n == 2 || n == 3) && m == n ? (int)(n * n) : -1;
}
}

%union {
    struct { double value; bool is_int; } number;
    const char *name;
    ast *node;
    item *it;
    ilist list;
    int op;
}

%token <name> NAME "name"
%token <number> NUMBER "number"
%token PROBLEM "problem" MESH "mesh" DEGREE "degree" PARAM "param" FUNC "func"
%token SPACE "space" UNKNOWN "unknown" TRACE "trace" FLUX "flux"
%token EQUATION "equation" BOUNDARY "boundary" EXACT "exact" INITIAL "initial"
%token TIME "time" FOR "for" ON "on" IF "if" POSTPROCESS "postprocess" MEAN "mean"
%token RIGID "rigid"
%token LE "<=" GE ">=" EQ "==" NE "!="

%type <node> expr primary cond
%type <it> typed marker space_kind degree_ref name_item assign ext_item
%type <list> typed_list names opt_names markers assign_list ext_list time_opts args opt_args
%type <op> relop

%left '+' '-'
%left '*' '/'
%precedence UMINUS
%right '^'

%%

file:
    %empty
  | file decl
  ;

decl:
    PROBLEM NAME {
        decl *d = decl_new(pc, D_PROBLEM, L(@1));
        d->name = $2; d->name_loc = L(@2); decl_add(pc, d);
    }
  | MESH NAME {
        decl *d = decl_new(pc, D_MESH, L(@1));
        d->name = $2; d->name_loc = L(@2); decl_add(pc, d);
    }
  | DEGREE NAME '=' NUMBER {
        decl *d = decl_new(pc, D_DEGREE, L(@1));
        d->name = $2; d->name_loc = L(@2);
        d->num = $4.value; d->num_is_int = $4.is_int; d->num_loc = L(@4); decl_add(pc, d);
    }
  | PARAM NAME '=' expr {
        decl *d = decl_new(pc, D_PARAM, L(@1));
        d->name = $2; d->name_loc = L(@2); d->expr = $4; decl_add(pc, d);
    }
  | FUNC NAME '(' opt_names ')' '=' expr {
        decl *d = decl_new(pc, D_FUNC, L(@1));
        d->name = $2; d->name_loc = L(@2); d->items = $4; d->expr = $7; decl_add(pc, d);
    }
  | SPACE NAME '=' space_kind '(' NAME degree_ref ')' {
        decl *d = decl_new(pc, D_SPACE, L(@1));
        d->name = $2; d->name_loc = L(@2);
        d->space_kind = $4->name; d->space_kind_loc = $4->loc;
        d->poly = $6; d->poly_loc = L(@6);
        d->deg_name = $7->name; d->deg_loc = $7->loc; d->num = $7->power;
        d->deg_offset = $7->deg_offset; d->deg_offset_loc = $7->power_loc; decl_add(pc, d);
    }
  | UNKNOWN typed_list {
        decl *d = decl_new(pc, D_UNKNOWN, L(@1)); d->items = $2; decl_add(pc, d);
    }
  | TRACE typed_list {
        decl *d = decl_new(pc, D_TRACE, L(@1)); d->items = $2; decl_add(pc, d);
    }
  | POSTPROCESS typed_list {
        decl *d = decl_new(pc, D_POST, L(@1)); d->items = $2; decl_add(pc, d);
    }
  | MEAN NAME '=' expr {
        decl *d = decl_new(pc, D_MEAN, L(@1));
        d->name = $2; d->name_loc = L(@2); d->expr = $4;
        if ($4->kind == AST_NAME) { d->label = $4->name; d->label_loc = $4->loc; }
        decl_add(pc, d);
    }
  | RIGID NAME '=' expr {
        decl *d = decl_new(pc, D_RIGID, L(@1));
        d->name = $2; d->name_loc = L(@2); d->expr = $4; decl_add(pc, d);
    }
  | FLUX NAME '=' expr {
        decl *d = decl_new(pc, D_FLUX, L(@1));
        d->name = $2; d->name_loc = L(@2); d->expr = $4; decl_add(pc, d);
    }
  | EQUATION expr '=' expr FOR typed {
        decl *d = decl_new(pc, D_EQUATION, L(@1));
        d->lhs = $2; d->expr = $4; d->test = *$6; d->test.next = NULL; decl_add(pc, d);
    }
  | BOUNDARY NAME NAME '=' expr ON markers {
        decl *d = decl_new(pc, D_BCVALUE, L(@1));
        d->label = $2; d->label_loc = L(@2); d->name = $3; d->name_loc = L(@3);
        d->expr = $5; d->markers = $7; decl_add(pc, d);
    }
  | BOUNDARY NAME NAME '[' expr ']' '=' expr ON markers {
        decl *d = decl_new(pc, D_BCVALUE, L(@1));
        d->label = $2; d->label_loc = L(@2); d->name = $3; d->name_loc = L(@3);
        d->comp = $5; d->comp_loc = L(@5);
        d->expr = $8; d->markers = $10; decl_add(pc, d);
    }
  | BOUNDARY NAME NAME '.' NAME '=' expr ON markers {
        decl *d = decl_new(pc, D_BCVALUE, L(@1));
        d->label = $2; d->label_loc = L(@2); d->name = $3; d->name_loc = L(@3);
        d->comp_name = $5; d->comp_loc = L(@5);
        d->expr = $7; d->markers = $9; decl_add(pc, d);
    }
  | BOUNDARY NAME ON markers ':' ext_list {
        decl *d = decl_new(pc, D_BCEXT, L(@1));
        d->label = $2; d->label_loc = L(@2); d->markers = $4; d->items = $6; decl_add(pc, d);
    }
  | EXACT assign_list {
        decl *d = decl_new(pc, D_EXACT, L(@1)); d->items = $2; decl_add(pc, d);
    }
  | INITIAL assign_list {
        decl *d = decl_new(pc, D_INITIAL, L(@1)); d->items = $2; decl_add(pc, d);
    }
  | TIME NAME time_opts {
        decl *d = decl_new(pc, D_TIME, L(@1));
        d->name = $2; d->name_loc = L(@2); d->items = $3; decl_add(pc, d);
    }
  | error
  ;

name_item:
    NAME                      { $$ = item_new(pc, $1, L(@1)); }
  ;

names:
    name_item                 { $$ = ilist_one($1); }
  | names ',' name_item       { $$ = ilist_add($1, $3); }
  ;

opt_names:
    %empty                    { $$ = (ilist){0}; }
  | names
  ;

space_kind:
    NAME                      { $$ = item_new(pc, $1, L(@1)); }
  | TRACE                     { $$ = item_new(pc, "trace", L(@1)); }
  ;

degree_ref:
    NAME                      { $$ = item_new(pc, $1, L(@1)); $$->power = -1; }
  | NAME '+' NUMBER {
        $$ = item_new(pc, $1, L(@1)); $$->power = -1;
        $$->deg_offset = $3.is_int && $3.value >= 1 ? (int)$3.value : -1; $$->power_loc = L(@3);
    }
  | NUMBER {
        $$ = item_new(pc, NULL, L(@1));
        $$->power = $1.is_int ? (int)$1.value : -2;
    }
  ;

typed:
    NAME ':' NAME {
        $$ = item_new(pc, $1, L(@1)); $$->space = $3; $$->space_loc = L(@3);
    }
  | NAME ':' NAME '^' NUMBER {
        $$ = item_new(pc, $1, L(@1)); $$->space = $3; $$->space_loc = L(@3);
        $$->power = $5.is_int ? (int)$5.value : -1; $$->power_loc = L(@5);
    }
  | NAME ':' NAME '^' '(' NUMBER NAME ')' {      /* V^(2x2), V^(3x3): the lexer reads 2, x2 */
        $$ = item_new(pc, $1, L(@1)); $$->space = $3; $$->space_loc = L(@3);
        $$->tensor = true; $$->power_loc = L(@6);
        $$->power = tensor_power($6.is_int, $6.value, !strcmp($7, "x2") ? 2 : !strcmp($7, "x3") ? 3 : 0);
    }
  | NAME ':' NAME '^' '(' NUMBER NAME NUMBER ')' {   /* V^(2 x 2) */
        $$ = item_new(pc, $1, L(@1)); $$->space = $3; $$->space_loc = L(@3);
        $$->tensor = true; $$->power_loc = L(@6);
        $$->power = tensor_power($6.is_int, $6.value, !strcmp($7, "x") && $8.is_int ? $8.value : 0);
    }
  ;

typed_list:
    typed                     { $$ = ilist_one($1); }
  | typed_list ',' typed      { $$ = ilist_add($1, $3); }
  ;

marker:
    NAME                      { $$ = item_new(pc, $1, L(@1)); }
  | NUMBER {
        char buf[32];
        if ($1.is_int) snprintf(buf, sizeof buf, "%.0f", $1.value);
        $$ = item_new(pc, $1.is_int ? hdg_arena_strdup(pc->arena, buf) : NULL, L(@1));
    }
  ;

markers:
    marker                    { $$ = ilist_one($1); }
  | markers ',' marker        { $$ = ilist_add($1, $3); }
  ;

assign:
    NAME '=' expr             { $$ = item_new(pc, $1, L(@1)); $$->expr = $3; }
  ;

assign_list:
    assign                    { $$ = ilist_one($1); }
  | assign_list ',' assign    { $$ = ilist_add($1, $3); }
  ;

ext_item:
    expr '=' expr             { $$ = item_new(pc, NULL, L(@2)); $$->lhs = $1; $$->expr = $3; }
  ;

ext_list:
    ext_item                  { $$ = ilist_one($1); }
  | ext_list ',' ext_item     { $$ = ilist_add($1, $3); }
  ;

time_opts:
    %empty                    { $$ = (ilist){0}; }
  | time_opts ',' assign      { $$ = ilist_add($1, $3); }
  ;

expr:
    expr '+' expr             { $$ = ast_bin(pc, L(@2), '+', $1, $3); }
  | expr '-' expr             { $$ = ast_bin(pc, L(@2), '-', $1, $3); }
  | expr '*' expr             { $$ = ast_bin(pc, L(@2), '*', $1, $3); }
  | expr '/' expr             { $$ = ast_bin(pc, L(@2), '/', $1, $3); }
  | expr '^' expr             { $$ = ast_bin(pc, L(@2), '^', $1, $3); }
  | '-' expr %prec UMINUS     { $$ = ast_unary(pc, L(@1), $2); }
  | '+' expr %prec UMINUS     { $$ = $2; }
  | primary
  ;

primary:
    NUMBER                    { $$ = ast_num(pc, L(@1), $1.value, $1.is_int); }
  | NAME                      { $$ = ast_name(pc, L(@1), $1); }
  | NAME '(' opt_args ')'     { $$ = ast_call(pc, L(@1), $1, $3); }
  | '(' expr ')'              { $$ = $2; }
  | '(' expr ',' expr ')'     { $$ = ast_pair(pc, AST_VINT, L(@1), $2, $4); }
  | '<' expr ',' expr '>'     { $$ = ast_pair(pc, AST_BINT, L(@1), $2, $4); }
  | '[' expr ',' expr ']'     { $$ = ast_pair(pc, AST_VEC, L(@1), $2, $4); }
  | '[' expr ',' expr ',' expr ']' { $$ = ast_vec3(pc, L(@1), $2, $4, $6); }
  | IF '(' cond ',' expr ',' expr ')' { $$ = ast_if(pc, L(@1), $3, $5, $7); }
  | TRACE '(' opt_args ')'    { $$ = ast_call(pc, L(@1), "trace", $3); }   /* trace(A) of a matrix */
  | primary '[' expr ']'      { $$ = ast_index(pc, L(@3), $1, $3, NULL, NULL); }
  | primary '[' expr ',' expr ']' { $$ = ast_index(pc, L(@3), $1, $3, $5, NULL); }
  | primary '.' NAME          { $$ = ast_index(pc, L(@3), $1, NULL, NULL, $3); }
  ;

cond:
    expr relop expr {
        $$ = ast_pair(pc, AST_CMP, L(@2), $1, $3); $$->op = $2;
    }
  ;

relop:
    '<'  { $$ = HDG_CMP_LT; }
  | LE   { $$ = HDG_CMP_LE; }
  | '>'  { $$ = HDG_CMP_GT; }
  | GE   { $$ = HDG_CMP_GE; }
  | EQ   { $$ = HDG_CMP_EQ; }
  | NE   { $$ = HDG_CMP_NE; }
  ;

args:
    expr                      { item *it = item_new(pc, NULL, L(@1)); it->expr = $1; $$ = ilist_one(it); }
  | args ',' expr             { item *it = item_new(pc, NULL, L(@3)); it->expr = $3; $$ = ilist_add($1, it); }
  ;

opt_args:
    %empty                    { $$ = (ilist){0}; }
  | args
  ;

%%

/* "'for'", "a name 'kapa'", "end of file" ... */
static void symbol_text(char *buf, size_t n, yysymbol_kind_t sym, const char *tok)
{
    switch (sym) {
    case YYSYMBOL_YYEOF: snprintf(buf, n, "end of file"); return;
    case YYSYMBOL_NAME:
        if (tok) snprintf(buf, n, "name '%s'", tok);
        else snprintf(buf, n, "a name");
        return;
    case YYSYMBOL_NUMBER:
        if (tok) snprintf(buf, n, "number %s", tok);
        else snprintf(buf, n, "a number");
        return;
    default: break;
    }
    const char *s = yysymbol_name(sym);
    if (s[0] == '"') snprintf(buf, n, "'%.*s'", (int)strlen(s) - 2, s + 1);
    else if (sym >= YYSYMBOL_PROBLEM && sym <= YYSYMBOL_RIGID) snprintf(buf, n, "'%s'", s);   /* a keyword */
    else snprintf(buf, n, "%s", s);
}

/* The keywords that begin a declaration (where the parser recovers). */
static bool starts_decl(yysymbol_kind_t s)
{
    switch (s) {
    case YYSYMBOL_PROBLEM: case YYSYMBOL_MESH: case YYSYMBOL_DEGREE: case YYSYMBOL_PARAM: case YYSYMBOL_FUNC:
    case YYSYMBOL_SPACE: case YYSYMBOL_UNKNOWN: case YYSYMBOL_TRACE: case YYSYMBOL_FLUX: case YYSYMBOL_EQUATION:
    case YYSYMBOL_BOUNDARY: case YYSYMBOL_EXACT: case YYSYMBOL_INITIAL: case YYSYMBOL_TIME:
    case YYSYMBOL_POSTPROCESS: case YYSYMBOL_MEAN: case YYSYMBOL_RIGID: case YYSYMBOL_YYEOF:
        return true;
    default: return false;
    }
}

/* A name where a keyword was expected: the keyword it misspells ("equaton": 'equation'; same
 * first letter), or NULL. */
static const char *misspelt_keyword(const char *tok, const yysymbol_kind_t *expected, int n)
{
    const char *words[64];
    int nw = 0;
    for (int i = 0; i < n && nw < 64; i++)
        if (expected[i] >= YYSYMBOL_PROBLEM && expected[i] <= YYSYMBOL_RIGID) words[nw++] = yysymbol_name(expected[i]);
    const char *near = hdg_closest_name(tok, words, nw);
    return near && near[0] == tok[0] ? near : NULL;   /* 'junk' is no misspelt 'func' */
}

/* A declaration left incomplete at the end of its line is reported there, not at the next
 * declaration's keyword: an equation without its 'for NAME : SPACE' at the equation. */
static bool report_incomplete(parse_ctx *pc, yysymbol_kind_t look, const HDG_YYLTYPE *at,
                              const yysymbol_kind_t *expected, int n)
{
    hdg_loc last = look == YYSYMBOL_YYEOF ? pc->tok_end : pc->prev_end;   /* the lookahead is lexed, EOF is not */
    if (!starts_decl(look) || last.line <= 0 || (look != YYSYMBOL_YYEOF && at->first_line <= last.line))
        return false;
    bool wants_for = false;
    for (int i = 0; i < n; i++) wants_for |= expected[i] == YYSYMBOL_FOR;
    char next[128];
    if (look == YYSYMBOL_YYEOF) snprintf(next, sizeof next, "the file ends");
    else snprintf(next, sizeof next, "line %d begins with '%s'", at->first_line, yysymbol_name(look));
    hdg_loc end = {last.line, last.col + 1};
    if (wants_for)
        hdg_diag_add(pc->diags, HDG_DIAG_ERROR, end, "syntax error: the equation ends here without its test "
                     "function: expected 'for NAME : SPACE' (%s)", next);
    else
        hdg_diag_add(pc->diags, HDG_DIAG_ERROR, end, "syntax error: the declaration ends here unfinished (%s)", next);
    return true;
}

static int yyreport_syntax_error(const yypcontext_t *ctx, yyscan_t scanner, parse_ctx *pc)
{
    (void)scanner;
    if (pc->nest_error) return 0;
    pc->syntax_errors++;
    yysymbol_kind_t look = yypcontext_token(ctx);
    const HDG_YYLTYPE *at = yypcontext_location(ctx);
    yysymbol_kind_t all[64];
    int nall = yypcontext_expected_tokens(ctx, all, 64);
    if (report_incomplete(pc, look, at, all, nall)) return 0;
    hdg_loc loc = L(*at);
    if (look == YYSYMBOL_YYEOF) loc = (hdg_loc){pc->line, pc->col};
    char what[96], msg[512];
    symbol_text(what, sizeof what, look, pc->tok);
    int len = snprintf(msg, sizeof msg, "syntax error: unexpected %s", what);
    const char *near = look == YYSYMBOL_NAME ? misspelt_keyword(pc->tok, all, nall) : NULL;
    if (near) {
        hdg_diag_add(pc->diags, HDG_DIAG_ERROR, loc, "%s; did you mean '%s'?", msg, near);
        return 0;
    }
    yysymbol_kind_t expected[6];
    int n = yypcontext_expected_tokens(ctx, expected, 6);
    if (n > 0 && n <= 5) {
        len += snprintf(msg + len, sizeof msg - (size_t)len, ", expected ");
        for (int i = 0; i < n && len < (int)sizeof msg - 100; i++) {
            symbol_text(what, sizeof what, expected[i], NULL);
            len += snprintf(msg + len, sizeof msg - (size_t)len, "%s%s",
                            i == 0 ? "" : i == n - 1 ? " or " : ", ", what);
        }
    }
    hdg_diag_add(pc->diags, HDG_DIAG_ERROR, loc, "%s", msg);
    return 0;
}

static void hdg_yyerror(HDG_YYLTYPE *loc, yyscan_t scanner, parse_ctx *pc, const char *msg)
{
    (void)scanner;
    pc->syntax_errors++;
    if (!strcmp(msg, "memory exhausted"))
        hdg_diag_add(pc->diags, HDG_DIAG_ERROR, L(*loc),
                     "expression nested too deeply (the parser's stack is full)");
    else
        hdg_diag_add(pc->diags, HDG_DIAG_ERROR, L(*loc), "%s", msg);
}
