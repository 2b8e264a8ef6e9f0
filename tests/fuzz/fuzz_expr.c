/* fuzz_expr.c: the expression language. Each input is one expression,
 * evaluated against a small symbol table (integers, a float, a hidden
 * device fact, values near the int64 limits). A failure must say where:
 * a column from 1 to the length + 1 and a message; a success must format.
 * Each input is evaluated four times: with the table and with none, in the
 * integer mode and in float mode. */
#include "expr.h"
#include "util.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static symtab tab;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc; (void)argv;
	symtab_set(&tab, "N", (value){ 0, 4096, 0 }, 0);
	symtab_set(&tab, "TILE_SIZE", (value){ 0, 32, 0 }, 0);
	symtab_set(&tab, "PAD", (value){ 0, 1, 0 }, 0);
	symtab_set(&tab, "ZERO", (value){ 0, 0, 0 }, 0);
	symtab_set(&tab, "NEG", (value){ 0, -7, 0 }, 0);
	symtab_set(&tab, "BIG", (value){ 0, INT64_MAX, 0 }, 0);
	symtab_set(&tab, "SMALL", (value){ 0, INT64_MIN, 0 }, 0);
	symtab_set(&tab, "alpha", (value){ 1, 0, 2.5 }, 0);
	symtab_set(&tab, "tiny", (value){ 1, 0, -1e-300 }, 0);
	symtab_set(&tab, "SM_COUNT", (value){ 0, 132, 0 }, 1);
	symtab_set(&tab, "L2_BYTES", (value){ 0, 50331648, 0 }, 1);
	return 0;
}

/* One evaluation and its invariants; fl: float mode, whose results are
 * finite floats. */
static void eval_one(const char *s, const symtab *t, int fl)
{
	value v;
	int col = 0;
	char *err = NULL;
	int r = (fl ? expr_eval_float : expr_eval)(s, t, &v, &col, &err);
	if (r == 0) {
		if (err || (fl && (!v.is_float || !isfinite(v.f))))
			__builtin_trap();
		char buf[64];
		value_format(v, buf, sizeof buf);
		if (!buf[0] || strlen(buf) >= sizeof buf)
			__builtin_trap();
	} else if (r != -1 || !err || !err[0] || col < 1 || (size_t)col > strlen(s) + 1) {
		__builtin_trap();
	}
	free(err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 4096)
		return 0;
	char *s = xstrndup((const char *)data, size);
	eval_one(s, &tab, 0);
	eval_one(s, NULL, 0); /* no names at all */
	eval_one(s, &tab, 1);
	eval_one(s, NULL, 1);
	free(s);
	return 0;
}
