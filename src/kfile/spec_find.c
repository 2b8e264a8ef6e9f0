/* spec_find.c: looking up a kernel file's names: its params, buffers and
 * kernels (by name, by last part, templates), which kernels run, and a
 * kernel's effective launch lines. */
#include "spec_find.h"
#include "spec_scan.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

int spec_name_find(const spec *s, const char *name, size_t len, int *is_buf)
{
	*is_buf = 0;
	if (s->names.n > 0 && s->names.n == s->nvars + s->nbufs) {
		int v = nix_get(&s->names, name, len);
		*is_buf = v >= 0 && (v & 1);
		return v < 0 ? -1 : v >> 1;
	}
	/* a spec made by hand (tests) has no index */
	for (int i = 0; i < s->nvars; i++)
		if (strlen(s->vars[i].name) == len && memcmp(s->vars[i].name, name, len) == 0)
			return i;
	*is_buf = 1;
	for (int i = 0; i < s->nbufs; i++)
		if (strlen(s->bufs[i].name) == len && memcmp(s->bufs[i].name, name, len) == 0)
			return i;
	return -1;
}

void spec_name_added(spec *s, int is_buf)
{
	if (s->names.n != s->nvars + s->nbufs - 1)
		return; /* not indexed: found one by one */
	int i = (is_buf ? s->nbufs : s->nvars) - 1;
	nix_put(&s->names, is_buf ? s->bufs[i].name : s->vars[i].name, 2 * i + is_buf);
}

const spec_var *spec_var_find(const spec *s, const char *name)
{
	int b, i = spec_name_find(s, name, strlen(name), &b);
	return i >= 0 && !b ? &s->vars[i] : NULL;
}

int spec_buffer_find(const spec *s, const char *name)
{
	int b, i = spec_name_find(s, name, strlen(name), &b);
	return i >= 0 && b ? i : -1;
}

/* The part of a kernel name after its last `::` outside template arguments. */
static const char *last_part(const char *name)
{
	const char *last = name;
	int depth = 0;
	for (const char *p = name; *p; p++) {
		if (*p == '<')
			depth++;
		else if (*p == '>' && depth > 0)
			depth--;
		else if (depth == 0 && p[0] == ':' && p[1] == ':')
			last = p + 2;
	}
	return last;
}

int spec_kernel_find(const spec *s, const char *name)
{
	char *n = spec_normalize_name(name, strlen(name));
	int found = -1;
	for (int i = 0; i < s->nkernels && found < 0; i++)
		if (strcmp(s->kernels[i].name, n) == 0)
			found = i;
	if (found < 0 && last_part(n) == n) {
		/* "copy" for "course::copy", when only one kernel ends so */
		int hits = 0;
		for (int i = 0; i < s->nkernels; i++)
			if (strcmp(last_part(s->kernels[i].name), n) == 0) {
				hits++;
				found = i;
			}
		if (hits != 1)
			found = -1;
	}
	free(n);
	return found;
}

int spec_template_find(const spec *s, const char *name)
{
	const char *lt = strchr(name, '<');
	if (!lt)
		return -1;
	char *t = xstrndup(name, (size_t)(lt - name));
	int k = spec_kernel_find(s, t);
	free(t);
	return k >= 0 && s->kernels[k].is_template ? k : -1;
}

int spec_kernel_launchable(const spec *s, int k)
{
	const spec_kernel *sk = &s->kernels[k];
	if (sk->is_template || sk->skip)
		return 0;
	return sk->tmpl < 0 || !s->kernels[sk->tmpl].skip;
}

int spec_kernel_in_all(const spec *s, int k)
{
	return spec_kernel_launchable(s, k) && !s->kernels[k].is_step;
}

int spec_launchable(const spec *s)
{
	int n = 0;
	for (int i = 0; i < s->nkernels; i++)
		n += spec_kernel_launchable(s, i);
	return n;
}

static void effective_over(spec_launch *out, const spec_launch *o)
{
	if (o->ngrid > 0) {
		out->ngrid = o->ngrid;
		memcpy(out->grid, o->grid, sizeof out->grid);
	}
	if (o->nblock > 0) {
		out->nblock = o->nblock;
		memcpy(out->block, o->block, sizeof out->block);
	}
	if (o->ncluster > 0) {
		out->ncluster = o->ncluster;
		memcpy(out->cluster, o->cluster, sizeof out->cluster);
	}
	if (o->smem.text)
		out->smem = o->smem;
	if (o->bytes.text)
		out->bytes = o->bytes;
	if (o->flops.text)
		out->flops = o->flops;
	if (o->nchecks >= 0) {
		out->nchecks = o->nchecks;
		memcpy(out->checks, o->checks, sizeof out->checks);
	}
}

void spec_effective(const spec *s, int k, spec_launch *out)
{
	*out = s->base;
	if (s->kernels[k].tmpl >= 0)
		effective_over(out, &s->kernels[s->kernels[k].tmpl].over);
	effective_over(out, &s->kernels[k].over);
}
