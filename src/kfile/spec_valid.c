/* spec_valid.c: the checks of a kernel file that need the whole file: the
 * buffers its checks name, the names its expressions use, the kernels'
 * parameters against the buffers and params (before anything compiles), a
 * grid and a block for every launchable kernel. Every error is gathered. */
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

/* Adds msg (taken) with the candidates for name to e. An error about a
 * name puts it among e's maybe names: what follows from it is not said
 * again. */
static void add_choices(spec_errs *e, const spec *s, int line, int col, char *msg, const char *name,
                        const char *const *cands, int n, const char *label, const char *none)
{
	char *m = NULL;
	spec_err_choices(s, &m, line, col, msg, name, (int)strlen(name), cands, n, label, none);
	spec_errs_add(e, line, col, m);
}

static void unknown_buffer(const spec *s, spec_errs *e, int line, int col, char *msg, const char *name)
{
	if (spec_errs_is_maybe(e, name)) { /* a failed line would have declared it */
		free(msg);
		return;
	}
	const char **names = spec_buffer_names(s);
	add_choices(e, s, line, col, msg, name, names, s->nbufs, "buffers", "no buffers declared");
	free(names);
	spec_errs_maybe(e, name, (int)strlen(name)); /* said: once a name */
}

/* The arguments of a check against its reference: buffers where it takes
 * buffers, expressions where it takes numbers. */
static void check_args(const spec *s, const spec_check *ch, spec_errs *e)
{
	const ref_fn *f = ref_find(ch->ref);
	for (int j = 0; f && j < ch->nargs; j++) {
		const spec_expr *a = &ch->args[j];
		int is_buf = spec_buffer_find(s, a->text) >= 0;
		if (f->argkinds[j] == 'b' && !is_buf && !is_name(a->text))
			spec_errs_at(e, s, a->line, a->col, "expected a buffer for argument %d of %s, found '%s'", j + 1,
			             f->synopsis, a->text);
		else if (f->argkinds[j] == 'b' && !is_buf)
			unknown_buffer(s, e, a->line, a->col, xasprintf("unknown buffer '%s' for argument %d of %s",
			               a->text, j + 1, f->synopsis), a->text);
		else if (f->argkinds[j] != 'b' && is_buf)
			spec_errs_at(e, s, a->line, a->col, "argument %d of %s is a number, but '%s' is a buffer", j + 1,
			             f->synopsis, a->text);
	}
}

/* The buffers a check names exist; a reference gets buffers where it takes
 * buffers and expressions where it takes numbers. k: the kernel overridden. */
static void validate_checks(const spec *s, const spec_launch *l, const spec_kernel *k, spec_errs *e)
{
	for (int i = 0; i < l->nchecks; i++) {
		const spec_check *ch = &l->checks[i];
		int ob = spec_buffer_find(s, ch->out);
		if (ob < 0)
			unknown_buffer(s, e, ch->line, ch->col, xasprintf("unknown buffer '%s' in check", ch->out), ch->out);
		else if (s->bufs[ob].scratch)
			spec_errs_at(e, s, ch->line, ch->col, "check names '%s', an intermediate ('scratch') of the "
			             "steps: checks compare what the last step leaves in the outputs", ch->out);
		else if (!s->bufs[ob].output)
			spec_errs_at(e, s, ch->line, ch->col, "check of '%s', which is not marked output: add "
			             "'output' to its buffer line (line %d); only an output is reset before each run "
			             "and copied back, so this check could pass on what an earlier run wrote",
			             ch->out, s->bufs[ob].line);
		if (ch->is_kernel && k && strcmp(ch->ref, k->name) == 0)
			spec_errs_at(e, s, ch->line, ch->col, "kernel '%s' cannot be checked against itself", k->name);
		else if (!ch->is_kernel)
			check_args(s, ch, e);
	}
}

/* Every name in an expression is declared: a misspelt define or param is
 * an error here, at `use`, not after a compile (each at its first use). */
