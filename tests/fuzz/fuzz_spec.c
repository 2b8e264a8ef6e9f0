/* fuzz_spec.c: the kernel file parser. Each input is the text of a .cu
 * file: spec_parse, then for every kernel spec_effective and (as a user's
 * `run` would) the planner: values, the launch plan and its limits check;
 * then spec_free. Errors must name their place as "fuzz.cu:LINE:COL: ",
 * with a line inside the file and a column from 1. The include scanner of
 * the compile cache key reads the same text (headers looked for in a
 * directory that does not exist; absolute names are opened as they are,
 * so the scanner meets /dev/zero and the like). */
#include "arch.h"
#include "incscan.h"
#include "plan.h"
#include "spec.h"
#include "util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define PATH "fuzz.cu"

/* "fuzz.cu:L:C: message" with 1 <= L <= lines + 1 and C >= 1; else trap. */
static void check_location(const char *err, int lines)
{
	if (!err || strncmp(err, PATH ":", sizeof PATH) != 0)
		__builtin_trap();
	char *p;
	long line = strtol(err + sizeof PATH, &p, 10);
	if (*p != ':' || line < 1 || line > lines + 1)
		__builtin_trap();
	long col = strtol(p + 1, &p, 10);
	if (p[0] != ':' || p[1] != ' ' || col < 1 || !p[2])
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 65536)
		return 0;
	char *src = xstrndup((const char *)data, size);
	int lines = 1;
	for (const char *c = src; *c; c++)
		lines += *c == '\n';
	spec s;
	char *err = NULL;
	inc_dir dirs[] = { { "/nonexistent-fuzz-include-dir", 0 }, { "/nonexistent-fuzz-toolkit", 1 } };
	inc_graph g;
	if (inc_scan(PATH, src, dirs, 2, NULL, NULL, &g, &err) == 0) {
		if (err)
			__builtin_trap();
		inc_graph_free(&g);
	} else {
		/* about the kernel file (fuzz.cu:LINE: ...) or a header it named */
		if (!err || !*err)
			__builtin_trap();
		free(err);
		err = NULL;
	}
	if (spec_parse(PATH, src, &s, &err) != 0) {
		check_location(err, lines);
		free(err);
		free(src);
		return 0;
	}
	if (err)
		__builtin_trap(); /* success leaves no message */
	devinfo dev;
	devinfo_for_arch(90, &dev);
	timing_opts topt = { .warmup = 1, .min_reps = 1, .max_reps = 1, .do_check = 1, .do_time = 1 };
	symtab vals;
	int have_vals = plan_values(&s, NULL, &dev, &vals, &err) == 0;
	if (!have_vals) {
		check_location(err, lines);
		free(err);
		err = NULL;
	}
	plan *p = xcalloc(1, sizeof *p);
	for (int k = 0; k < s.nkernels; k++) {
		spec_launch eff;
		spec_effective(&s, k, &eff);
		if (eff.ngrid < 0 || eff.ngrid > SPEC_MAX_DIMS || eff.nblock < 0 || eff.nblock > SPEC_MAX_DIMS ||
		    eff.nchecks < -1 || eff.nchecks > SPEC_MAX_CHECKS)
			__builtin_trap();
		if (!have_vals || s.kernels[k].is_template || s.kernels[k].skip)
			continue;
		if (plan_build(&s, k, &vals, &dev, &topt, p, &err) == 0) {
			if (plan_validate(&s, k, p, &dev, 0, &err) != 0 && !err)
				__builtin_trap();
		} else if (!err) {
			__builtin_trap();
		}
		free(err);
		err = NULL;
	}
	free(p);
	if (have_vals)
		symtab_free(&vals);
	spec_free(&s);
	free(src);
	return 0;
}
