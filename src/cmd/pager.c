/* pager.c: long text through $PAGER at an interactive terminal; text that is data under csv/json, and code a front end's display shows. */
#include "pager.h"
#include "child.h"

#include <poll.h>
#include <stdlib.h>

/* Text that is data (ptx, sass) under csv/json: kept in memory, then one
 * record; help and other prose: on stderr. */
static char *cap_buf;
static size_t cap_len;
static FILE *cap_file;
static pid_t pager_pid = -1;

/* 1 when typed input waits on stdin: lines typed ahead, which a pager
 * would read as its own commands (less's `s` saves to a file). */
static int input_waiting(void)
{
	struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };
	return poll(&p, 1, 0) > 0 && (p.revents & (POLLIN | POLLHUP));
}

/* The pager: $PAGER, else less; less in its secure mode either way
 * (LESSSECURE: no shell commands, no files saved or opened from it). Not
 * while lines typed ahead wait: they are the prompt's. */
FILE *pager_open(app *a)
{
	/* a front end's display takes code as a display of its own */
	if (format_is_data(a->format) || (a->display && a->display->show_code)) {
		cap_file = open_memstream(&cap_buf, &cap_len);
		return cap_file ? cap_file : stderr;
	}
	if (!a->opt.interactive || !isatty(STDOUT_FILENO) || input_waiting())
		return stdout;
	const char *pg = getenv("PAGER");
	fflush(stdout);
	char *cmd = xasprintf("LESSSECURE=1; export LESSSECURE; %s", pg && *pg ? pg : "less -FRX");
	FILE *f = child_popen(cmd, &pager_pid);
	free(cmd);
	return f ? f : stdout;
}

void pager_close(app *a, FILE *f, const char *kind, const char *kernel)
{
	if (f && f == cap_file) {
		fclose(f);
		cap_file = NULL;
		if (!format_is_data(a->format)) { /* a display's: code as code, prose as text */
			fflush(stdout);
			if (kind)
				a->display->show_code(a->display->ctx, cap_buf ? cap_buf : "", kind);
			else
				fputs(cap_buf ? cap_buf : "", stdout);
		} else if (kind) {
			const char *head[] = { "kernel", "text" };
			table t;
			table_init(&t, 2, head, "ll");
			table_kind(&t, kind);
			int r = table_row(&t);
			table_set(&t, r, 0, "%s", kernel ? kernel : "");
			table_set(&t, r, 1, "%s", cap_buf ? cap_buf : "");
			app_table(a, &t, 0);
			table_free(&t);
		} else {
			fputs(cap_buf ? cap_buf : "", stderr);
		}
		free(cap_buf);
		cap_buf = NULL;
		cap_len = 0;
	} else if (f && f != stdout && f != stderr) {
		child_pclose(f, pager_pid);
		pager_pid = -1;
	} else {
		fflush(stdout);
	}
}