static void validate_names(const spec *s, spec_errs *e)
{
	spec_unknown u[SPEC_MAX_ERRORS];
	int n = spec_unknown_names(s, u, SPEC_MAX_ERRORS);
	if (n == 0)
		return;
	const char **names = xmalloc(((size_t)s->nvars + 1) * sizeof *names);
	for (int i = 0; i < s->nvars; i++)
		names[i] = s->vars[i].name;
	for (int i = 0; i < n; i++) {
		char *name = xstrndup(u[i].e->text + u[i].at, (size_t)u[i].len);
		if (!spec_errs_is_maybe(e, name)) {
			add_choices(e, s, u[i].e->line, u[i].e->col + u[i].at,
			            xasprintf("unknown name '%s' in %s", name, u[i].what), name, names, s->nvars,
			            "defines and params", "no defines or params declared");
			spec_errs_maybe(e, name, u[i].len);
		}
		free(name);
	}
	free(names);
}

/* A kernel that `run` can launch by itself (a sequence's steps are). */
static int launchable(const spec_kernel *k)
{
	return !k->skip && !k->is_template && k->nsteps == 0;
}

/* The names of the params (not the defines) of s. */
static const char **param_names(const spec *s, int *n)
{
	const char **v = xmalloc(((size_t)s->nvars + 1) * sizeof *v);
	*n = 0;
	for (int i = 0; i < s->nvars; i++)
		if (!s->vars[i].is_define)
			v[(*n)++] = s->vars[i].name;
	return v;
}

/* Each parameter of a launchable kernel binds by name: a pointer to a
 * buffer, a number to a param. Said before any compile. */
static void validate_params(const spec *s, spec_errs *e)
{
	const char **bufs = spec_buffer_names(s);
	int np;
	const char **params = param_names(s, &np);
	for (int i = 0; i < s->nkernels; i++) {
		const spec_kernel *k = &s->kernels[i];
		for (int j = 0; launchable(k) && j < k->nparams; j++) {
			const kparam *p = &k->params[j];
			if (spec_errs_is_maybe(e, p->name))
				continue;
			int n = e->n;
			if (p->kind == ARG_PTR && spec_buffer_find(s, p->name) < 0)
				add_choices(e, s, p->line, p->col, xasprintf("kernel '%s' parameter '%s' has no buffer: "
				            "declare '//@ buffer %s TYPE[COUNT]'", k->name, p->name, p->name), p->name, bufs,
				            s->nbufs, "buffers", "no buffers declared");
			else if (p->kind != ARG_PTR && p->kind != ARG_TMAP && p->kind != ARG_NONE &&
			         !spec_var_find(s, p->name))
				add_choices(e, s, p->line, p->col, xasprintf("kernel '%s' parameter '%s' has no '//@ param': "
				            "declare '//@ param %s = VALUE'", k->name, p->name, p->name), p->name, params, np,
				            "params", "no params declared");
			if (e->n > n) /* said: once a name */
				spec_errs_maybe(e, p->name, (int)strlen(p->name));
		}
	}
	free(params);
	free(bufs);
}

/* 1 when a kernel parameter, a tensormap or a check takes buffer b. */
static int buffer_taken(const spec *s, const char *b)
{
	for (int i = 0; i < s->nkernels; i++)
		for (int j = 0; j < s->kernels[i].nparams; j++)
			if (strcmp(s->kernels[i].params[j].name, b) == 0)
				return 1;
	for (int i = 0; i < s->ntmaps; i++)
		if (s->tmaps[i].buf && strcmp(s->tmaps[i].buf, b) == 0)
			return 1;
	for (int i = -1; i < s->nkernels; i++) {
		const spec_launch *l = i < 0 ? &s->base : &s->kernels[i].over;
		for (int c = 0; c < l->nchecks; c++)
			for (int a = 0; a < l->checks[c].nargs; a++)
				if (l->checks[c].args[a].text && strcmp(l->checks[c].args[a].text, b) == 0)
					return 1;
	}
	return 0;
}

