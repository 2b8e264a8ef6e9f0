/* spec_tmpl.c: a template kernel instantiated: its parameters with the
 * template's arguments put in. */
#include "spec_tmpl.h"
#include "spec_err.h"
#include "spec_scan.h"
#include "util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* args split at commas outside brackets (caller frees each and the array). */
static char **split_args(const char *args, int *n)
{
	char **v = NULL;
	*n = 0;
	int depth = 0;
	const char *a = args;
	for (const char *p = args;; p++) {
		if (*p == '<' || *p == '(' || *p == '[')
			depth++;
		else if ((*p == '>' || *p == ')' || *p == ']') && depth > 0)
			depth--;
		else if (*p == 0 || (*p == ',' && depth == 0)) {
			if (p > a || *p == ',')
				PUSH(v, *n, xstrndup(a, (size_t)(p - a)));
			if (*p == 0)
				break;
			a = p + 1;
		}
	}
	return v;
}

/* A parameter of template tk as it is in an instantiation: type parameters
 * replaced by the arguments given for them, then classified again
 * ("const T*" with T = float binds to a float buffer). */
static void substitute_param(kparam *p, const spec_kernel *tk, char **args, int nargs)
{
	toks t = {0};
	scan_tokenize(p->type, &t);
	sbuf b = {0};
	int changed = 0;
	for (int i = 0; i < t.n; i++) {
		const char *with = NULL;
		for (int j = 0; j < tk->ntparams && j < nargs && !with; j++)
			if (tk->tparams[j].is_type && scan_tok_is(&t.v[i], tk->tparams[j].name))
				with = args[j];
		if (i > 0)
			sb_putc(&b, ' ');
		if (with) {
			sb_puts(&b, with);
			changed = 1;
		} else {
			sb_add(&b, t.v[i].p, (size_t)t.v[i].len);
		}
	}
	free(t.v);
	if (!changed) {
		sb_free(&b);
		return;
	}
	toks u = {0};
	scan_tokenize(b.s, &u);
	char *type = scan_type_text(&u, 0, u.n, 0);
	p->elem_known = 0;
	scan_classify(p, &u, 0, u.n, 0);
	free(u.v);
	sb_free(&b);
	free(p->type);
	p->type = type;
}

/* The instantiation TEMPLATE<args> of template kernel tk, named at
 * line:col; made once. Returns its index. */
int spec_instantiate(spec *s, int tk, const char *args, int line, int col)
{
	char *name = xasprintf("%s<%s>", s->kernels[tk].name, args);
	for (int i = 0; i < s->nkernels; i++)
		if (strcmp(s->kernels[i].name, name) == 0) {
			free(name);
			return i;
		}
	const spec_kernel *t = &s->kernels[tk];
	int nargs = 0;
	char **argv = split_args(args, &nargs);
	spec_kernel k = {0};
	k.name = name;
	k.expr = xstrdup(name);
	k.base = xstrdup(t->base);
	k.line = t->line;
	k.col = t->col;
	k.tmpl = tk;
	k.decl_line = line;
	k.decl_col = col;
	spec_launch_init(&k.over);
	k.nparams = t->nparams;
	k.params = xcalloc((size_t)t->nparams + 1, sizeof *k.params);
	for (int i = 0; i < t->nparams; i++) {
		k.params[i] = t->params[i];
		k.params[i].type = xstrdup(t->params[i].type);
		k.params[i].name = xstrdup(t->params[i].name);
		substitute_param(&k.params[i], t, argv, nargs);
	}
	for (int i = 0; i < nargs; i++)
		free(argv[i]);
	free(argv);
	PUSH(s->kernels, s->nkernels, k);
	return s->nkernels - 1;
}
