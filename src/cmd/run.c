/* run.c: use a kernel file, set values, and the run itself: compile (cache),
 * plan, launch in the worker, check, time, report. */
#include "app.h"
#include "ref.h"
#include "search.h"
#include "cubin.h"

#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

volatile sig_atomic_t g_interrupt;

#define RUNS_KEPT 1024

/* NVRTC's first compile in a process costs ~200 ms (loading its builtins);
 * done once in the background when a file is first used, it overlaps the
 * worker's context creation and the user's typing. */
static pthread_t g_warm;
static int g_warming;

static void *warm_nvrtc(void *arg)
{
	(void)arg;
	char *err = NULL;
	if (nvrtc_load(&err) == 0) {
		const char *opts[] = { "-arch=sm_90" };
		nvrtc_out o;
		if (nvrtc_compile("<warm-up>", "__global__ void warm_up() {}\n", opts, 1, NULL, 0, &o, &err) == 0)
			nvrtc_out_free(&o);
	}
	free(err);
	return NULL;
}

static void warm_join(void)
{
	if (g_warming)
		pthread_join(g_warm, NULL);
	g_warming = 0;
}

/* At `use`: start what the first run will need. Errors surface at `run`. */
static void prestart(app *a)
{
	static int warmed;
	if (!warmed && !getenv("CUPLAY_NO_WARMUP")) {
		warmed = 1;
		/* the thread blocks every signal: a Ctrl-C goes to the main thread,
		 * where it interrupts the wait at the prompt */
		sigset_t all, old;
		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		g_warming = pthread_create(&g_warm, NULL, warm_nvrtc, NULL) == 0;
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	if (!a->no_gpu && a->gpu != 0 && !a->worker.pid) {
		char *err = NULL;
		a->worker.device = a->device;
		if (wc_spawn(&a->worker, &err) != 0)
			free(err); /* said again, properly, by the first run */
	}
}

void app_init(app *a, const char *exe)
{
	memset(a, 0, sizeof *a);
	a->exe = exe;
	a->gpu = -1;
	a->record_fd = -1;
	a->format = FMT_TABLE;
	doc_open(&a->out, stdout, FMT_TABLE, 0, CUPLAY_VERSION);
	a->timeout_s = 10;
	a->topt = (timing_opts){
		.warmup = 2, .min_reps = 10, .max_reps = RES_MAX_SAMPLES,
		.noise_target = 0.005, .min_time_s = 0.02, .max_time_s = 0.5, .max_wall_s = 1.0,
		.flush = 1, .do_check = 1, .do_time = 1, .batch = 1,
	};
	ccache_init(&a->cache, NULL);
	a->worker.exe = exe;
	search_set_exe(exe);
}

static void record_free(run_record *r)
{
	measure_free(r);
}

enum { HISTORY_KEPT = 4096 };

void app_history_add(app *a, const char *line)
{
	if (!line || !*line)
		return;
	if (a->nhistory == HISTORY_KEPT) {
		for (int i = 0; i < HISTORY_KEPT / 2; i++)
			free(a->history[i]);
		memmove(a->history, a->history + HISTORY_KEPT / 2, (HISTORY_KEPT / 2) * sizeof *a->history);
		a->nhistory = HISTORY_KEPT / 2;
	}
	if (a->nhistory == a->caphistory) {
		a->caphistory = a->caphistory ? a->caphistory * 2 : 32;
		a->history = xrealloc(a->history, (size_t)a->caphistory * sizeof *a->history);
	}
	a->history[a->nhistory++] = xstrdup(line);
}

void app_history_free(app *a)
{
	for (int i = 0; i < a->nhistory; i++)
		free(a->history[i]);
	free(a->history);
	a->history = NULL;
	a->nhistory = a->caphistory = 0;
}

void app_free(app *a)
{
	doc_close(&a->out);
	app_history_free(a);
	warm_join();
	free(a->clock_why);
	free(a->gpu_why);
	for (int i = -1; i < a->nmore; i++) {
		wclient *w = i < 0 ? &a->worker : &a->more[i];
		if (!w->pid)
			continue;
		/* leaving: close the pipes and go; the worker sees end of input and
		 * tears its context down on its own time, not the user's */
		close(w->wfd);
		close(w->rfd);
		w->pid = 0;
	}
	free(a->more);
	if (a->sp) {
		spec_free(a->sp);
		free(a->sp);
	}
	free(a->path);
	symtab_free(&a->settings);
	for (int i = 0; i < a->nsaved; i++) {
		free(a->saved[i].path);
		symtab_free(&a->saved[i].set);
	}
	free(a->saved);
	ccache_free(&a->cache);
	for (int i = 0; i < a->nruns; i++)
		record_free(&a->runs[i]);
	free(a->runs);
	free(a->last_run);
	if (a->have_last)
		table_free(&a->last);
	if (a->have_chart)
		chart_free(&a->last_chart);
	if (a->record_fd >= 0)
		close(a->record_fd);
	free(a->record_path);
	for (int i = 0; i < a->nkseen; i++) {
		free(a->kseen[i].path);
		free(a->kseen[i].kernel);
	}
	free(a->kseen);
	free(a->prof_why);
	search_set_exe(NULL);
}

/* "path:12:" at the start of a message means it names its own location. */
static int has_location(const char *m)
{
	const char *c = strchr(m, ':');
	if (!c || c == m || memchr(m, ' ', (size_t)(c - m)))
		return 0;
	return c[1] >= '0' && c[1] <= '9';
}

int app_error_msg(app *a, const char *msg)
{
	fflush(stdout);
	if (a->in_file)
		fprintf(stderr, "%s:%d: %s\n", a->in_file, a->in_line, msg);
	else if (has_location(msg))
		fprintf(stderr, "%s\n", msg);
	else
		fprintf(stderr, "error: %s\n", msg);
	fflush(stderr);
	a->nerrors++;
	return -1;
}

int app_error(app *a, const char *fmt, ...)
{
	sbuf b = {0};
	va_list ap;
	va_start(ap, fmt);
	sb_vprintf(&b, fmt, ap);
	va_end(ap);
	app_error_msg(a, b.s ? b.s : "");
	sb_free(&b);
	return -1;
}

FILE *app_textf(app *a)
{
	return format_is_data(a->format) ? stderr : stdout;
}

void app_note(app *a, const char *fmt, ...)
{
	FILE *f = app_textf(a);
	if (f == stderr)
		fflush(stdout);
	va_list ap;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
	fflush(f);
}

void app_table(app *a, const table *t, int indent)
{
	a->out.color = a->color;
	doc_table(&a->out, t, indent);
}

void app_format(app *a, out_format f)
{
	if (f == a->format)
		return;
	doc_close(&a->out);
	a->format = f;
	doc_open(&a->out, stdout, f, a->color, CUPLAY_VERSION);
}

void app_keep_table(app *a, table *t)
{
	if (a->have_last)
		table_free(&a->last);
	a->last = *t;
	a->have_last = 1;
	memset(t, 0, sizeof *t);
}

void app_keep_chart(app *a, chart *c)
{
	if (a->have_chart)
		chart_free(&a->last_chart);
	a->last_chart = *c;
	a->have_chart = 1;
	memset(c, 0, sizeof *c);
}

/* ---- kernel files ---- */

char **app_kernel_files(int *n)
{
	search_entry *e = search_list(SEARCH_KERNELS, n, NULL, NULL);
	char **v = xcalloc((size_t)*n + 1, sizeof *v);
	for (int i = 0; i < *n; i++) {
		v[i] = e[i].name;
		e[i].name = NULL;
	}
	search_list_free(e, *n);
	return v;
}

static void free_list(char **v, int n)
{
	for (int i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* "kernels_src, /home/x/course/kernels_src": the directories searched. */
static char *searched(search_kind k)
{
	int n;
	char **d = search_dirs(k, &n);
	sbuf b = {0};
	for (int i = 0; i < n; i++)
		sb_printf(&b, "%s%s", i ? ", " : "", d[i]);
	search_strv_free(d, n);
	return n ? sb_steal(&b) : xstrdup("kernels_src (absent)");
}

static int load_spec(app *a, const char *path, spec **out)
{
	char *src = NULL;
	size_t len = 0;
	if (read_file(path, &src, &len) != 0)
		return app_error(a, "cannot read '%s': %s", path, strerror(errno));
	spec *s = xcalloc(1, sizeof *s);
	char *err = NULL;
	int r = spec_text_check(path, src, len, &err) == 0 ? spec_parse(path, src, s, &err) : -1;
	free(src);
	if (r != 0) {
		app_error_msg(a, err ? err : "parse error");
		free(err);
		free(s);
		return -1;
	}
	*out = s;
	return 0;
}

int app_use(app *a, const char *name)
{
	char *path = search_find(SEARCH_KERNELS, name);
	if (!path) {
		int n;
		char **files = app_kernel_files(&n);
		const char *near = nearest_name(name, (const char *const *)files, n);
		sbuf known = {0};
		for (int i = 0; i < n; i++)
			sb_printf(&known, "%s%s", i ? ", " : "", files[i]);
		if (near)
			app_error(a, "cannot find kernel file '%s' (did you mean '%s'?)", name, near);
		else {
			char *dirs = searched(SEARCH_KERNELS);
			app_error(a, "cannot find kernel file '%s' (in %s: %s)", name, dirs,
			          known.len ? known.s : "none");
			free(dirs);
		}
		sb_free(&known);
		free_list(files, n);
		return -1;
	}
	spec *s = NULL;
	if (load_spec(a, path, &s) != 0) {
		free(path);
		return -1;
	}
	/* values set for one file stay with that file: put the current file's
	 * aside, and take back what the new one had */
	if (!a->path || strcmp(a->path, path) != 0) {
		if (a->path && a->settings.n > 0) {
			int i = 0;
			while (i < a->nsaved && strcmp(a->saved[i].path, a->path) != 0)
				i++;
			if (i == a->nsaved) {
				a->saved = xrealloc(a->saved, (size_t)(a->nsaved + 1) * sizeof *a->saved);
				a->saved[a->nsaved++].path = xstrdup(a->path);
			} else {
				symtab_free(&a->saved[i].set);
			}
			a->saved[i].set = a->settings;
			memset(&a->settings, 0, sizeof a->settings);
		}
		symtab_free(&a->settings);
		for (int i = 0; i < a->nsaved; i++)
			if (strcmp(a->saved[i].path, path) == 0) {
				a->settings = a->saved[i].set;
				free(a->saved[i].path);
				a->saved[i] = a->saved[--a->nsaved];
				break;
			}
	}
	if (a->sp) {
		spec_free(a->sp);
		free(a->sp);
	}
	free(a->path);
	a->sp = s;
	a->path = path;
	prestart(a);
	int launchable = 0;
	for (int i = 0; i < s->nkernels; i++)
		launchable += spec_kernel_launchable(s, i);
	sbuf b = {0};
	sb_printf(&b, "%s: %d kernel%s", path, launchable, launchable == 1 ? "" : "s");
	for (int i = 0, k = 0; i < s->nkernels; i++)
		if (spec_kernel_launchable(s, i))
			sb_printf(&b, "%s%s", k++ ? ", " : " (", s->kernels[i].name);
	if (launchable)
		sb_putc(&b, ')');
	app_note(a, "%s", b.s);
	sb_free(&b);
	return 0;
}

int app_reload(app *a)
{
	if (!a->path)
		return app_error(a, "no kernel file: 'use FILE' first (see 'ls')");
	char *src = NULL;
	if (read_file(a->path, &src, NULL) != 0)
		return app_error(a, "cannot read '%s': %s", a->path, strerror(errno));
	int same = a->sp && strcmp(src, a->sp->src) == 0;
	free(src);
	if (same)
		return 0;
	spec *s = NULL;
	if (load_spec(a, a->path, &s) != 0)
		return -1;
	if (a->sp) {
		spec_free(a->sp);
		free(a->sp);
	}
	a->sp = s;
	return 0;
}

/* ---- values ---- */

static void known_names(const spec *s, sbuf *b)
{
	for (int i = 0; i < s->nvars; i++)
		sb_printf(b, "%s%s", i ? ", " : "", s->vars[i].name);
}

int app_set(app *a, const char *name, const char *text)
{
	if (!a->sp)
		return app_error(a, "no kernel file: 'use FILE' first, then 'set %s=%s'", name, text);
	const spec_var *v = spec_var_find(a->sp, name);
	if (!v) {
		const char **names = xcalloc((size_t)a->sp->nvars + 1, sizeof *names);
		for (int i = 0; i < a->sp->nvars; i++)
			names[i] = a->sp->vars[i].name;
		const char *near = nearest_name(name, names, a->sp->nvars);
		sbuf known = {0};
		known_names(a->sp, &known);
		if (near)
			app_error(a, "unknown name '%s' in %s (did you mean '%s'?)", name, a->path, near);
		else
			app_error(a, "unknown name '%s' in %s (known: %s)", name, a->path,
			          known.len ? known.s : "none");
		sb_free(&known);
		free(names);
		return -1;
	}
	/* evaluate against the current values, so `set N=2*TILE_SIZE` works */
	devinfo dev;
	if (a->gpu == 1)
		dev = a->worker.dev;
	else
		devinfo_for_arch(a->arch_sm ? a->arch_sm : 90, &dev);
	symtab vals;
	char *err = NULL;
	if (plan_values(a->sp, &a->settings, &dev, &vals, &err) != 0) {
		/* a broken default must not block setting another value */
		free(err);
		err = NULL;
		memset(&vals, 0, sizeof vals);
	}
	/* typed by the kernels that take it: a float or double parameter gets
	 * float arithmetic, an integer one refuses a fraction now, not at run */
	value val;
	int col = 0;
	int r = plan_eval_value(a->sp, name, text, &vals, &val, &col, &err);
	symtab_free(&vals);
	if (r != 0) {
		if (col > 0)
			app_error(a, "set %s: %s (at column %d of '%s')", name, err, col, text);
		else
			app_error(a, "set %s: %s", name, err);
		free(err);
		return -1;
	}
	symtab_set(&a->settings, name, val, 0);
	return 0;
}

int app_unset(app *a, const char *name)
{
	symtab *t = &a->settings;
	for (int i = 0; i < t->n; i++)
		if (strcmp(t->v[i].name, name) == 0) {
			free(t->v[i].name);
			memmove(&t->v[i], &t->v[i + 1], (size_t)(t->n - i - 1) * sizeof t->v[0]);
			t->n--;
			return 0;
		}
	if (a->sp && spec_var_find(a->sp, name))
		return 0; /* already at its default */
	return app_error(a, "'%s' is not set", name);
}

/* "N=8192 TILE_SIZE=32 PAD=1": every define and param, file order. */
static char *values_line(const spec *s, const symtab *vals)
{
	sbuf b = {0};
	for (int i = 0; i < s->nvars; i++) {
		const sym *v = symtab_get(vals, s->vars[i].name, (int)strlen(s->vars[i].name));
		char buf[64] = "?";
		if (v)
			value_format(v->v, buf, sizeof buf);
		sb_printf(&b, "%s%s=%s", i ? " " : "", s->vars[i].name, buf);
	}
	return sb_steal(&b);
}

static void current_dev(app *a, devinfo *dev)
{
	if (a->gpu == 1)
		*dev = a->worker.dev;
	else
		devinfo_for_arch(a->arch_sm ? a->arch_sm : 90, dev);
}

void app_show(app *a)
{
	if (!a->sp) {
		app_note(a, "no kernel file: 'use FILE' (see 'ls')");
		return;
	}
	const spec *s = a->sp;
	devinfo dev;
	current_dev(a, &dev);
	symtab vals;
	char *err = NULL;
	int ok = plan_values(s, &a->settings, &dev, &vals, &err) == 0;
	const char *sum = s->summary ? s->summary : "";
	const char *base = strrchr(s->path, '/') ? strrchr(s->path, '/') + 1 : s->path;
	if (strncmp(sum, base, strlen(base)) == 0 && sum[strlen(base)] == ':')
		sum += strlen(base) + 1 + (sum[strlen(base) + 1] == ' ');
	app_note(a, "%s%s%s", s->path, *sum ? ": " : "", sum);
	int data = format_is_data(a->format);
	table t;
	const char *head[] = { "name", "kind", "value", "value", "set", "default" };
	table_init(&t, 6, head, "llrrll");
	table_kind(&t, "value");
	table_col(&t, 2, "value_text", U_PLAIN, COL_HUMAN);
	table_col(&t, 3, "value", U_PLAIN, COL_RAW);
	table_col(&t, 4, NULL, U_PLAIN, COL_RAW);
	for (int i = 0; i < s->nvars; i++) {
		const spec_var *v = &s->vars[i];
		int r = table_row(&t);
		table_set(&t, r, 0, "%s", v->name);
		table_set(&t, r, 1, "%s", v->is_define ? "define" : "param");
		char buf[64] = "?";
		const sym *x = ok ? symtab_get(&vals, v->name, (int)strlen(v->name)) : NULL;
		if (x) {
			value_format(x->v, buf, sizeof buf);
			table_num(&t, r, 3, x->v.is_float ? x->v.f : (double)x->v.i);
		}
		int set = symtab_get(&a->settings, v->name, (int)strlen(v->name)) != NULL;
		table_set(&t, r, 2, "%s%s", buf, set ? " (set)" : "");
		table_bool(&t, r, 4, set);
		table_set(&t, r, 5, "%s", v->value.text ? v->value.text : "");
	}
	if (s->nvars)
		app_table(a, &t, 2);
	table_free(&t);
	table bt;
	const char *bhead[] = { "name", "kind", "type", "count", "init", "output", "managed" };
	table_init(&bt, 7, bhead, "lllllll");
	table_kind(&bt, "buffer");
	for (int i = 0; i < s->nbufs; i++) {
		const spec_buffer *b = &s->bufs[i];
		sbuf init = {0};
		if (b->init == INIT_LIST) {
			sb_putc(&init, '{');
			for (int k = 0; k < b->nlist; k++)
				sb_printf(&init, "%s%g", k ? ", " : "", b->list[k]);
			sb_putc(&init, '}');
		} else if (b->init == INIT_VALUE) {
			sb_printf(&init, "value(%g)", b->init_value);
		} else {
			sb_puts(&init, init_name(b->init));
		}
		if (data) {
			int r = table_row(&bt);
			table_set(&bt, r, 0, "%s", b->name);
			table_set(&bt, r, 1, "%s", b->global ? "global" : "buffer");
			table_set(&bt, r, 2, "%s", dtype_name(b->type));
			table_set(&bt, r, 3, "%s", b->count.text);
			table_set(&bt, r, 4, "%s", init.s);
			table_bool(&bt, r, 5, b->output);
			table_bool(&bt, r, 6, b->managed);
		} else {
			app_note(a, "  %s %s %s[%s] %s%s%s", b->global ? "global" : "buffer", b->name,
			         dtype_name(b->type), b->count.text, init.s, b->output ? " output" : "",
			         b->managed ? " managed" : "");
		}
		sb_free(&init);
	}
	if (bt.nrows)
		app_table(a, &bt, 0);
	table_free(&bt);
	sbuf k = {0};
	table kt;
	const char *khead[] = { "kernel", "template", "skip" };
	table_init(&kt, 3, khead, "lll");
	table_kind(&kt, "kernel");
	for (int i = 0; i < s->nkernels; i++) {
		sb_printf(&k, "%s%s%s", i ? ", " : "", s->kernels[i].name,
		          s->kernels[i].is_template ? " (template)" : s->kernels[i].skip ? " (skip)" : "");
		int r = table_row(&kt);
		table_set(&kt, r, 0, "%s", s->kernels[i].name);
		table_bool(&kt, r, 1, s->kernels[i].is_template);
		table_bool(&kt, r, 2, s->kernels[i].skip);
	}
	if (data && kt.nrows)
		app_table(a, &kt, 0);
	else
		app_note(a, "  kernels: %s", k.len ? k.s : "none");
	table_free(&kt);
	sb_free(&k);
	app_note(a, "  reps %d, warmup %d, flush %s, clock %s, timeout %g s, format %s, %s",
	         a->topt.min_reps, a->topt.warmup, a->topt.flush ? "on" : "off",
	         a->topt.clock == CLOCK_KERNEL ? "kernel" : "events", a->timeout_s,
	         format_name(a->format),
	         a->gpu == 1 ? a->worker.dev.name : a->no_gpu ? "compile-only (--no-gpu)" : "GPU not started yet");
	if (!ok) {
		app_error_msg(a, err);
		free(err);
	}
	symtab_free(&vals);
}

void app_ls(app *a)
{
	int n, nd;
	char **dirs;
	search_entry *e = search_list(SEARCH_KERNELS, &n, &dirs, &nd);
	if (n == 0) {
		char *d = searched(SEARCH_KERNELS);
		app_note(a, "no kernel files in %s", d);
		free(d);
		search_list_free(e, n);
		search_strv_free(dirs, nd);
		return;
	}
	/* where each comes from, when more than one directory gives files */
	int from = 0;
	for (int i = 1; i < n; i++)
		from |= e[i].dir != e[0].dir;
	table t;
	const char *head[] = { "file", "kernels", "from", "summary", "path", "current" };
	table_init(&t, 6, head, "lrllll");
	table_kind(&t, "file");
	table_col(&t, 1, NULL, U_INT, COL_BOTH);
	if (!from)
		table_col(&t, 2, NULL, U_PLAIN, COL_RAW);
	table_col(&t, 4, NULL, U_PLAIN, COL_RAW);
	table_col(&t, 5, NULL, U_PLAIN, COL_RAW);
	int sc = 3; /* the summary's column */
	int data = format_is_data(a->format);
	for (int i = 0; i < n; i++) {
		const char *path = e[i].path;
		char *src = NULL;
		spec s;
		char *err = NULL;
		int r = table_row(&t);
		int cur = a->path && strcmp(a->path, path) == 0;
		table_set(&t, r, 0, "%s%s", e[i].name, cur && !data ? " *" : "");
		table_set(&t, r, 4, "%s", path);
		table_bool(&t, r, 5, cur);
		if (read_file(path, &src, NULL) == 0 && spec_parse(path, src, &s, &err) == 0) {
			table_num(&t, r, 1, spec_launchable(&s));
			const char *sum = s.summary ? s.summary : "";
			size_t fl = strlen(e[i].name);
			if (strncmp(sum, e[i].name, fl) == 0 && strncmp(sum + fl, ".cu:", 4) == 0)
				sum += fl + 4 + (sum[fl + 4] == ' ');
			table_set(&t, r, sc, "%s", sum);
			spec_free(&s);
		} else {
			table_set(&t, r, sc, "(does not parse: 'use %s' says why)", e[i].name);
			free(err);
		}
		table_set(&t, r, 2, "%s", dirs[e[i].dir]);
		free(src);
	}
	app_table(a, &t, 0);
	table_free(&t);
	/* a file of one's own hides the shipped one of the same name: say so */
	for (int d = 1; d < nd; d++) {
		sbuf b = {0};
		for (int i = 0; i < n; i++) {
			if (!e[i].hides || e[i].dir >= d)
				continue;
			char *other = xasprintf("%s/%s.cu", dirs[d], e[i].name);
			struct stat st;
			if (stat(other, &st) == 0)
				sb_printf(&b, "%s%s", b.len ? ", " : "", e[i].name);
			free(other);
		}
		if (b.len)
			app_note(a, "hidden by the files above: %s in %s", b.s, dirs[d]);
		sb_free(&b);
	}
	search_list_free(e, n);
	search_strv_free(dirs, nd);
}

/* ---- the GPU ---- */

int app_gpu(app *a)
{
	if (a->no_gpu) {
		if (!a->notice_said)
			app_note(a, "compile-only mode (--no-gpu)");
		a->notice_said = 1;
		a->gpu = 0;
		return 0;
	}
	if (a->gpu == 0)
		return 0;
	if (a->worker.pid && !a->worker.hello_pending) {
		a->gpu = 1;
		return 1;
	}
	char *err = NULL;
	a->worker.device = a->device;
	if (wc_start(&a->worker, &err) == 0) {
		a->gpu = 1;
		return 1;
	}
	if (a->worker.other_build) {
		/* the binary was rebuilt under this front end: no worker will do */
		app_error_msg(a, err);
		free(err);
		return -1;
	}
	if (a->gpu == 1) {
		/* it ran before: a restart failed; say so, stay in GPU mode */
		app_error(a, "cannot restart the GPU worker: %s", err ? err : "unknown error");
		free(err);
		return -1;
	}
	a->gpu = 0;
	/* "no CUDA driver found", kept for `device`; the loader's own words
	 * (dlerror, in parentheses) only with CUPLAY_TRACE */
	const char *why = err ? err : "no GPU";
	int n = (int)strlen(why);
	if (strncmp(why, "no CUDA driver found (", 22) == 0) {
		n = 20;
		if (getenv("CUPLAY_TRACE"))
			fprintf(stderr, "trace: %s\n", why);
	}
	free(a->gpu_why);
	a->gpu_why = xstrndup(why, (size_t)n);
	if (!a->notice_said)
		app_note(a, "%s: compile-only mode", a->gpu_why); /* said once */
	a->notice_said = 1;
	free(err);
	return 0;
}

void app_gpu_early(app *a, int wait_ms)
{
	if (a->no_gpu || a->gpu != -1) {
		app_gpu(a);
		return;
	}
	char *err = NULL;
	a->worker.device = a->device;
	if (!a->worker.pid && wc_spawn(&a->worker, &err) != 0) {
		free(err);
		app_gpu(a); /* says why */
		return;
	}
	struct pollfd pf = { a->worker.rfd, POLLIN, 0 };
	if (poll(&pf, 1, wait_ms) > 0)
		app_gpu(a); /* the worker answered: a GPU, or why not */
}

/* ---- the run ---- */

static const char *masked(app *a, const char *s)
{
	return a->mask_times ? "<t>" : s;
}

void progress(void *ctx, int n, double last_ms)
{
	app *a = ctx;
	if (!a->interactive)
		return;
	char t[32];
	fmt_time_ms(last_ms, t, sizeof t);
	fprintf(stderr, "\r  timing: %d samples, last %s   ", n, t);
	fflush(stderr);
}

static measurement *new_record(app *a)
{
	/* the history `expect` looks in: the last RUNS_KEPT runs, so a long
	 * session's memory stays flat */
	if (a->nruns == RUNS_KEPT) {
		for (int i = 0; i < RUNS_KEPT / 2; i++)
			record_free(&a->runs[i]);
		memmove(a->runs, a->runs + RUNS_KEPT / 2, (size_t)(RUNS_KEPT - RUNS_KEPT / 2) * sizeof *a->runs);
		a->nruns = RUNS_KEPT - RUNS_KEPT / 2;
	}
	if (a->nruns == a->capruns) {
		a->capruns = a->capruns ? a->capruns * 2 : 16;
		a->runs = xrealloc(a->runs, (size_t)a->capruns * sizeof *a->runs);
	}
	return &a->runs[a->nruns++];
}

static void stamp(app *a, measurement *m)
{
	if (a->gpu == 1 && a->worker.dev.name[0] && !m->device)
		m->device = xstrdup(a->worker.dev.name);
	if (a->cmd_text && !m->command)
		m->command = xstrdup(a->cmd_text);
}

const measurement *add_record(app *a, const char *values, const result *res, const plan *p)
{
	measurement *m = new_record(a);
	measure_make(m, a->path, p, res, values, a->topt.do_check);
	stamp(a, m);
	return m;
}

const measurement *keep_record(app *a, measurement *m)
{
	measurement *r = new_record(a);
	*r = *m;
	memset(m, 0, sizeof *m);
	stamp(a, r);
	return r;
}

void clock_note(app *a, const result *res)
{
	if (res->nsamples == 0 || !res->clock_note[0])
		return;
	if (a->clock_why && strcmp(a->clock_why, res->clock_note) == 0)
		return;
	free(a->clock_why);
	a->clock_why = xstrdup(res->clock_note);
	app_note(a, "timed with CUDA events, not kernel timestamps: %s", res->clock_note);
}

/* Prints what failed in the checks, one line each. */
/* " (element 308, lane 2 of a float4)" for a scalar index into a buffer of
 * a vector type; "" otherwise. */
static const char *lane_of(const plan_buf *pb, int64_t scalar, char *buf, size_t n)
{
	int lanes = dtype_lanes(pb->type);
	buf[0] = 0;
	if (lanes > 1 && scalar >= 0)
		snprintf(buf, n, " (element %" PRId64 ", lane %d of a %s)", scalar / lanes, (int)(scalar % lanes),
		         dtype_name(pb->type));
	return buf;
}

void check_failures(app *a, const plan *p, const result *res)
{
	for (int i = 0; i < res->nchecks; i++) {
		const check_result *c = &res->checks[i];
		if (c->ok)
			continue;
		const plan_check *pc = &p->checks[i];
		const char *against = pc->kind == CHECK_KERNEL ? "kernel" : "reference";
		char lane[96];
		lane_of(&p->bufs[pc->out], c->bad_index, lane, sizeof lane);
		if (c->nonfinite && c->bad_index >= 0)
			app_error(a, "%s: '%s' differs from %s '%s': %" PRIu64 " non-finite values, first at index %" PRId64
			          "%s (got %g, want %g)%s", p->launch.name, c->buf, against, pc->ref,
			          c->nonfinite, c->bad_index, lane, c->got, c->want,
			          isnan(c->got) ? ": never written?" : "");
		else if (c->bad_index >= 0)
			app_error(a, "%s: '%s' differs from %s '%s': relative error %.2e over tolerance %.0e, "
			          "first bad index %" PRId64 "%s (got %g, want %g)", p->launch.name, c->buf, against,
			          pc->ref, c->rel_err, c->tol, c->bad_index, lane, c->got, c->want);
		else
			app_error(a, "%s: '%s' differs from %s '%s': relative error %.2e over tolerance %.0e",
			          p->launch.name, c->buf, against, pc->ref, c->rel_err, c->tol);
	}
}

/* Kernel names: as given, or every launchable one. Validates the names. */
int pick_kernels(app *a, char **names, int n, int **out, int *nout)
{
	const spec *s = a->sp;
	int *idx = xcalloc((size_t)s->nkernels + (size_t)n + 1, sizeof *idx);
	int k = 0;
	int all = n == 0 || (n == 1 && strcmp(names[0], "all") == 0);
	if (all) {
		for (int i = 0; i < s->nkernels; i++)
			if (spec_kernel_launchable(s, i))
				idx[k++] = i;
	} else {
		for (int i = 0; i < n; i++) {
			int j = spec_kernel_find(s, names[i]);
			int t = j < 0 ? spec_template_find(s, names[i]) : -1;
			if (t >= 0) {
				sbuf known = {0};
				for (int m = 0; m < s->nkernels; m++)
					if (s->kernels[m].tmpl == t)
						sb_printf(&known, "%s%s", known.len ? ", " : "", s->kernels[m].name);
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
				for (int m = 0; m < s->nkernels; m++)
					if (s->kernels[m].tmpl == j)
						sb_printf(&known, "%s%s", known.len ? ", " : "", s->kernels[m].name);
				free(idx);
				if (known.len)
					app_error(a, "kernel '%s' is a template: run an instantiation of it (%s)",
					          s->kernels[j].name, known.s);
				else
					app_error(a, "%s:%d: kernel '%s' is a template with no instantiation to run: name "
					          "one in the header, e.g. '//@ kernel %s<...>' with its template arguments",
					          s->path, s->kernels[j].line, s->kernels[j].name, s->kernels[j].name);
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

/* The first values of a global's list: "{0.1, 0.2, ...}" */
static void list_text(sbuf *b, const plan *p, const plan_buf *pb)
{
	sb_putc(b, '{');
	for (uint32_t k = 0; k < pb->list_n && k < 4; k++)
		sb_printf(b, "%s%g", k ? ", " : "", p->list[pb->list_off + k]);
	sb_puts(b, pb->list_n > 4 ? ", ...}" : "}");
}

static void print_buffers(app *a, const plan *p)
{
	sbuf b = {0}, g = {0};
	double total = 0;
	for (int i = 0; i < p->nbufs; i++) {
		const plan_buf *pb = &p->bufs[i];
		double bytes = (double)pb->count * (double)dtype_size(pb->type);
		char sz[32];
		fmt_bytes(bytes, sz, sizeof sz);
		if (pb->global) {
			sb_printf(&g, "%s%s %s[%" PRIu64 "] ", g.len ? ", " : "", pb->name, dtype_name(pb->type), pb->count);
			if (pb->init == INIT_LIST)
				list_text(&g, p, pb);
			else
				sb_puts(&g, init_name(pb->init));
			sb_printf(&g, "%s (%s, %s)", pb->output ? " output" : "", sz,
			          pb->is_const ? "__constant__" : "__device__");
			continue;
		}
		total += bytes;
		sb_printf(&b, "%s%s %s[%" PRIu64 "] %s%s%s (%s)", b.len ? ", " : "", pb->name,
		          dtype_name(pb->type), pb->count, init_name(pb->init),
		          pb->output ? " output" : "", pb->managed ? " managed" : "", sz);
	}
	char tot[32];
	fmt_bytes(total, tot, sizeof tot);
	app_note(a, "buffers: %s; %s in all", b.len ? b.s : "none", tot);
	if (g.len)
		app_note(a, "globals: %s", g.s);
	sb_free(&b);
	sb_free(&g);
}

int run_prepare(app *a, const symtab *extra, int announce, runctx *c)
{
	memset(c, 0, sizeof *c);
	const spec *s = a->sp;
	int gpu = app_gpu(a);
	if (gpu < 0)
		return -1;
	c->gpu = gpu;
	current_dev(a, &c->dev);
	c->sm = a->arch_sm ? a->arch_sm : gpu ? c->dev.cc_major * 10 + c->dev.cc_minor : 90;
	/* the user's settings, then the extra ones (a sweep point, a variant) */
	symtab merged = {0};
	for (int i = 0; i < a->settings.n; i++)
		symtab_set(&merged, a->settings.v[i].name, a->settings.v[i].v, 0);
	for (int i = 0; extra && i < extra->n; i++)
		symtab_set(&merged, extra->v[i].name, extra->v[i].v, 0);
	char *err = NULL;
	int r = plan_values(s, &merged, &c->dev, &c->vals, &err);
	symtab_free(&merged);
	if (r != 0) {
		app_error_msg(a, err);
		free(err);
		return -1;
	}
	int ndefs;
	char **defs = plan_defines(s, &c->vals, &ndefs);
	c->vline = values_line(s, &c->vals);
	char *warn = NULL;
	warm_join();
	c->u = ccache_compile(&a->cache, s, (const char *const *)defs, ndefs, c->sm, &c->from, &c->compile_ms, &warn, &err);
	free_list(defs, ndefs);
	if (warn) {
		app_note(a, "warning: %s", warn);
		free(warn);
	}
	if (!c->u) {
		app_error_msg(a, err ? err : "compilation failed");
		free(err);
		run_release(c);
		return -1;
	}
	if (announce) {
		const char *base = strrchr(s->path, '/') ? strrchr(s->path, '/') + 1 : s->path;
		char msbuf[32];
		snprintf(msbuf, sizeof msbuf, "%.0f ms", c->compile_ms);
		if (c->from == CC_COMPILED)
			app_note(a, "%s  %s  (compiled in %s, sm_%d)", base, c->vline, masked(a, msbuf), c->sm);
		else
			app_note(a, "%s  %s  (cached, sm_%d)", base, c->vline, c->sm);
		if (c->u->warnings)
			app_note(a, "%s", c->u->warnings);
	}
	return 0;
}

void run_release(runctx *c)
{
	symtab_free(&c->vals);
	free(c->vline);
	memset(c, 0, sizeof *c);
}

int run_plan(app *a, runctx *c, int k, const timing_opts *t, plan *p, char **err)
{
	const spec *s = a->sp;
	int ci = cunit_find(c->u, s->kernels[k].name);
	if (ci < 0)
		return fail(err, "kernel '%s' is missing from the compiled unit", s->kernels[k].name);
	if (plan_build(s, k, &c->vals, &c->dev, t, p, err) != 0)
		return -1;
	snprintf(p->launch.lowered, sizeof p->launch.lowered, "%s", c->u->lowered[ci]);
	for (int i = 0; i < p->nchecks; i++)
		if (p->checks[i].kind == CHECK_KERNEL) {
			int oc = cunit_find(c->u, p->checks[i].other.name);
			if (oc >= 0)
				snprintf(p->checks[i].other.lowered, sizeof p->checks[i].other.lowered, "%s", c->u->lowered[oc]);
		}
	p->cubin_len = c->u->cubin_len;
	/* each global is a variable of the module, of the size declared */
	for (int i = 0; i < p->nbufs; i++) {
		plan_buf *pb = &p->bufs[i];
		if (!pb->global)
			continue;
		const spec_buffer *b = &s->bufs[i];
		uint64_t size = 0, want = pb->count * dtype_size(pb->type);
		int is_const = 0;
		if (cubin_object(c->u->cubin, c->u->cubin_len, pb->sym, &size, &is_const) != 0)
			return fail(err, "%s:%d:%d: global '%s': the kernel file has no __constant__ or __device__ "
			            "variable '%s'", s->path, b->line, b->col, pb->name, pb->name);
		if (size != want)
			return fail(err, "%s:%d:%d: global '%s' is declared %s[%" PRIu64 "] (%" PRIu64 " bytes) but the "
			            "kernel file's '%s' has %" PRIu64 " bytes", s->path, b->line, b->col, pb->name,
			            dtype_name(pb->type), pb->count, want, pb->name, size);
		if (is_const && pb->output)
			return fail(err, "%s:%d:%d: global '%s' is __constant__: a kernel cannot write it, so it "
			            "cannot be an output", s->path, b->line, b->col, pb->name);
		pb->is_const = is_const;
	}
	return plan_validate(s, k, p, &c->dev, c->u->res[ci].smem, err);
}

/* What the kernel printed (device printf, an assertion's message): one
 * launch's output, each line labelled with the kernel, and a count of what
 * the other launches printed. */
/* s[0..len) with control characters (a kernel may print anything) shown
 * as '?', into buf. */
static const char *printable(const char *s, int len, char *buf, size_t n)
{
	size_t k = 0;
	for (int i = 0; i < len && k + 1 < n; i++) {
		unsigned char ch = (unsigned char)s[i];
		buf[k++] = ch == '\t' || ch >= 0x20 ? (char)ch : '?';
	}
	buf[k] = 0;
	return buf;
}

/* What a launch printed: at most PRINTF_SHOW lines of it, the first ones
 * (the last ones after a failure: an assertion's message is at the end). */
enum { PRINTF_SHOW = 20 };

static void show_printf(app *a, const plan *p, const result *res)
{
	char line[sizeof res->printf_text];
	if (res->printf_len == 0)
		return;
	const char *name = p->launch.name;
	const char *t = res->printf_text, *end = t + res->printf_len;
	int n = 0;
	for (const char *q = t; q < end; q++)
		n += *q == '\n';
	n += end[-1] != '\n';
	/* lines of the launch not in the text, or beyond what is shown */
	uint64_t all = res->printf_lines > (uint64_t)n ? res->printf_lines : (uint64_t)n;
	int show = n < PRINTF_SHOW ? n : PRINTF_SHOW;
	if (res->printf_tail) {
		for (int skip = n - show; skip > 0 && t < end; skip--) {
			const char *nl = memchr(t, '\n', (size_t)(end - t));
			t = nl ? nl + 1 : end;
		}
		if (all > (uint64_t)show)
			app_note(a, "printf %s: ... %" PRIu64 " line%s before these, not shown", name, all - show,
			         all - show == 1 ? "" : "s");
	}
	for (int i = 0; i < show && t < end; i++) {
		const char *nl = memchr(t, '\n', (size_t)(end - t));
		int len = (int)((nl ? nl : end) - t);
		app_note(a, "printf %s: %s", name, printable(t, len, line, sizeof line));
		t = nl ? nl + 1 : end;
	}
	if (!res->printf_tail && all > (uint64_t)show)
		app_note(a, "printf %s: ... %" PRIu64 " more line%s from this launch, not shown", name, all - show,
		         all - show == 1 ? "" : "s");
	if (res->printf_others > 0 && res->printf_more_lines > 0)
		app_note(a, "printf: %d more launch%s printed %" PRIu64 " line%s, not shown (printf in a timed "
		         "kernel changes its time)", res->printf_others, res->printf_others == 1 ? "" : "es",
		         res->printf_more_lines, res->printf_more_lines == 1 ? "" : "s");
}

int run_exec(app *a, runctx *c, const plan *p, result *res, char **err)
{
	memset(res, 0, sizeof *res);
	uint64_t t_req = now_ns();
	int wr = wc_run(&a->worker, p, c->u->cubin, c->u->cubin_len, a->timeout_s, (volatile int *)&g_interrupt,
	                progress, a, res, err);
	if (a->interactive)
		fprintf(stderr, "\r\033[K");
	if (wr != 0)
		return -1;
	show_printf(a, p, res);
	if (res->status == RES_FATAL)
		return fail(err, "%s: worker restarted, settings kept", res->error);
	if (res->status == RES_ERROR)
		return fail(err, "%s", res->error);
	if (getenv("CUPLAY_TRACE"))
		fprintf(stderr, "trace: %s compile %.2f ms (%s), worker %.2f ms (setup %.2f, check %.2f, timing %.2f), "
		        "round trip %.2f ms, samples %d\n", p->launch.name, c->compile_ms,
		        c->from == CC_COMPILED ? "compiled" : c->from == CC_MEMORY ? "memory" : "disk",
		        res->launch_ms, res->setup_ms, res->check_ms, res->time_ms,
		        (double)(now_ns() - t_req) / 1e6, res->nsamples);
	return 0;
}

/* The values of `//@ check at`, evaluated with the run's values. */
int check_at_values(app *a, const runctx *c, symtab *extra, char **err)
{
	const spec *s = a->sp;
	memset(extra, 0, sizeof *extra);
	for (int i = 0; i < s->ncheck_at; i++) {
		const spec_var *cv = &s->check_at[i];
		value v;
		int col = 0;
		char *msg = NULL;
		if (expr_eval(cv->value.text, &c->vals, &v, &col, &msg) != 0) {
			fail(err, "%s:%d:%d: %s", s->path, cv->value.line, cv->value.col + (col > 0 ? col - 1 : 0), msg);
			free(msg);
			symtab_free(extra);
			return -1;
		}
		symtab_set(extra, cv->name, v, 0);
	}
	return 0;
}

int run_check_plan(app *a, runctx *c, int k, const plan *p, plan *pc, void **cubin, size_t *len, char **err)
{
	if (a->sp->ncheck_at == 0 || !p->t.do_check)
		return 0;
	symtab extra;
	if (check_at_values(a, c, &extra, err) != 0)
		return -1;
	runctx cc;
	int r = run_prepare(a, &extra, 0, &cc);
	symtab_free(&extra);
	if (r != 0)
		return fail(err, "cannot prepare the check pass ('//@ check at')");
	timing_opts tc = p->t;
	tc.do_time = 0;
	r = run_plan(a, &cc, k, &tc, pc, err);
	if (r == 0) {
		*len = cc.u->cubin_len;
		*cubin = xmalloc(*len);
		memcpy(*cubin, cc.u->cubin, *len);
	}
	run_release(&cc);
	return r == 0 ? 1 : -1;
}

int run_exec_checked(app *a, runctx *c, int k, plan *p, result *res, char **err)
{
	if (a->sp->ncheck_at == 0 || !p->t.do_check || !c->gpu)
		return run_exec(a, c, p, res, err);
	/* check small: a plan at the `check at` values, checking only */
	plan *pc = xcalloc(1, sizeof *pc);
	void *cubin = NULL;
	size_t len = 0;
	int r = run_check_plan(a, c, k, p, pc, &cubin, &len, err);
	if (r == 1) {
		memset(res, 0, sizeof *res);
		r = wc_run(&a->worker, pc, cubin, len, a->timeout_s, (volatile int *)&g_interrupt, progress, a, res, err);
		if (r == 0 && (res->status == RES_FATAL || res->status == RES_ERROR))
			r = fail(err, "%s%s", res->error, res->status == RES_FATAL ? ": worker restarted, settings kept" : "");
	}
	free(pc);
	free(cubin);
	if (r != 0)
		return -1;
	int nchecks = res->nchecks;
	check_result checks[PLAN_MAX_CHECKS];
	memcpy(checks, res->checks, sizeof checks);
	/* then time large, without checking again */
	p->t.do_check = 0;
	r = run_exec(a, c, p, res, err);
	p->t.do_check = 1;
	if (r != 0)
		return -1;
	res->nchecks = nchecks;
	memcpy(res->checks, checks, sizeof checks);
	return 0;
}

/* "N=509" for the note under a table. */
static char *check_at_text(const app *a)
{
	sbuf b = {0};
	for (int i = 0; i < a->sp->ncheck_at; i++)
		sb_printf(&b, "%s%s=%s", i ? " " : "", a->sp->check_at[i].name, a->sp->check_at[i].value.text);
	return sb_steal(&b);
}

/* A kernel within 2x of an empty launch measures the launch, not itself. */
static void launch_bound_note(app *a, const char *name, const result *res, const stats *st)
{
	if (res->nsamples == 0 || !(res->empty_ms > 0) || st->median >= 2 * res->empty_ms)
		return;
	char e[32], m[32];
	fmt_time_ms(res->empty_ms, e, sizeof e);
	fmt_time_ms(st->median, m, sizeof m);
	if (a->topt.batch > 1)
		app_note(a, "%s: launch-bound: %s a launch, within 2x of an empty launch (%s) in batches of %d",
		         name, a->mask_times ? "<t>" : m, a->mask_times ? "<t>" : e, a->topt.batch);
	else
		app_note(a, "%s: launch-bound: %s is within 2x of an empty launch (%s); 'batch 100' times "
		         "back-to-back launches", name, a->mask_times ? "<t>" : m, a->mask_times ? "<t>" : e);
}

/* The compile-only row: resources and geometry. */
/* compile-only: what the compile says of each kernel, and its launch */
static void resource_table_init(table *t)
{
	const char *head[] = { "kernel", "regs", "smem", "stack", "spills", "grid", "block", "dyn smem" };
	table_init(t, 8, head, "lrrrrlll");
	table_kind(t, "resources");
	table_col(t, 1, NULL, U_INT, COL_BOTH);
	table_col(t, 2, "smem_bytes", U_BYTES, COL_BOTH);
	table_col(t, 3, "stack_bytes", U_BYTES, COL_BOTH);
	table_col(t, 4, "spill_bytes", U_BYTES, COL_BOTH);
	table_col(t, 7, "dyn_smem_bytes", U_BYTES, COL_BOTH);
}

static void resource_row(table *t, const runctx *c, const plan *p)
{
	const kres *kr = &c->u->res[cunit_find(c->u, p->launch.name)];
	int r = table_row(t);
	char g[64], b[64];
	fmt_dims(g, sizeof g, p->launch.grid);
	fmt_dims(b, sizeof b, p->launch.block);
	table_set(t, r, 0, "%s", p->launch.name);
	if (kr->known) {
		table_num(t, r, 1, kr->regs);
		table_num(t, r, 2, kr->smem);
		table_num(t, r, 3, kr->stack);
		if (kr->spill_st >= 0 && kr->spill_ld >= 0)
			table_num(t, r, 4, kr->spill_st + kr->spill_ld);
		else
			table_set(t, r, 4, "-");
	}
	table_set(t, r, 5, "%s", g);
	table_set(t, r, 6, "%s", b);
	if (p->launch.smem)
		table_num(t, r, 7, p->launch.smem);
}

int app_run(app *a, char **names, int nnames)
{
	uint64_t t_start = now_ns();
	int *ks = NULL, nk = 0;
	if (pick_kernels(a, names, nnames, &ks, &nk) != 0)
		return -1;
	runctx c;
	if (run_prepare(a, NULL, 1, &c) != 0) {
		free(ks);
		return -1;
	}
	int rc = 0;
	table t;
	if (!c.gpu)
		resource_table_init(&t);
	else
		measure_table_init(&t, 0, 0, NULL, NULL);
	plan *p = xcalloc(1, sizeof *p);
	result *res = xcalloc(1, sizeof *res);
	int printed_bufs = 0, nrec = 0;
	char *err = NULL;
	const run_observer *ob = a->observer; /* `metrics on`, throttling notes */
	void *ost = ob ? ob->begin(a, &c) : NULL;
	for (int i = 0; i < nk && !g_interrupt; i++) {
		const char *name = a->sp->kernels[ks[i]].name;
		if (run_plan(a, &c, ks[i], &a->topt, p, &err) != 0) {
			app_error_msg(a, err);
			free(err);
			err = NULL;
			rc = -1;
			continue;
		}
		if (!c.gpu) {
			if (!printed_bufs)
				print_buffers(a, p);
			printed_bufs = 1;
			resource_row(&t, &c, p);
			measurement cm;
			measure_init(&cm, a->path, p, c.vline, a->topt.do_check, &c.u->res[cunit_find(c.u, name)]);
			cm.sm = c.sm;
			cm.compile_ms = c.from == CC_COMPILED ? c.compile_ms : 0;
			keep_record(a, &cm);
			continue;
		}
		if (ob)
			ob->plan(ost, p);
		if (run_exec_checked(a, &c, ks[i], p, res, &err) != 0) {
			app_error(a, "%s: %s", name, err ? err : "the worker failed");
			free(err);
			err = NULL;
			rc = -1;
			continue;
		}
		measurement *m = (measurement *)add_record(a, c.vline, res, p);
		m->res = c.u->res[cunit_find(c.u, name)];
		m->sm = c.sm;
		m->compile_ms = c.from == CC_COMPILED ? c.compile_ms : 0;
		measure_row(&t, table_row(&t), 0, m, a->mask_times);
		check_failures(a, p, res);
		clock_note(a, res);
		launch_bound_note(a, name, res, &m->st);
		if (m->check == MCHECK_FAIL)
			rc = -1;
		if (ob)
			ob->result(a, ost, &c, p, res);
		nrec += res->nsamples > 0;
		if (res->status == RES_INTERRUPTED)
			break;
	}
	if (t.nrows > 0)
		app_table(a, &t, 0);
	if (!c.gpu && t.nrows > 0)
		app_note(a, "not launched (no GPU)");
	if (a->sp->ncheck_at > 0 && a->topt.do_check && t.nrows > 0) {
		char *ca = check_at_text(a);
		app_note(a, "%s at %s ('//@ check at'), timed at the values above", c.gpu ? "checked" : "to be checked", ca);
		free(ca);
	}
	if (ob)
		ob->end(a, ost);
	if (c.gpu && nrec > 1 && a->format == FMT_TABLE && !a->mask_times) {
		/* several kernels: the speedup over the first, as the lab's graph */
		chart ch;
		char *title = xasprintf("speedup over %s", a->runs[a->nruns - nrec].kernel);
		chart_init(&ch, title, "x");
		free(title);
		ch.baseline = 0;
		double base = a->runs[a->nruns - nrec].st.median, best = 0;
		for (int i = a->nruns - nrec; i < a->nruns; i++) {
			const run_record *r = &a->runs[i];
			double sp = r->st.median > 0 ? base / r->st.median : 0;
			if (r->check != MCHECK_FAIL && sp > best) {
				best = sp;
				ch.best = ch.n;
			}
			chart_add(&ch, r->kernel, sp, r->check == MCHECK_FAIL ? "FAIL" : NULL);
		}
		chart_print(&ch, stdout, a->tty, a->color, 40);
		app_keep_chart(a, &ch);
	}
	if (g_interrupt) {
		app_note(a, "interrupted");
		rc = -1;
	}
	if (t.nrows > 0)
		app_keep_table(a, &t);
	else
		table_free(&t);
	free(p);
	free(res);
	free(ks);
	run_release(&c);
	fflush(stdout);
	if (getenv("CUPLAY_TRACE"))
		fprintf(stderr, "trace: run total %.2f ms\n", (double)(now_ns() - t_start) / 1e6);
	return rc;
}
