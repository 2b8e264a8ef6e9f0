/* fuzz_board.c: what a class board's client and verifier read from
 * outside: an exercise file (exercise.h) and a board's JSON reply
 * (jtree.h), both from the same input. An exercise read holds its limits'
 * ranges and NUL-terminated names, a refusal says where; a JSON tree read
 * is walked to its leaves, a refusal says why. Nothing is read past the
 * input's end. */
#include "exercise.h"
#include "jtree.h"
#include "util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static size_t walk(const jt *t, int depth)
{
	if (depth > JT_MAX_DEPTH + 1)
		abort();
	size_t n = 1;
	for (int i = 0; i < t->n; i++) {
		if (t->kind == JT_OBJ && !t->keys[i])
			abort();
		n += walk(&t->v[i], depth + 1);
	}
	if (t->kind == JT_STR && !t->str)
		abort();
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = xstrndup((const char *)data, size);
	struct exercise ex;
	char err[256];
	err[0] = 0;
	if (exercise_parse(text, "f.exercise", &ex, err, sizeof err) == 0) {
		if (strnlen(ex.name, sizeof ex.name) == sizeof ex.name || !ex.kernel[0] || !ex.baseline[0] ||
		    ex.time_limit_s < 1 || ex.mem_limit_mb < 1 || ex.source_limit < 1 || ex.timed.n < 1 ||
		    ex.nchecks > EX_MAX_CHECK_SIZES || ex.fresh_seeds < 1 || ex.fresh_seeds > 8)
			abort();
		char buf[64];
		exercise_size_text(&ex.timed, buf, sizeof buf);
	} else if (strncmp(err, "f.exercise:", 11) != 0) {
		abort();
	}
	jt t;
	char *why = NULL;
	if (jt_parse((const char *)data, size, &t, &why) == 0) {
		walk(&t, 0);
		jt_free(&t);
	} else if (!why || strncmp(why, "not JSON: ", 10) != 0) {
		abort();
	}
	free(why);
	free(text);
	return 0;
}
