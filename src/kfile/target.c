/* target.c: the architecture a kernel file is compiled for (`//@ arch`). */
#include "target.h"
#include "util.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

int target_parse(const char *w, int n, arch_target *t, char **why)
{
	t->sm = 0;
	t->suffix = 0;
	if (n == 6 && strncmp(w, "native", 6) == 0)
		return 0;
	if (n == 8 && strncmp(w, "native+a", 8) == 0) {
		t->suffix = 'a';
		return 0;
	}
	if (n < 5 || strncmp(w, "sm_", 3) != 0)
		return fail(why, "'%.*s' is not a target: expected sm_XY, sm_XYa, sm_XYf, native or native+a", n, w);
	int i = 3, v = 0;
	while (i < n && isdigit((unsigned char)w[i]) && v < 10000)
		v = v * 10 + (w[i++] - '0');
	if (i == 3 || v < 30 || v > 1299)
		return fail(why, "'%.*s' is not a target: expected sm_ and a compute capability such as sm_90",
		            n, w);
	if (i < n && (w[i] == 'a' || w[i] == 'f') && i + 1 == n)
		t->suffix = w[i++];
	if (i != n)
		return fail(why, "'%.*s' is not a target: after sm_%d only 'a' (arch-specific) or 'f' "
		            "(family) may follow", n, w, v);
	if (t->suffix && v < 90)
		return fail(why, "'%.*s': arch-specific and family targets begin at sm_90 (sm_90a)", n, w);
	t->sm = v;
	return 0;
}

void target_spell(const arch_target *t, char *buf, size_t n)
{
	if (t->sm == 0)
		snprintf(buf, n, "native%s", t->suffix ? "+a" : "");
	else if (t->suffix)
		snprintf(buf, n, "sm_%d%c", t->sm, t->suffix);
	else
		snprintf(buf, n, "sm_%d", t->sm);
}

int target_resolve(const arch_target *t, int cc, char *buf, size_t n)
{
	arch_target r = *t;
	if (r.sm == 0)
		r.sm = cc;
	target_spell(&r, buf, n);
	return r.sm;
}

int target_runs(const arch_target *t, int cc, char **why)
{
	if (t->sm == 0) {
		if (!t->suffix || cc >= 90)
			return 1;
		fail(why, "compute capability %d.%d has no arch-specific target (they begin at sm_90a)", cc / 10,
		     cc % 10);
		return 0;
	}
	if (t->suffix == 'a') {
		if (cc == t->sm)
			return 1;
		fail(why, "arch-specific code runs on compute capability %d.%d only", t->sm / 10, t->sm % 10);
		return 0;
	}
	if (cc / 10 == t->sm / 10 && cc % 10 >= t->sm % 10)
		return 1;
	if (t->sm % 10 == 9)
		fail(why, "its code runs on compute capability %d.9 only", t->sm / 10);
	else
		fail(why, "its code runs on compute capability %d.%d to %d.9 only", t->sm / 10, t->sm % 10,
		     t->sm / 10);
	return 0;
}

int target_list(const char *p, const char *end, int line, int col_of_p, arch_target *out, int *n,
                int *errcol, char **why)
{
	const char *q = p;
	int comma = 0;
	*n = 0;
	for (;;) {
		while (q < end && (*q == ' ' || *q == '\t'))
			q++;
		if (q == end && *n > 0 && !comma)
			return 0;
		*errcol = col_of_p + (int)(q - p);
		const char *w = q;
		while (q < end && *q != ',' && *q != ' ' && *q != '\t')
			q++;
		if (q == w)
			return fail(why, comma ? "expected a target after ','" :
			            "expected a target after 'arch' (sm_90a, sm_90, native, native+a; a list: "
			            "the first the device runs)");
		if (*n == TARGET_MAX)
			return fail(why, "more than %d targets", TARGET_MAX);
		if (target_parse(w, (int)(q - w), &out[*n], why) != 0)
			return -1;
		out[*n].line = line;
		out[*n].col = *errcol;
		(*n)++;
		while (q < end && (*q == ' ' || *q == '\t'))
			q++;
		comma = q < end && *q == ',';
		q += comma;
	}
}

int target_pick(const arch_target *ts, int n, int cc)
{
	for (int i = 0; i < n; i++)
		if (target_runs(&ts[i], cc, NULL))
			return i;
	return -1;
}
