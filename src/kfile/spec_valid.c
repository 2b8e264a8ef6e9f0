/* spec_valid.c: the checks of a kernel file that need the whole file: the
 * buffers its checks name, a grid and a block for every launchable kernel. */
#include "spec_valid.h"
#include "spec_err.h"
#include "spec_find.h"
#include "spec_names.h"
#include "ref.h"
#include "util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_name(const char *s)
{
	if (!is_ident_start((unsigned char)*s))
		return 0;
	while (is_ident_char((unsigned char)*s))
		s++;
	return *s == 0;
}

static int unknown_buffer(const spec *s, char **err, int line, int col, char *msg, const char *name)
{
	const char **names = spec_buffer_names(s);
	int r = spec_err_choices(s, err, line, col, msg, name, (int)strlen(name), names, s->nbufs,
	                    "buffers", "no buffers declared");
	free(names);
	return r;
}

/* The buffers a check names exist; a reference gets buffers where it takes
 * buffers and expressions where it takes numbers. k: the kernel overridden. */
static int validate_checks(const spec *s, const spec_launch *l, const spec_kernel *k, char **err)
{
	for (int i = 0; i < l->nchecks; i++) {
		const spec_check *ch = &l->checks[i];
		int ob = spec_buffer_find(s, ch->out);
		if (ob < 0)
			return unknown_buffer(s, err, ch->line, ch->col,
			                      xasprintf("unknown buffer '%s' in check", ch->out), ch->out);
		if (s->bufs[ob].scratch)
			return spec_errat(s, err, ch->line, ch->col, "check names '%s', an intermediate ('scratch') of the "
			             "steps: checks compare what the last step leaves in the outputs", ch->out);
		if (!s->bufs[ob].output)
			return spec_errat(s, err, ch->line, ch->col, "check of '%s', which is not marked output: add "
			             "'output' to its buffer line (line %d); only an output is reset before each run "
			             "and copied back, so this check could pass on what an earlier run wrote",
			             ch->out, s->bufs[ob].line);
		if (ch->is_kernel) {
			if (k && strcmp(ch->ref, k->name) == 0)
				return spec_errat(s, err, ch->line, ch->col, "kernel '%s' cannot be checked against itself",
				             k->name);
			continue;
		}
		const ref_fn *f = ref_find(ch->ref);
		for (int j = 0; f && j < ch->nargs; j++) {
			const spec_expr *a = &ch->args[j];
			int is_buf = spec_buffer_find(s, a->text) >= 0;
			if (f->argkinds[j] == 'b' && !is_buf && !is_name(a->text))
				return spec_errat(s, err, a->line, a->col, "expected a buffer for argument %d of %s, "
				             "found '%s'", j + 1, f->synopsis, a->text);
			if (f->argkinds[j] == 'b' && !is_buf)
				return unknown_buffer(s, err, a->line, a->col, xasprintf("unknown buffer '%s' for "
				                      "argument %d of %s", a->text, j + 1, f->synopsis), a->text);
			if (f->argkinds[j] != 'b' && is_buf)
				return spec_errat(s, err, a->line, a->col, "argument %d of %s is a number, but '%s' is "
				             "a buffer", j + 1, f->synopsis, a->text);
		}
	}
	return 0;
}

/* Every name in an expression is declared: a misspelt define or param is
 * an error here, at `use`, not after a compile. */
static int validate_names(const spec *s, char **err)
{
	spec_unknown u;
	if (!spec_unknown_name(s, &u))
		return 0;
	const char **names = xmalloc(((size_t)s->nvars + 1) * sizeof *names);
	for (int i = 0; i < s->nvars; i++)
		names[i] = s->vars[i].name;
	int r = spec_err_choices(s, err, u.e->line, u.e->col + u.at,
	                    xasprintf("unknown name '%.*s' in %s", u.len, u.e->text + u.at, u.what),
	                    u.e->text + u.at, u.len, names, s->nvars, "defines and params",
	                    "no defines or params declared");
	free(names);
	return r;
}

int spec_validate(const spec *s, char **err)
{
	for (int i = 0; i < s->ncheck_at; i++) {
		const spec_var *cv = &s->check_at[i];
		const spec_var *v = spec_var_find(s, cv->name);
		if (!v)
			return spec_errat(s, err, cv->line, cv->col, "unknown param '%s' in 'check at'", cv->name);
		if (v->is_define)
			return spec_errat(s, err, cv->line, cv->col, "'%s' is a define: 'check at' takes params only "
			             "(a define would need another compile)", cv->name);
		for (int j = 0; j < i; j++)
			if (strcmp(s->check_at[j].name, cv->name) == 0)
				return spec_errat(s, err, cv->line, cv->col, "'%s' given twice in 'check at'", cv->name);
	}
	if (s->split) {
		const spec_var *v = spec_var_find(s, s->split);
		int nhost = 0;
		for (int i = 0; i < s->nbufs; i++)
			nhost += s->bufs[i].host != BUF_DEVICE;
		if (!v)
			return spec_errat(s, err, s->split_line, s->split_col, "unknown param '%s' after 'split': declare "
			             "'//@ param %s = VALUE', the size that is cut in chunks", s->split, s->split);
		if (v->is_define)
			return spec_errat(s, err, s->split_line, s->split_col, "'%s' is a define: 'split' cuts a param "
			             "(each chunk's kernel is given its own)", s->split);
		if (nhost == 0)
			return spec_errat(s, err, s->streams.line, s->streams.col, "'streams' slices the host buffers, and "
			             "there is none: add 'host' to the buffers a run copies in and out");
	}
	if (validate_checks(s, &s->base, NULL, err) != 0)
		return -1;
	for (int i = 0; i < s->nkernels; i++)
		if (validate_checks(s, &s->kernels[i].over, &s->kernels[i], err) != 0)
			return -1;
	if (validate_names(s, err) != 0)
		return -1;
	for (int i = 0; i < s->nkernels; i++) {
		const spec_kernel *k = &s->kernels[i];
		spec_launch eff;
		if (k->skip || k->is_template || k->nsteps > 0)
			continue;
		spec_effective(s, i, &eff);
		const char *missing = eff.ngrid == 0 ? "grid" : eff.nblock == 0 ? "block" : NULL;
		if (missing)
			return spec_errat(s, err, k->line, k->col, "kernel '%s' has no %s: add '//@ %s EXPR' or "
			             "'//@ kernel %s %s EXPR'", k->name, missing, missing, k->name, missing);
	}
	return 0;
}
