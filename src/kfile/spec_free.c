/* spec_free.c: what a parsed kernel file owns, freed. */
#include "spec_free.h"
#include "spec_scan.h"
#include "tmap.h"
#include "util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void spec_check_free(spec_check *c)
{
	free(c->out);
	free(c->ref);
	for (int i = 0; i < SPEC_MAX_CHECK_ARGS; i++)
		free(c->args[i].text);
	memset(c, 0, sizeof *c);
}

/* Frees every slot, used or not: unused slots are zeroed. */
static void launch_free(spec_launch *l)
{
	for (int i = 0; i < SPEC_MAX_DIMS; i++) {
		free(l->grid[i].text);
		free(l->block[i].text);
		free(l->cluster[i].text);
	}
	free(l->smem.text);
	free(l->bytes.text);
	free(l->flops.text);
	for (int i = 0; i < SPEC_MAX_CHECKS; i++)
		spec_check_free(&l->checks[i]);
	spec_launch_init(l);
}

void spec_free(spec *s)
{
	for (int i = 0; i < s->nvars; i++) {
		free(s->vars[i].name);
		free(s->vars[i].value.text);
	}
	for (int i = 0; i < s->nbufs; i++) {
		free(s->bufs[i].name);
		free(s->bufs[i].count.text);
		free(s->bufs[i].list);
	}
	for (int i = 0; i < s->nkernels; i++) {
		spec_kernel *k = &s->kernels[i];
		free(k->name);
		free(k->expr);
		free(k->base);
		for (int j = 0; j < k->ntparams; j++)
			free(k->tparams[j].name);
		free(k->tparams);
		for (int j = 0; j < k->nparams; j++) {
			free(k->params[j].type);
			free(k->params[j].name);
		}
		free(k->params);
		launch_free(&k->over);
	}
	for (int i = 0; i < s->nincludes; i++)
		free(s->includes[i]);
	for (int i = 0; i < s->nlinks; i++)
		free(s->links[i]);
	for (int i = 0; i < s->nincdirs; i++)
		free(s->incdirs[i].dir);
	free(s->incdirs);
	for (int i = 0; i < s->ncheck_at; i++) {
		free(s->check_at[i].name);
		free(s->check_at[i].value.text);
	}
	free(s->check_at);
	free(s->streams.text);
	free(s->split);
	for (int i = 0; i < s->ntmaps; i++)
		tmap_free(&s->tmaps[i]);
	free(s->tmaps);
	launch_free(&s->base);
	free(s->vars);
	nix_free(&s->names);
	free(s->bufs);
	free(s->kernels);
	free(s->includes);
	free(s->links);
	free(s->path);
	free(s->src);
	free(s->summary);
	memset(s, 0, sizeof *s);
}
