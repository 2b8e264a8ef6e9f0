/* app.c: the application's state: start and end, messages and notes, the
 * document results print into, the records of what was measured, and the
 * GPU worker brought up on demand. */
#include "app.h"
#include "sass.h"
#include "ccserver.h"
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
	nvrtc_warm_up();
	return NULL;
}

void app_warm_join(void)
{
	if (g_warming)
		pthread_join(g_warm, NULL);
	g_warming = 0;
}

/* A machine without a GPU device starts no worker: compile-only mode at
 * once, with the reason (kept for `device`). 1 when there is none. */
static int gpu_absent(app *a)
{
	if (a->gpu == 0)
		return 1;
	char *why = NULL;
	if (a->gpu == 1 || !wc_gpu_absent(&why))
		return 0;
	a->gpu = 0;
	free(a->gpu_why);
	a->gpu_why = why;
	return 1;
}

/* At `use`, and when the prompt first shows: start what the first run will
 * need (NVRTC warmed up, the GPU worker making its context and setting up
 * CUPTI), quietly, while the user types. Errors surface at `run`. */
void app_prestart(app *a)
{
	static int warmed;
	if (ccs_enabled()) {
		/* the compile server warms NVRTC up in its own process */
		if (!getenv("CUPLAY_NO_WARMUP") && a->opt.interactive)
			ccs_prestart_spare(); /* compiles go ahead in the background at the prompt */
		else if (!getenv("CUPLAY_NO_WARMUP"))
			ccs_prestart();
	} else if (!warmed && !getenv("CUPLAY_NO_WARMUP")) {
		warmed = 1;
		/* the thread blocks every signal: a Ctrl-C goes to the main thread,
		 * where it interrupts the wait at the prompt */
		sigset_t all, old;
		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		g_warming = pthread_create(&g_warm, NULL, warm_nvrtc, NULL) == 0;
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	if (!a->opt.no_gpu && a->gpu != 0 && !a->worker.pid && !getenv("CUPLAY_NO_WARMUP") && !gpu_absent(a)) {
		char *err = NULL;
		a->worker.device = a->device_set ? a->device : -1;
		if (wc_spawn(&a->worker, &err) != 0)
			free(err); /* said again, properly, by the first run */
		else if (getenv("CUPLAY_TRACE"))
			fprintf(stderr, "trace: worker: starting in the background (pid %d)\n", (int)a->worker.pid);
	}
}

/* The worker's notes during a run: "waiting for GPU 0 (another cuplay is
 * measuring)". */
static void worker_note(void *ctx, const char *text)
{
	app_note(ctx, "%s", text);
}

void app_worker_notes(app *a, wclient *w)
{
	w->note = worker_note;
	w->note_ctx = a;
}

void app_init(app *a, const char *exe)
{
	memset(a, 0, sizeof *a);
	a->opt.exe = exe;
	a->gpu = -1;
	a->recording.fd = -1;
	a->format = FMT_TABLE;
	doc_open(&a->out, stdout, FMT_TABLE, 0, CUPLAY_VERSION);
	a->opt.timeout_s = 10;
	a->opt.topt = (timing_opts){
		.warmup = 2, .min_reps = 10, .max_reps = RES_MAX_SAMPLES, .rule = RULE_INTERVAL, .target = 0.005,
		.noise_target = 0.005, .min_time_s = TIMING_MIN_INTERVAL_S, .max_time_s = 0.5, .max_wall_s = 1.0,
		.flush = 1, .do_check = 1, .do_time = 1, .batch = 1,
	};
	ccache_init(&a->cache, NULL);
	a->worker.exe = exe;
	app_worker_notes(a, &a->worker);
	search_set_exe(exe);
}

static void record_free(run_record *r)
{
	measure_free(r);
}

enum { HISTORY_KEPT = 4096 };

void app_results_add_history(app_results *r, const char *line)
{
	if (!line || !*line)
		return;
	if (r->nhistory == HISTORY_KEPT) {
		for (int i = 0; i < HISTORY_KEPT / 2; i++)
			free(r->history[i]);
		memmove(r->history, r->history + HISTORY_KEPT / 2, (HISTORY_KEPT / 2) * sizeof *r->history);
		r->nhistory = HISTORY_KEPT / 2;
	}
	if (r->nhistory == r->caphistory) {
		r->caphistory = r->caphistory ? r->caphistory * 2 : 32;
		r->history = xrealloc(r->history, (size_t)r->caphistory * sizeof *r->history);
	}
	r->history[r->nhistory++] = xstrdup(line);
}

void app_results_keep_table(app_results *r, table *t)
{
	if (r->have_last)
		table_free(&r->last);
	r->last = *t;
	r->have_last = 1;
	memset(t, 0, sizeof *t);
}

void app_results_free(app_results *r)
{
	for (int i = 0; i < r->nhistory; i++)
		free(r->history[i]);
	free(r->history);
	for (int i = 0; i < r->nruns; i++)
		record_free(&r->runs[i]);
	free(r->runs);
	free(r->last_run);
	if (r->have_last)
		table_free(&r->last);
	if (r->have_chart)
		chart_free(&r->last_chart);
	memset(r, 0, sizeof *r);
}

void app_file_switch(app_file *f, const char *path)
{
	if (f->path && strcmp(f->path, path) == 0)
		return;
	if (f->path && f->settings.n > 0) {
		int i = 0;
		while (i < f->nsaved && strcmp(f->saved[i].path, f->path) != 0)
			i++;
		if (i == f->nsaved) {
			f->saved = xrealloc(f->saved, (size_t)(f->nsaved + 1) * sizeof *f->saved);
			f->saved[f->nsaved++].path = xstrdup(f->path);
		} else {
			symtab_free(&f->saved[i].set);
		}
		f->saved[i].set = f->settings;
		memset(&f->settings, 0, sizeof f->settings);
	}
	symtab_free(&f->settings);
	for (int i = 0; i < f->nsaved; i++)
		if (strcmp(f->saved[i].path, path) == 0) {
			f->settings = f->saved[i].set;
			free(f->saved[i].path);
			f->saved[i] = f->saved[--f->nsaved];
			break;
		}
}

void app_file_free(app_file *f)
{
	if (f->sp) {
		spec_free(f->sp);
		free(f->sp);
	}
	free(f->path);
	free(f->use_failed);
	symtab_free(&f->settings);
	for (int i = 0; i < f->nsaved; i++) {
		free(f->saved[i].path);
		symtab_free(&f->saved[i].set);
	}
	free(f->saved);
	memset(f, 0, sizeof *f);
}

void app_free(app *a)
{
	app_free_list(a->last_run.names, a->last_run.n);
	free(a->last_run.path);
	doc_close(&a->out);
	app_warm_join();
	free(a->clock_why);
	free(a->board_url);
	free(a->board_token);
	sb_free(&a->state_said);
	free(a->gpu_why);
	free(a->clk_why);
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
	app_file_free(&a->file);
	ccache_free(&a->cache);
	app_results_free(&a->results);
	free(a->timeline.spans);
	free(a->timeline.title);
	free(a->timeline.why);
	if (a->recording.fd >= 0)
		close(a->recording.fd);
	free(a->recording.path);
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

/* msg with its control bytes written \xNN (a name's never reach the
 * terminal raw) and each line over ERROR_LINE_MAX bytes cut in the middle
 * (a 200 KB expression is not echoed whole). */
#define ERROR_LINE_MAX 400
static char *error_text(const char *msg)
{
	sbuf b = {0};
	for (const char *p = msg; *p;) {
		size_t n = strcspn(p, "\n");
		char *line = xstrndup(p, n);
		char *v = n > ERROR_LINE_MAX ? str_excerpt(line, ERROR_LINE_MAX) : str_visible_text(line);
		sb_puts(&b, v);
		free(v);
		free(line);
		p += n;
		if (*p == '\n') {
			sb_putc(&b, '\n');
			p++;
		}
	}
	return sb_steal(&b);
}

int app_error_msg(app *a, const char *msg)
{
	fflush(stdout);
	char *m = error_text(msg);
	char *where = a->in_file ? str_visible(a->in_file) : NULL;
	char *line = where ? xasprintf("%s:%d: %s", where, a->in_line, m)
	             : has_location(m) ? xstrdup(m) : xasprintf("error: %s", m);
	if (a->display && a->display->show_error)
		a->display->show_error(a->display->ctx, line);
	else
		fprintf(stderr, "%s\n", line);
	free(line);
	free(m);
	free(where);
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
	sbuf b = {0};
	va_list ap;
	va_start(ap, fmt);
	sb_vprintf(&b, fmt, ap);
	va_end(ap);
	sb_putc(&b, '\n');
	char *m = str_visible_text(b.s);
	fputs(m, f); /* one call: a line from a sweep's thread is never split */
	fflush(f);
	free(m);
	sb_free(&b);
}

void app_table(app *a, const table *t, int indent)
{
	if (a->display && a->display->show_table && a->format == FMT_TABLE) {
		fflush(stdout);
		a->display->show_table(a->display->ctx, t, indent);
		return;
	}
	a->out.color = a->opt.color;
	doc_table(&a->out, t, indent);
}

void app_format(app *a, out_format f)
{
	if (f == a->format)
		return;
	doc_close(&a->out);
	a->format = f;
	doc_open(&a->out, stdout, f, a->opt.color, CUPLAY_VERSION);
}

void app_figure(app *a, const char *text, const char *svg)
{
	if (a->display && a->display->show_figure) {
		fflush(stdout);
		a->display->show_figure(a->display->ctx, text, svg);
		return;
	}
	fputs(text, stdout);
}

void app_chart_show(app *a, const chart *c)
{
	if (!(a->display && a->display->show_figure)) {
		chart_print(c, stdout, a->opt.tty, a->opt.color, 40);
		return;
	}
	char *text = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&text, &n);
	if (!f)
		return;
	chart_print(c, f, 0, 0, 40);
	fclose(f);
	sbuf svg = {0};
	chart_svg_text(c, &svg, 0);
	app_figure(a, text, svg.s);
	sb_free(&svg);
	free(text);
}

void app_progress(app *a, const char *fmt, ...)
{
	if (!a->opt.interactive && !(a->display && a->display->show_progress))
		return;
	sbuf b = {0};
	va_list ap;
	va_start(ap, fmt);
	sb_vprintf(&b, fmt, ap);
	va_end(ap);
	if (a->opt.interactive) {
		fprintf(stderr, "\r\033[K%s", b.s ? b.s : "");
		fflush(stderr);
	} else {
		a->display->show_progress(a->display->ctx, b.s ? b.s : "");
	}
	sb_free(&b);
}

void app_keep_chart(app *a, chart *c)
{
	if (a->results.have_chart)
		chart_free(&a->results.last_chart);
	a->results.last_chart = *c;
	a->results.have_chart = 1;
	a->timeline.plot = 0;
	memset(c, 0, sizeof *c);
}

/* ---- kernel files ---- */

/* The first worker not told which GPU to use claimed one: its GPU is the
 * session's from now on, said once where there was a choice. */
static void claimed_note(app *a)
{
	if (!a->device_set) {
		a->device = a->worker.device = a->worker.dev.ordinal;
		a->device_set = 1;
		a->claim_unsaid = a->worker.dev.count > 1;
	}
	if (!a->claim_unsaid || a->quiet_claim)
		return;
	a->claim_unsaid = 0;
	app_note(a, "GPU %d of %d (%s): the one of its kind fewest cuplay processes use; 'device N' "
	         "or --device N picks one", a->device, a->worker.dev.count, a->worker.dev.name);
}

int app_gpu_ready(app *a)
{
	/* at the prompt alone: a replay's notes keep their place */
	if (a->gpu != -1 || a->opt.no_gpu || !a->opt.interactive || !wc_hello_ready(&a->worker))
		return a->gpu == 1;
	char *err = NULL;
	if (wc_start(&a->worker, &err) != 0) {
		free(err); /* said by the first run, which starts it again */
		return 0;
	}
	a->gpu = 1;
	a->quiet_claim = 1; /* the GPU claimed, said by the first command that uses it */
	claimed_note(a);
	a->quiet_claim = 0;
	return 1;
}

int app_gpu(app *a)
{
	if (a->opt.no_gpu) {
		if (!a->notice_said)
			app_note(a, "compile-only mode (--no-gpu)");
		a->notice_said = 1;
		a->gpu = 0;
		return 0;
	}
	if (a->gpu == 0 || (a->gpu == -1 && gpu_absent(a))) {
		if (a->gpu_why && !a->notice_said) /* found at the prompt or at `use`: said once */
			app_note(a, "%s: compile-only mode", a->gpu_why);
		a->notice_said = 1;
		return 0;
	}
	if (a->worker.pid && !a->worker.hello_pending) {
		a->gpu = 1;
		claimed_note(a); /* where app_gpu_ready took the HELLO */
		return 1;
	}
	char *err = NULL;
	if (!a->worker.pid)
		a->worker.device = a->device_set ? a->device : -1;
	if (wc_start(&a->worker, &err) == 0) {
		a->gpu = 1;
		claimed_note(a);
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

void app_gpu_background(app *a)
{
	if (a->opt.no_gpu || gpu_absent(a)) {
		app_gpu(a); /* "compile-only mode (--no-gpu)", or why there is no GPU */
		return;
	}
	app_prestart(a);
}

/* ---- the run ---- */

static measurement *new_record(app *a)
{
	app_results *r = &a->results;
	/* the history `expect` looks in: the last RUNS_KEPT runs, so a long
	 * session's memory stays flat */
	if (r->nruns == RUNS_KEPT) {
		for (int i = 0; i < RUNS_KEPT / 2; i++)
			record_free(&r->runs[i]);
		memmove(r->runs, r->runs + RUNS_KEPT / 2, (size_t)(RUNS_KEPT - RUNS_KEPT / 2) * sizeof *r->runs);
		r->nruns = RUNS_KEPT - RUNS_KEPT / 2;
	}
	if (r->nruns == r->capruns) {
		r->capruns = r->capruns ? r->capruns * 2 : 16;
		r->runs = xrealloc(r->runs, (size_t)r->capruns * sizeof *r->runs);
	}
	return &r->runs[r->nruns++];
}

static void stamp(app *a, measurement *m)
{
	if (a->gpu == 1 && a->worker.dev.name[0] && !m->device)
		m->device = xstrdup(a->worker.dev.name);
	if (a->cmd_text && !m->command)
		m->command = xstrdup(a->cmd_text);
	if (m->timed && m->clock == CLOCK_KERNEL && a->clk_device == a->device + 1 && a->clk.known) {
		m->clock_offset_known = 1;
		m->clock_offset_us = a->clk.offset_us;
	}
}

int app_roofs_once(app *a)
{
	if (a->opt.no_gpu || a->gpu == 0 || !a->roofs_measure || a->roof_busy || a->roof.device == a->device + 1)
		return 0;
	int gpu = app_gpu(a);
	if (gpu <= 0)
		return gpu;
	a->roof_busy = 1;
	if (a->roofs_measure(a, 0) != 0) {
		/* said; not tried again on this device (`roof` does): the runs go
		 * on against the worker's copy roof */
		memset(&a->roof, 0, sizeof a->roof);
		a->roof.device = a->device + 1;
	}
	a->roof_busy = 0;
	return 0;
}

int app_roofs_later(app *a)
{
	if (!a->opt.interactive || a->opt.no_gpu || a->gpu == 0 || !a->roofs_measure || a->roof_busy ||
	    a->roof.device == a->device + 1 || app_gpu(a) <= 0)
		return 0;
	if (a->roofs_measure(a, ROOFS_CACHED) == 0)
		return 0;
	if (!a->roof_later)
		a->roof_later = a->results.nruns + 1;
	if (getenv("CUPLAY_TRACE"))
		fprintf(stderr, "trace: roof: the roofs and the kernel clock's check wait until after the result\n");
	return 1;
}

int app_gave_way(app *a)
{
	if (!a->roof_yield)
		return 0;
	struct pollfd in = { .fd = STDIN_FILENO, .events = POLLIN };
	if (g_interrupt || (poll(&in, 1, 0) == 1 && (in.revents & (POLLIN | POLLHUP)))) {
		a->roof_gave_way = 1;
		if (getenv("CUPLAY_TRACE"))
			fprintf(stderr, "trace: roof: a line typed: the measurement gives way to it\n");
	}
	return a->roof_gave_way;
}

/* The kept table of the run (`save`) whose row waited for its roof: that
 * row drawn again from its record, now with its roof. */
static void refresh_last_row(app *a, const measurement *m)
{
	table *t = &a->results.last;
	if (!a->results.have_last || t->ncols != M_N || !t->key || !t->key[M_KERNEL] ||
	    strcmp(t->key[M_KERNEL], "kernel") != 0)
		return;
	char k[256], v[1024], f[1024], roof[64];
	for (int r = 0; r < t->nrows; r++) {
		table_text(t, r, M_KERNEL, k, sizeof k);
		table_text(t, r, M_VALUES, v, sizeof v);
		table_text(t, r, M_FILE, f, sizeof f);
		table_text(t, r, M_ROOF, roof, sizeof roof);
		if (!roof[0] && strcmp(k, m->kernel) == 0 && strcmp(v, m->values ? m->values : "") == 0 &&
		    strcmp(f, m->file ? m->file : "") == 0)
			measure_row(t, r, 0, m, a->opt.mask_times);
	}
}

/* The records that waited for the roofs get them, a note each. */
static void roofs_fill(app *a, int first)
{
	for (int i = first < a->results.nruns ? first : 0; i < a->results.nruns; i++) {
		measurement *m = &a->results.runs[i];
		if (m->roof_gbps > 0 || m->link[0] || !m->timed || !m->device || strcmp(m->device, a->worker.dev.name) != 0)
			continue;
		app_roof_record(a, m);
		app_flag_flops(a, m);
		if (m->timed && m->clock == CLOCK_KERNEL && a->clk_device == a->device + 1 && a->clk.known) {
			m->clock_offset_known = 1;
			m->clock_offset_us = a->clk.offset_us;
		}
		refresh_last_row(a, m);
		if (!(m->roof_frac > 0))
			continue;
		if (a->opt.mask_times)
			app_note(a, "%s: <t> of the memory roof (the roofs measured after its result)", m->kernel);
		else
			app_note(a, "%s: %.1f%% of the memory roof (%.0f of %.0f GB/s; the roofs measured after its result)",
			         m->kernel, 100 * m->roof_frac, m->gbps, m->roof_gbps);
	}
}

void app_roofs_after(app *a)
{
	/* a compile in the background (a `set` typed while they were
	 * measured) is the next run's: they wait for a prompt without one */
	if (!a->roof_later || a->roof_busy || a->gpu != 1 || ccache_pending(&a->cache))
		return;
	a->roof_yield = 1;
	a->roof_gave_way = 0;
	if (app_gave_way(a)) {
		a->roof_yield = 0;
		return;
	}
	a->roof_busy = 1;
	uint64_t t0 = now_ns();
	int rc = a->roofs_measure(a, ROOFS_MEMORY);
	if (rc != 0 && !app_gave_way(a)) {
		/* said; not tried again on this device (`roof` does) */
		memset(&a->roof, 0, sizeof a->roof);
		a->roof.device = a->device + 1;
	}
	a->roof_busy = 0;
	a->roof_yield = 0;
	if (getenv("CUPLAY_TRACE"))
		fprintf(stderr, "trace: roof: measured after the result in %.1f ms%s\n", ms_since(t0),
		        a->roof_gave_way ? ", stopped for the line typed: the next prompt goes on" : "");
	if (a->roof_gave_way)
		return;
	int first = a->roof_later - 1;
	a->roof_later = 0;
	roofs_fill(a, first);
	fflush(stdout);
}

int app_src_tensor(const char *src)
{
	static const char *const words[] = { "wmma", "mma.sync", "wgmma", "mma.h", "mma_sync" };
	for (size_t i = 0; src && i < ARRAY_LEN(words); i++)
		if (strstr(src, words[i]))
			return 1;
	return 0;
}

kpipe app_kernel_pipe(const cunit *u, const char *name)
{
	kpipe kp = { -1, 0 };
	int ci = u ? cunit_find(u, name) : -1;
	if (ci < 0 || !u->ptx || !u->lowered[ci])
		return kp;
	char *f = ptx_extract(u->ptx, u->lowered[ci], NULL, 0);
	if (!f)
		return kp;
	tensor_use use;
	tensor_use_ptx(f, &use);
	free(f);
	kp.pipe = use.prec >= 0 ? use.prec : PIPE_FP32;
	kp.packed_half = use.packed_half;
	return kp;
}

int app_troofs_once(app *a)
{
	if (a->opt.no_gpu || a->gpu == 0 || !a->roofs_measure || a->roof_busy || a->troof.device == a->device + 1)
		return 0;
	int gpu = app_gpu(a);
	if (gpu <= 0)
		return gpu;
	a->roof_busy = 1;
	if (a->roofs_measure(a, 1) != 0) {
		/* said; not tried again on this device (`roof` does) */
		memset(&a->troof, 0, sizeof a->troof);
		a->troof.device = a->device + 1;
	}
	a->roof_busy = 0;
	return 0;
}

void app_set_pipe(const app *a, measurement *m, kpipe kp)
{
	m->pipe = kp.pipe;
	m->packed_half = kp.packed_half;
	app_flag_flops(a, m);
}

void app_flag_flops(const app *a, measurement *m)
{
	double roof = 0;
	if (m->pipe == PIPE_FP32 && a->roof.device == a->device + 1)
		roof = a->roof.gflops * (m->packed_half ? 2 : 1);
	else if (m->pipe >= 0 && m->pipe < TP_N && a->troof.device == a->device + 1)
		roof = a->troof.roof[m->pipe];
	measure_set_flops_roof(m, roof);
}

double app_pipe_roof(app *a, int p)
{
	if (p == PIPE_FP32) {
		if (app_roofs_once(a) != 0)
			return 0;
		return a->roof.device == a->device + 1 ? a->roof.gflops : 0;
	}
	if (p < 0 || p >= TP_N || app_troofs_once(a) != 0)
		return 0;
	return a->troof.device == a->device + 1 ? a->troof.roof[p] : 0;
}

/* The timeline of the run of record m, or why there is none. */
static void timeline_keep(timeline_kept *t, const result *res, const measurement *m)
{
	free(t->spans);
	free(t->title);
	free(t->why);
	t->spans = NULL;
	t->why = NULL;
	t->n = res->nspans > 0 && res->nspans <= RES_MAX_SPANS ? res->nspans : 0;
	t->lost = res->spans_lost;
	t->title = xasprintf("%s %s", m->kernel, m->values);
	t->unavailable = res->tl_note[0] != 0;
	if (t->n > 0) {
		t->spans = xmalloc((size_t)t->n * sizeof *t->spans);
		memcpy(t->spans, res->spans, (size_t)t->n * sizeof *t->spans);
	} else if (res->tl_note[0]) {
		t->why = xstrndup(res->tl_note, strnlen(res->tl_note, sizeof res->tl_note));
	} else {
		t->why = xasprintf("%s ran alone on data already on the GPU: a timeline is recorded for runs "
		                      "on host data ('//@ buffer ... host') and for batches ('batch N')", m->kernel);
	}
}

void app_roof_record(app *a, measurement *m)
{
	if (a->roof.device == a->device + 1)
		measure_use_roof(m, a->roof.best);
	else if (a->roof_later && !m->link[0])
		measure_set_roof(m, 0); /* the device's roof comes after the result, not the worker's copy roof */
}

const measurement *add_record(app *a, const char *values, const result *res, const plan *p)
{
	measurement *m = new_record(a);
	measure_make(m, a->file.path, p, res, values, a->opt.topt.do_check);
	app_roof_record(a, m);
	stamp(a, m);
	if (res->nsamples > 0)
		timeline_keep(&a->timeline, res, m);
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


void app_current_dev(app *a, devinfo *dev)
{
	if (a->gpu == 1)
		*dev = a->worker.dev;
	else
		devinfo_for_arch(a->opt.arch_sm ? a->opt.arch_sm : 90, dev);
}

void app_free_list(char **v, int n)
{
	for (int i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* ---- the kernel clock's check, under a results table ---- */

void app_clock_add(const app *a, const measurement *m, sbuf *note)
{
	if (!m->timed || m->clock != CLOCK_KERNEL || a->clk_device != a->device + 1)
		return;
	char *t = clockcal_result(&a->clk, m->st.median);
	if (!t)
		return;
	sb_printf(note, "%s%s %s", note->len ? ", " : "", m->kernel, t);
	free(t);
}

void app_clock_say(app *a, sbuf *note)
{
	if (note->len && !a->opt.mask_times)
		app_note(a, "kernel clock: %s, by the offset this GPU's kernel clock showed against the profiler's "
		         "duration (not subtracted; `device` says more)", note->s);
	sb_free(note);
}
