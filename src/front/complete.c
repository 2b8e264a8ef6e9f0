/* complete.c: the candidates of Tab, for the prompt and the protocol. */
#include "complete.h"
#include "cmds.h"
#include "files.h"
#include "help.h"
#include "search.h"

#include <stdlib.h>
#include <string.h>

typedef struct cands {
	char **v;
	int n, cap;
} cands;

static void add(cands *c, const char *s)
{
	if (c->n + 2 > c->cap) {
		c->cap = c->cap ? c->cap * 2 : 32;
		c->v = xrealloc(c->v, (size_t)c->cap * sizeof *c->v);
	}
	c->v[c->n++] = xstrdup(s);
}

static void add_words(cands *c, const char *words)
{
	char *w = xstrdup(words);
	char *save = NULL;
	for (char *s = strtok_r(w, " ", &save); s; s = strtok_r(NULL, " ", &save))
		add(c, s);
	free(w);
}

static void add_commands(cands *c, int topics)
{
	int nc;
	const command *const *t = command_table(&nc);
	for (int i = 0; i < nc; i++)
		add(c, t[i]->name);
	for (const char *const *tp = help_topics(); topics && *tp; tp++)
		add(c, *tp);
}

char **complete_candidates(app *a, const char *cmd, int *n)
{
	cands c = {0};
	const command *k = cmd ? command_find(cmd) : NULL;
	compl_kind kind = k ? k->compl : COMPL_NONE;
	if (!cmd) {
		add_commands(&c, 0);
	} else if (kind == COMPL_COMMAND) {
		add_commands(&c, 1);
	} else if (kind == COMPL_FILE) {
		int nf;
		char **files = app_kernel_files(&nf);
		for (int i = 0; i < nf; i++) {
			add(&c, files[i]);
			free(files[i]);
		}
		free(files);
	} else if (kind == COMPL_KERNEL && a->file.sp) {
		for (int i = 0; i < a->file.sp->nkernels; i++)
			add(&c, a->file.sp->kernels[i].name);
		add(&c, "all");
	} else if (kind == COMPL_NAME && a->file.sp) {
		for (int i = 0; i < a->file.sp->nvars; i++)
			add(&c, a->file.sp->vars[i].name);
	} else if (kind == COMPL_SESSION) {
		int ns;
		search_entry *e = search_list(SEARCH_SESSIONS, &ns, NULL, NULL);
		for (int i = 0; i < ns; i++)
			add(&c, e[i].name);
		search_list_free(e, ns);
	} else if (kind == COMPL_WORDS && k->words) {
		add_words(&c, k->words);
	}
	if (c.v)
		c.v[c.n] = NULL;
	*n = c.n;
	return c.v;
}

void complete_word_at(const char *line, size_t cursor, size_t *start, char **cmd)
{
	size_t len = strlen(line);
	if (cursor > len)
		cursor = len;
	size_t s = cursor;
	while (s > 0 && line[s - 1] != ' ' && line[s - 1] != ';' && line[s - 1] != '\t' && line[s - 1] != '\n')
		s--;
	size_t s0 = s;
	while (s0 > 0 && line[s0 - 1] != ';' && line[s0 - 1] != '\n')
		s0--;
	while (line[s0] == ' ' || line[s0] == '\t')
		s0++;
	*start = s;
	*cmd = s0 < s ? xstrndup(line + s0, strcspn(line + s0, " \t")) : NULL;
}
