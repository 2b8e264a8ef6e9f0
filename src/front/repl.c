/* repl.c: the prompt. With readline, or else the line editor built in
 * (vendor/linenoise, where readline's headers were not there to build
 * with): editing, history kept across runs in the same file, completion of
 * commands, kernel files, kernel names and value names, both through one
 * list of candidates. On a terminal neither can drive (not a terminal,
 * TERM=dumb) and in a build with neither: plain line reads. */
#include "repl.h"
#include "prefetch.h"
#include "complete.h"
#include "files.h"
#include "cmds.h"
#include "help.h"
#include "search.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef HAVE_READLINE
#include <readline/history.h>
#include <readline/readline.h>
#elif defined(HAVE_LINENOISE)
#include "linenoise.h"
#include "fileio.h"
#endif

#if defined(HAVE_READLINE) || defined(HAVE_LINENOISE)
static app *g_app;

static char *history_path(void)
{
	const char *st = getenv("XDG_STATE_HOME");
	const char *home = getenv("HOME");
	if (st && *st) {
		char *dir = xasprintf("%s/cuplay", st);
		mkdir_p(dir, 0755);
		free(dir);
		return xasprintf("%s/cuplay/history", st);
	}
	if (home && *home)
		return xasprintf("%s/.cuplay_history", home);
	return NULL;
}

/* Candidates for the word being completed, given the command before it. */
static char **candidates(const char *cmd, int *n)
{
	return complete_candidates(g_app, cmd, n);
}

#endif

#ifdef HAVE_READLINE
static char **g_cands;
static int g_ncands, g_next;
static int g_paths; /* after the candidates, readline's file names */

static char *generator(const char *text, int state)
{
	if (!state)
		g_next = 0;
	size_t l = strlen(text);
	while (g_next < g_ncands) {
		const char *c = g_cands[g_next++];
		if (strncmp(c, text, l) == 0)
			return xstrdup(c);
	}
	if (g_paths) {
		/* its own state: 0 on its first call */
		char *f = rl_filename_completion_function(text, g_next++ - g_ncands);
		if (f)
			rl_filename_completion_desired = 1;
		return f;
	}
	return NULL;
}

static char **complete(const char *text, int start, int end)
{
	(void)end;
	rl_attempted_completion_over = 1;
	for (int i = 0; i < g_ncands; i++)
		free(g_cands[i]);
	free(g_cands);
	g_cands = NULL;
	g_ncands = 0;
	/* the command is the first word after the last `;` before start */
	const char *line = rl_line_buffer;
	int s0 = start;
	while (s0 > 0 && line[s0 - 1] != ';')
		s0--;
	while (line[s0] == ' ')
		s0++;
	char *cmd = NULL;
	if (s0 < start) {
		int e = s0;
		while (e < start && line[e] != ' ')
			e++;
		cmd = xstrndup(line + s0, (size_t)(e - s0));
	}
	g_cands = candidates(cmd, &g_ncands);
	const command *c = cmd ? command_find(cmd) : NULL;
	g_paths = c && (c->compl == COMPL_PATH || c->compl == COMPL_SESSION);
	if (c && c->compl == COMPL_NAME)
		rl_completion_append_character = '=';
	else
		rl_completion_append_character = ' ';
	free(cmd);
	return rl_completion_matches(text, generator);
}

/* readline's callback interface: the line is read a character at a time
 * between waits on stdin, so a Ctrl-C (a flag set by main's handler; with
 * rl_catch_signals off readline installs none of its own) can drop the
 * half-typed line and give a fresh prompt, as bash, sqlite3 and psql do. */
static char *g_line;
static int g_line_done;

static void line_handler(char *line)
{
	g_line = line;
	g_line_done = 1;
	/* no prompt again until the next read_line */
	rl_callback_handler_remove();
}

/* Ctrl-C: drop the line, start a fresh one. */
static void drop_line(void)
{
	g_interrupt = 0;
	rl_free_line_state();
	rl_callback_sigcleanup();
	rl_replace_line("", 0);
	fputs("^C\n", rl_outstream);
	fflush(rl_outstream);
	rl_on_new_line();
	rl_redisplay();
}