/* The pointer parameters of the launchable kernels that have no buffer. */
static const char **unbound_pointers(const spec *s, int *n)
{
	int all = 0;
	for (int i = 0; i < s->nkernels; i++)
		all += s->kernels[i].nparams;
	const char **v = xmalloc(((size_t)all + 1) * sizeof *v);
	*n = 0;
	for (int i = 0; i < s->nkernels; i++)
		for (int j = 0; launchable(&s->kernels[i]) && j < s->kernels[i].nparams; j++) {
			const kparam *p = &s->kernels[i].params[j];
			if (p->kind == ARG_PTR && spec_buffer_find(s, p->name) < 0)
				v[(*n)++] = p->name;
		}
	return v;
}

/* A buffer (not a global) that no kernel takes: a misspelt name, or a
 * line left over. Not said where a parameter without a buffer is said
 * with this buffer as its likely name (yy for y: one mistake, one error). */
static void validate_buffers(const spec *s, spec_errs *e)
{
	if (s->nkernels == 0)
		return;
	int nu;
	const char **unbound = unbound_pointers(s, &nu);
	for (int i = 0; i < s->nbufs; i++) {
		const spec_buffer *b = &s->bufs[i];
		if (b->global || buffer_taken(s, b->name) || nearest_name(b->name, unbound, nu) ||
		    spec_errs_is_maybe(e, b->name))
			continue;
		spec_errs_at(e, s, b->line, b->col, "buffer '%s' is a parameter of no kernel: a buffer is passed to "
		             "the kernel parameters of its name (rename it, or remove its line)", b->name);
	}
	free(unbound);
}

static void validate_file_lines(const spec *s, spec_errs *e)
{
	for (int i = 0; i < s->ncheck_at; i++) {
		const spec_var *cv = &s->check_at[i];
		const spec_var *v = spec_var_find(s, cv->name);
		int twice = 0;
		for (int j = 0; j < i; j++)
			twice |= strcmp(s->check_at[j].name, cv->name) == 0;
		if (!v && !spec_errs_is_maybe(e, cv->name))
			spec_errs_at(e, s, cv->line, cv->col, "unknown param '%s' in 'check at'", cv->name);
		else if (v && v->is_define)
			spec_errs_at(e, s, cv->line, cv->col, "'%s' is a define: 'check at' takes params only "
			             "(a define would need another compile)", cv->name);
		else if (twice)
			spec_errs_at(e, s, cv->line, cv->col, "'%s' given twice in 'check at'", cv->name);
	}
	if (!s->split)
		return;
	const spec_var *v = spec_var_find(s, s->split);
	int nhost = 0;
	for (int i = 0; i < s->nbufs; i++)
		nhost += s->bufs[i].host != BUF_DEVICE;
	if (!v && !spec_errs_is_maybe(e, s->split))
		spec_errs_at(e, s, s->split_line, s->split_col, "unknown param '%s' after 'split': declare "
		             "'//@ param %s = VALUE', the size that is cut in chunks", s->split, s->split);
	else if (v && v->is_define)
		spec_errs_at(e, s, s->split_line, s->split_col, "'%s' is a define: 'split' cuts a param "
		             "(each chunk's kernel is given its own)", s->split);
	if (nhost == 0)
		spec_errs_at(e, s, s->streams.line, s->streams.col, "'streams' slices the host buffers, and "
		             "there is none: add 'host' to the buffers a run copies in and out");
}

void spec_validate(const spec *s, spec_errs *e)
{
	validate_file_lines(s, e);
	validate_checks(s, &s->base, NULL, e);
	for (int i = 0; i < s->nkernels; i++)
		validate_checks(s, &s->kernels[i].over, &s->kernels[i], e);
	validate_names(s, e);
	validate_params(s, e);
	validate_buffers(s, e);
	for (int i = 0; i < s->nkernels && !e->launch_failed; i++) {
		const spec_kernel *k = &s->kernels[i];
		spec_launch eff;
		if (!launchable(k))
			continue;
		spec_effective(s, i, &eff);
		const char *missing = eff.ngrid == 0 ? "grid" : eff.nblock == 0 ? "block" : NULL;
		if (missing)
			spec_errs_at(e, s, k->line, k->col, "kernel '%s' has no %s: add '//@ %s EXPR' or "
			             "'//@ kernel %s %s EXPR'", k->name, missing, missing, k->name, missing);
	}
}
