/* spec_lines.c: the //@ lines whose text is read outside spec.c. */
#include "spec_lines.h"
#include "spec_scan.h"
#include "tmap.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

int spec_arch_line(spec *s, const char *p, const char *end, int line, int col, int *errcol, char **why)
{
	*errcol = col;
	if (s->narch)
		return fail(why, "duplicate 'arch' line (first at line %d)", s->arch_line);
	if (target_list(p, end, line, col, s->arch, &s->narch, errcol, why) != 0) {
		s->narch = 0;
		return -1;
	}
	s->arch_line = line;
	return 0;
}

/* A tensormap's name is new: no define, param, buffer or tensormap has it. */
static int tmap_name_new(const spec *s, const spec_tmap *t, char **why)
{
	for (int i = 0; i < s->nvars; i++)
		if (strcmp(s->vars[i].name, t->name) == 0)
			return fail(why, "duplicate name '%s' (already a %s at line %d)", t->name,
			            s->vars[i].is_define ? "define" : "param", s->vars[i].line);
	for (int i = 0; i < s->nbufs; i++)
		if (strcmp(s->bufs[i].name, t->name) == 0)
			return fail(why, "duplicate name '%s' (already a buffer at line %d)", t->name, s->bufs[i].line);
	for (int i = 0; i < s->ntmaps; i++)
		if (strcmp(s->tmaps[i].name, t->name) == 0)
			return fail(why, "duplicate name '%s' (already a tensormap at line %d)", t->name, s->tmaps[i].line);
	return 0;
}

int spec_tmap_line(spec *s, const char *p, const char *end, int line, int col, int *errcol, char **why)
{
	spec_tmap t;
	if (tmap_parse(p, end, line, col, &t, errcol, why) != 0)
		return -1;
	if (tmap_name_new(s, &t, why) != 0) {
		*errcol = t.col;
		tmap_free(&t);
		return -1;
	}
	PUSH(s->tmaps, s->ntmaps, t);
	return 0;
}

int spec_check_words(const spec_check *ch, const ref_fn *f, int at_col, int *errcol, char **why)
{
	int fixed = f->nargs - 1, nopts = ref_nopts(f), seen = 0;
	*errcol = at_col;
	if (ch->nargs < fixed)
		return fail(why, "'%s' takes %d arguments, not %d: %s", f->name, fixed, ch->nargs, f->synopsis);
	for (int i = fixed; i < ch->nargs; i++) {
		const spec_expr *e = &ch->args[i];
		int k = 0;
		while (k < nopts && strcmp(f->opts[k], e->text) != 0)
			k++;
		*errcol = e->col;
		if (k < nopts && (seen >> k & 1))
			return fail(why, "'%s' given twice", e->text);
		if (k == nopts) {
			const char *near = nearest_name(e->text, f->opts, nopts);
			sbuf b = {0};
			for (int j = 0; j < nopts; j++)
				sb_printf(&b, "%s%s", j ? ", " : "", f->opts[j]);
			fail(why, "'%s' is not a word '%s' takes after its arguments (words: %s)%s%s%s", e->text, f->name,
			     b.s, near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
			sb_free(&b);
			return -1;
		}
		seen |= 1 << k;
	}
	return 0;
}