static char *read_line(app *a, const char *prompt)
{
	(void)a;
	g_line = NULL;
	g_line_done = 0;
	/* SIGINT is blocked but inside pselect, so a Ctrl-C that comes while
	 * readline handles a key is seen at the next wait, never missed */
	sigset_t block, old;
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigprocmask(SIG_BLOCK, &block, &old);
	rl_callback_handler_install(prompt, line_handler);
	while (!g_line_done) {
		if (g_interrupt) {
			app_prefetch_cancel(a);
			drop_line();
			continue;
		}
		fd_set in;
		FD_ZERO(&in);
		FD_SET(fileno(rl_instream), &in);
		int n = pselect(fileno(rl_instream) + 1, &in, NULL, NULL, NULL, &old);
		if (n > 0) {
			rl_callback_read_char();
		} else if (n < 0 && errno != EINTR) {
			rl_callback_handler_remove();
			break;
		}
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return g_line;
}

static void repl_begin(app *a)
{
	g_app = a;
	rl_readline_name = "cuplay";
	rl_attempted_completion_function = complete;
	rl_catch_signals = 0;
	char *h = history_path();
	if (h) {
		read_history(h);
		free(h);
	}
}

static void repl_remember(const char *line)
{
	add_history(line);
	char *h = history_path();
	if (h) {
		/* append line by line, so a crash loses nothing */
		if (append_history(1, h) != 0)
			write_history(h);
		history_truncate_file(h, 2000);
		free(h);
	}
}

static void repl_end(void)
{
	for (int i = 0; i < g_ncands; i++)
		free(g_cands[i]);
	free(g_cands);
	g_cands = NULL;
	g_ncands = 0;
}

/* readline reads a byte at a time: a line typed ahead waits in the
 * terminal, where app_gave_way sees it */
static int line_waiting(void) { return 0; }

#else /* plain line reads */

/* Lines from the terminal with read(2): in canonical mode the terminal
 * edits the line and a read returns it whole. SIGINT is blocked but inside
 * pselect, so a Ctrl-C (the terminal drops the line) always gives a fresh
 * prompt, however close it comes to the wait. */
static sbuf g_pending; /* bytes after a newline, for the next line */

/* A whole line read ahead of its prompt (app_gave_way sees only what
 * waits in the terminal). */
static int line_waiting(void)
{
	return g_pending.len && memchr(g_pending.s, '\n', g_pending.len) != NULL;
}

static char *plain_read_line(app *a, const char *prompt)
{
	sbuf line = {0};
	int eof = 0;
	sigset_t block, old;
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigprocmask(SIG_BLOCK, &block, &old);
	fputs(prompt, stdout);
	fflush(stdout);
	for (;;) {
		char *nl = g_pending.len ? memchr(g_pending.s, '\n', g_pending.len) : NULL;
		if (nl) {
			size_t n = (size_t)(nl - g_pending.s);
			sb_add(&line, g_pending.s, n);
			memmove(g_pending.s, nl + 1, g_pending.len - n - 1);
			g_pending.len -= n + 1;
			break;
		}
		if (g_interrupt) {
			/* Ctrl-C: the terminal has dropped the line; a fresh prompt */
			g_interrupt = 0;
			app_prefetch_cancel(a);
			g_pending.len = 0;
			fputs("\n", stdout);
			fputs(prompt, stdout);
			fflush(stdout);
			continue;
		}
		fd_set in;
		FD_ZERO(&in);
		FD_SET(STDIN_FILENO, &in);
		if (pselect(STDIN_FILENO + 1, &in, NULL, NULL, NULL, &old) < 0) {
			if (errno == EINTR)
				continue;
			eof = 1;
			break;
		}
		char buf[4096];
		ssize_t r = read(STDIN_FILENO, buf, sizeof buf);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			eof = 1;
			break;
		}
		sb_add(&g_pending, buf, (size_t)r);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (eof) {
		/* a last line without its newline, else the end */
		sb_add(&line, g_pending.s ? g_pending.s : "", g_pending.len);
		g_pending.len = 0;
		if (!line.len) {
			sb_free(&line);
			return NULL;
		}
	}
	char *s = sb_steal(&line);
	size_t n = strlen(s);
	while (n > 0 && s[n - 1] == '\r')
		s[--n] = 0;
	return s;
}

#ifdef HAVE_LINENOISE

#define HISTORY_MAX 2000

/* Can the line editor drive this terminal? (linenoise's own test: a
 * terminal, and not one of the TERMs it cannot draw on; where it cannot, it
 * would read with stdio, past the Ctrl-C handling above.) */
static int can_edit(void)
{
	const char *t = getenv("TERM");
	return isatty(STDIN_FILENO) &&
	       !(t && (strcmp(t, "dumb") == 0 || strcmp(t, "cons25") == 0 || strcmp(t, "emacs") == 0));
}

static int is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Names in a directory that start as word's last part does: directories
 * with a '/', files with a space after them. */
static void add_paths(const char *line, size_t start, const char *word, linenoiseCompletions *lc)
{
	const char *slash = strrchr(word, '/');
	char *dir = slash ? xstrndup(word, (size_t)(slash - word) + 1) : xstrdup("");
	const char *base = slash ? slash + 1 : word;
	DIR *d = opendir(*dir ? dir : ".");
	for (struct dirent *e; d && (e = readdir(d));) {
		if (strncmp(e->d_name, base, strlen(base)) != 0 || (e->d_name[0] == '.' && base[0] != '.'))
			continue;
		char *path = xasprintf("%s%s", dir, e->d_name);
		char *c = xasprintf("%.*s%s%s", (int)start, line, path, is_dir(path) ? "/" : " ");
		linenoiseAddCompletion(lc, c);
		free(c);
		free(path);
	}
	if (d)
		closedir(d);
	free(dir);
}

/* Tab: whole lines for linenoise, each the line with its last word
 * completed from the same candidates readline gets. */
static void complete_line(const char *line, linenoiseCompletions *lc, void *ud)
{
	(void)ud;
	size_t len = strlen(line), start = len;
	while (start > 0 && line[start - 1] != ' ' && line[start - 1] != ';')
		start--;
	size_t s0 = start;
	while (s0 > 0 && line[s0 - 1] != ';')
		s0--;
	while (line[s0] == ' ')
		s0++;
	char *cmd = s0 < start ? xstrndup(line + s0, strcspn(line + s0, " ")) : NULL;
	const command *c = cmd ? command_find(cmd) : NULL;
	const char *word = line + start;
	int n;
	char **v = candidates(cmd, &n);
	for (int i = 0; i < n; i++) {
		if (strncmp(v[i], word, strlen(word)) == 0) {
			char *full = xasprintf("%.*s%s%s", (int)start, line, v[i], c && c->compl == COMPL_NAME ? "=" : " ");
			linenoiseAddCompletion(lc, full);
			free(full);
		}
		free(v[i]);
	}
	free(v);
	if (c && (c->compl == COMPL_PATH || c->compl == COMPL_SESSION))
		add_paths(line, start, word, lc);
	free(cmd);
}

/* A line from the editor; Ctrl-C (a key in its raw mode, or SIGINT from
 * elsewhere) drops the line and gives a fresh prompt, as readline does. */
static char *read_line(app *a, const char *prompt)
{
	(void)a;
	if (!can_edit())
		return plain_read_line(a, prompt);
	for (;;) {
		errno = 0;
		char *line = linenoise(prompt);
		if (line)
			return line;
		if (errno != EAGAIN && !(errno == EINTR && g_interrupt))
			return NULL; /* Ctrl-D on an empty line, or the end of input */
		g_interrupt = 0;
		app_prefetch_cancel(a);
	}
}

/* The history file as readline keeps it: a line each (readline's
 * timestamp lines, "#" and digits, skipped), the last HISTORY_MAX kept. */
static void repl_begin(app *a)
{
	g_app = a;
	linenoiseSetCompletionCallback(complete_line, NULL);
	linenoiseHistorySetMaxLen(HISTORY_MAX);
	char *h = history_path();
	FILE *f = h ? fopen(h, "r") : NULL;
	char *buf = NULL;
	size_t cap = 0;
	int n = 0;
	for (ssize_t len; f && (len = getline(&buf, &cap, f)) >= 0;) {
		while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
			buf[--len] = 0;
		if (len == 0 || (buf[0] == '#' && len > 1 && strspn(buf + 1, "0123456789") == (size_t)len - 1))
			continue;
		linenoiseHistoryAdd(buf);
		n++;
	}
	free(buf);
	if (f)
		fclose(f);
	if (n > HISTORY_MAX + HISTORY_MAX / 4) { /* trimmed now and then, not at every line */
		sbuf b = { 0 };
		char **lines = linenoiseHistory(&n);
		for (int i = 0; i < n; i++)
			sb_printf(&b, "%s\n", lines[i]);
		char *err = NULL;
		write_sbuf(h, &b, &err);
		free(err);
	}
	free(h);
}

static void repl_remember(const char *line)
{
	linenoiseHistoryAdd(line);
	char *h = history_path();
	char *why = NULL;
	int fd = h ? open_append(h, &why) : -1;
	if (fd >= 0) {
		/* appended line by line, so a crash loses nothing */
		char *l = xasprintf("%s\n", line);
		ssize_t w = write(fd, l, strlen(l));
		(void)w;
		free(l);
		close(fd);
	}
	free(why);
	free(h);
}

static void repl_end(void)
{
	sb_free(&g_pending);
	linenoiseHistoryFree();
}

#else

static char *read_line(app *a, const char *prompt)
{
	(void)a;
	return plain_read_line(a, prompt);
}

static void repl_begin(app *a) { (void)a; }
static void repl_remember(const char *line) { (void)line; }
static void repl_end(void) { sb_free(&g_pending); }

#endif /* HAVE_LINENOISE */

#endif

int repl_loop(app *a)
{
	repl_begin(a);
	int errors = 0;
	while (!a->quit) {
		char prompt[128];
		const char *base = a->file.path ? strrchr(a->file.path, '/') : NULL;
		base = base ? base + 1 : a->file.path;
		if (base)
			snprintf(prompt, sizeof prompt, "cuplay %.*s> ", (int)(strcspn(base, ".")), base);
		else
			snprintf(prompt, sizeof prompt, "cuplay> ");
		g_interrupt = 0;
		if (!line_waiting())
			app_roofs_after(a); /* what the first result went before, while the user reads */
		g_interrupt = 0;
		char *line = read_line(a, prompt);
		if (!line) {
			fputs("\n", stdout);
			break;
		}
		/* a Ctrl-C at the prompt is the prompt's, not the next command's */
		g_interrupt = 0;
		const char *s = line;
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s)
			repl_remember(line);
		errors += command_line(a, line);
		free(line);
	}
	repl_end();
	return errors;
}

int repl_step(app *a, const char *line)
{
	/* the prompt goes to the terminal even when stdout is a file */
	FILE *tty = fopen("/dev/tty", "r+");
	FILE *in = tty ? tty : stdin;
	FILE *out = tty ? tty : stdout;
	fprintf(out, "%s%s> %s%s  [Enter: run, q: stop] ", a->opt.color ? "\033[1m" : "",
	        a->in_file ? a->in_file : "", line, a->opt.color ? "\033[0m" : "");
	fflush(out);
	int c, go = 1;
	int first = 1;
	while ((c = fgetc(in)) != EOF && c != '\n') {
		if (first && (c == 'q' || c == 'Q'))
			go = 0;
		first = 0;
	}
	if (c == EOF) {
		/* no answer can come (the terminal closed, Ctrl-D): the replay
		 * stops, and it did not run whole */
		fputc('\n', out);
		go = g_interrupt ? 0 : -1;
	}
	if (tty)
		fclose(tty);
	return go;
}
