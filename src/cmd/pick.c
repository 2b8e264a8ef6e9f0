/* pick.c: the kernels a command names, as indices into the loaded file's
 * kernels; a name it lacks, a template, or none at all said in one line. */
#include "pick.h"

#include <stdlib.h>
#include <string.h>

/* The instantiations of template kernel t, ", "-separated, into known. */
static void instantiations(const spec *s, int t, sbuf *known)
{
	for (int m = 0; m < s->nkernels; m++)
		if (s->kernels[m].tmpl == t)
			sb_printf(known, "%s%s", known->len ? ", " : "", s->kernels[m].name);
}

/* Kernel names: as given, or every launchable one. Validates the names. */
int pick_kernels(app *a, char **names, int n, int **out, int *nout)
{
	const spec *s = a->file.sp;
	int *idx = xcalloc((size_t)s->nkernels + (size_t)n + 1, sizeof *idx);
	int k = 0;
	int all = n == 0 || (n == 1 && strcmp(names[0], "all") == 0);
	if (all) {
		for (int i = 0; i < s->nkernels; i++)
			if (spec_kernel_in_all(s, i))
				idx[k++] = i;
	} else {
		for (int i = 0; i < n; i++) {
			int j = spec_kernel_find(s, names[i]);
			int t = j < 0 ? spec_template_find(s, names[i]) : -1;
			if (t >= 0) {
				sbuf known = {0};
				instantiations(s, t, &known);
				app_error(a, "kernel '%s' is not an instantiation the file names: add '//@ kernel %s' "
				          "(instantiations of '%s': %s)", names[i], names[i], s->kernels[t].name,
				          known.len ? known.s : "none");
				sb_free(&known);
				free(idx);
				return -1;
			}
			if (j < 0) {
				const char **cands = xcalloc((size_t)s->nkernels + 1, sizeof *cands);
				sbuf known = {0};
				for (int m = 0; m < s->nkernels; m++) {
					cands[m] = s->kernels[m].name;
					sb_printf(&known, "%s%s", m ? ", " : "", s->kernels[m].name);
				}
				const char *near = nearest_name(names[i], cands, s->nkernels);
				if (near)
					app_error(a, "unknown kernel '%s' in %s (did you mean '%s'?)", names[i], s->path, near);
				else
					app_error(a, "unknown kernel '%s' in %s (kernels: %s)", names[i], s->path,
					          known.len ? known.s : "none");
				sb_free(&known);
				free(cands);
				free(idx);
				return -1;
			}
			if (s->kernels[j].is_template) {
				sbuf known = {0};
				instantiations(s, j, &known);
				free(idx);
				if (known.len)
					app_error(a, "kernel '%s' is a template: run an instantiation of it (%s)",
					          s->kernels[j].name, known.s);
				else
					app_error(a, "%s:%d:%d: kernel '%s' is a template with no instantiation to run: name "
					          "one in the header, e.g. '//@ kernel %s<...>' with its template arguments",
					          s->path, s->kernels[j].line, s->kernels[j].col, s->kernels[j].name,
					          s->kernels[j].name);
				sb_free(&known);
				return -1;
			}
			idx[k++] = j;
		}
	}
	if (k == 0) {
		free(idx);
		for (int i = 0; i < s->nkernels; i++)
			if (s->kernels[i].is_template)
				return app_error(a, "%s has no kernel to run: template kernel '%s' needs an instantiation "
				                 "('//@ kernel %s<...>' with its template arguments)", s->path,
				                 s->kernels[i].name, s->kernels[i].name);
		return app_error(a, "%s has no kernel to run", s->path);
	}
	*out = idx;
	*nout = k;
	return 0;
}
