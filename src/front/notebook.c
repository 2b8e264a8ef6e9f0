/* notebook.c: `cuplay --notebook LESSON`: a lesson as a Jupyter notebook
 * for the cuplay kernel. Its narration (comment lines and `say` lines
 * without placeholders) becomes Markdown cells, its commands code cells,
 * a blank line or `pause` ending one; the last cell asks for the replay's
 * summary, which fails where an expectation or a command did. Each code
 * cell is tagged "raises-exception": a failed cell is marked and the run
 * goes on, as a replay does. */
#include "notebook.h"
#include "fileio.h"
#include "json.h"
#include "search.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { CELL_NONE, CELL_CODE, CELL_COMMENT, CELL_SAY } cell_kind;

typedef struct nbw {
	sbuf out;        /* the notebook's JSON */
	int ncells;
	cell_kind kind;  /* the cell being gathered */
	sbuf lines;      /* its lines, '\n' after each */
	int heading;     /* the file's first comment: a heading */
} nbw;

/* The lines of a cell's source as JSON: ["a\n", "b"]. */
static void source_array(sbuf *o, const char *text)
{
	sb_puts(o, "[");
	const char *p = text;
	int first = 1;
	while (*p) {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p) + 1 : strlen(p);
		/* the last line has no newline */
		if (!e || !e[1])
			n -= e ? 1 : 0;
		if (!first)
			sb_puts(o, ", ");
		first = 0;
		json_strn(o, p, n);
		p += e ? (size_t)(e - p) + 1 : n;
	}
	sb_puts(o, "]");
}

static void cell_end(nbw *w)
{
	if (w->kind == CELL_NONE || !w->lines.len) {
		w->kind = CELL_NONE;
		return;
	}
	sbuf *o = &w->out;
	sb_printf(o, "%s  {\n   \"id\": \"cell-%d\",\n", w->ncells ? ",\n" : "", w->ncells + 1);
	if (w->kind == CELL_CODE) {
		sb_puts(o, "   \"cell_type\": \"code\",\n   \"execution_count\": null,\n"
		           "   \"metadata\": {\"tags\": [\"raises-exception\"]},\n   \"outputs\": [],\n");
	} else {
		sb_printf(o, "   \"cell_type\": \"markdown\",\n   \"metadata\": {\"cuplay\": {\"narration\": \"%s\"}},\n",
		          w->kind == CELL_SAY ? "say" : "comment");
	}
	sb_puts(o, "   \"source\": ");
	source_array(o, w->lines.s);
	sb_puts(o, "\n  }");
	w->ncells++;
	sb_free(&w->lines);
	w->kind = CELL_NONE;
}

static void cell_line(nbw *w, cell_kind k, const char *text)
{
	if (w->kind != k)
		cell_end(w);
	w->kind = k;
	sb_puts(&w->lines, text);
	sb_putc(&w->lines, '\n');
}

/* One line of the lesson into its cell. */
static void lesson_line(nbw *w, const char *line)
{
	const char *s = line;
	while (*s == ' ' || *s == '\t')
		s++;
	if (!*s || strcmp(s, "pause") == 0) {
		cell_end(w);
	} else if (*s == '#') {
		s++;
		if (*s == ' ')
			s++;
		if (w->heading) { /* "# Lesson 5: ..." */
			w->heading = 0;
			char *h = xasprintf("# %s", s);
			cell_line(w, CELL_COMMENT, h);
			cell_end(w);
			free(h);
		} else {
			cell_line(w, CELL_COMMENT, s);
		}
	} else if (strncmp(s, "say", 3) == 0 && (s[3] == ' ' || s[3] == '\t' || !s[3]) && !strchr(s, '{')) {
		const char *t = s + 3;
		while (*t == ' ' || *t == '\t')
			t++;
		cell_line(w, CELL_SAY, t);
	} else {
		w->heading = 0;
		cell_line(w, CELL_CODE, s);
	}
}

static void metadata(sbuf *o, const char *path)
{
	sb_puts(o, "\n ],\n \"metadata\": {\n"
	           "  \"kernelspec\": {\"display_name\": \"cuplay\", \"language\": \"cuplay\", \"name\": \"cuplay\"},\n"
	           "  \"language_info\": {\"name\": \"cuplay\", \"file_extension\": \".session\", "
	           "\"mimetype\": \"text/x-cuplay\"},\n  \"cuplay\": {\"lesson\": ");
	json_str(o, path);
	sb_puts(o, "}\n },\n \"nbformat\": 4,\n \"nbformat_minor\": 5\n}\n");
}

int notebook_write(const char *lesson, const char *out_path, char **err)
{
	char *path = search_find(SEARCH_SESSIONS, lesson);
	if (!path) {
		*err = xasprintf("--notebook: no lesson '%s' (see 'cuplay -c lessons')", lesson);
		return -1;
	}
	FILE *f = fopen(path, "r");
	if (!f) {
		*err = xasprintf("--notebook: cannot open '%s': %s", path, strerror(errno));
		free(path);
		return -1;
	}
	nbw w;
	memset(&w, 0, sizeof w);
	w.heading = 1;
	sb_puts(&w.out, "{\n \"cells\": [\n");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	while ((n = getline(&line, &cap, f)) >= 0) {
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = 0;
		lesson_line(&w, line);
	}
	free(line);
	fclose(f);
	cell_end(&w);
	/* the replay's end: its summary, the one cell that fails the run */
	char *sum = xasprintf("%%summary %s", path);
	sbuf *o = &w.out;
	sb_printf(o, "%s  {\n   \"id\": \"cell-%d\",\n   \"cell_type\": \"code\",\n   \"execution_count\": null,\n"
	             "   \"metadata\": {},\n   \"outputs\": [],\n   \"source\": ",
	          w.ncells ? ",\n" : "", w.ncells + 1);
	source_array(o, sum);
	sb_puts(o, "\n  }");
	free(sum);
	metadata(o, path);
	free(path);
	int rc = write_sbuf(out_path, o, err);
	sb_free(o);
	return rc;
}
