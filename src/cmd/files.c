/* files.c: kernel files: find, use and re-read one, set and unset its
 * values, show it, list them all. */
#include "files.h"
#include "ref.h"
#include "fileio.h"
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
	if (read_file(path, &src, &len) != 0) {
		const char *kind = file_kind(path);
		char *shown = str_visible(path);
		if (kind)
			app_error(a, "cannot read '%s': it is %s, not a kernel file", shown, kind);
		else
			app_error(a, "cannot read '%s': %s", shown, strerror(errno));
		free(shown);
		return -1;
	}
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

static int use_file(app *a, const char *name);

/* A `use` that fails leaves the file loaded before it; where there is none,
 * what needs a file says so once (not as a second error of the same mistake). */
int app_use(app *a, const char *name)
{
	int r = use_file(a, name);
	free(a->file.use_failed);
	a->file.use_failed = r != 0 && !a->file.sp ? str_excerpt(name, 200) : NULL;
	if (r != 0 && a->file.sp) {
		char *shown = str_visible(a->file.path);
		app_note(a, "(still using %s)", shown);
		free(shown);
	}
	return r;
}

static int use_file(app *a, const char *name)
{
	char *path = search_find(SEARCH_KERNELS, name);
	const char *kind = NULL;
	char *refused = path ? NULL : search_refused(SEARCH_KERNELS, name, &kind);
	if (refused) {
		char *shown = str_visible(refused);
		app_error(a, "cannot use '%s': it is %s, not a kernel file", shown, kind);
		free(shown);
		free(refused);
		return -1;
	}
	if (!path) {
		char *shown = str_excerpt(name, 200);
		int n;
		char **files = app_kernel_files(&n);
		const char *near = nearest_name(name, (const char *const *)files, n);
		sbuf known = {0};
		for (int i = 0; i < n; i++)
			sb_printf(&known, "%s%s", i ? ", " : "", files[i]);
		if (near)
			app_error(a, "cannot find kernel file '%s' (did you mean '%s'?)", shown, near);
		else {
			char *dirs = searched(SEARCH_KERNELS);
			app_error(a, "cannot find kernel file '%s' (in %s: %s)", shown, dirs,
			          known.len ? known.s : "none");
			free(dirs);
		}
		free(shown);
		sb_free(&known);
		app_free_list(files, n);
		return -1;
	}
	spec *s = NULL;
	if (load_spec(a, path, &s) != 0) {
		free(path);
		return -1;
	}
	if (s->nkernels == 0) {
		/* nothing to run: not a kernel file (a text, a binary, a header) */
		char *shown = str_visible(path);
		app_error(a, "cannot use '%s': it has no __global__ function, so no kernel to run", shown);
		free(shown);
		spec_free(s);
		free(s);
		free(path);
		return -1;
	}
	app_file_switch(&a->file, path);
	if (a->file.sp) {
		spec_free(a->file.sp);
		free(a->file.sp);
	}
	free(a->file.path);
	a->file.sp = s;
	a->file.path = path;
	file_guard("the kernel file in use", path);
	app_prestart(a);
	int launchable = 0;
	for (int i = 0; i < s->nkernels; i++)
		launchable += spec_kernel_launchable(s, i);
	sbuf b = {0};
	char *shown = str_visible(path); /* a newline in a name never makes a line of its own */
	sb_printf(&b, "%s: %d kernel%s", shown, launchable, launchable == 1 ? "" : "s");
	free(shown);
	for (int i = 0, k = 0; i < s->nkernels; i++)
		if (spec_kernel_launchable(s, i))
			sb_printf(&b, "%s%s%s", k++ ? ", " : " (", s->kernels[i].name,
			          s->kernels[i].nsteps ? " (sequence)" : s->kernels[i].is_step ? " (step)" : "");
	if (launchable)
		sb_putc(&b, ')');
	app_note(a, "%s", b.s);
	sb_free(&b);
	return 0;
}

int app_reload(app *a)
{
	if (!a->file.path)
		return app_error(a, "no kernel file: 'use FILE' first (see 'ls')");
	char *src = NULL;
	if (read_file(a->file.path, &src, NULL) != 0)
		return app_error(a, "cannot read '%s': %s", a->file.path, strerror(errno));
	int same = a->file.sp && strcmp(src, a->file.sp->src) == 0;
	free(src);
	if (same)
		return 0;
	spec *s = NULL;
	if (load_spec(a, a->file.path, &s) != 0) {
		ccache_cancel(&a->cache); /* what it compiles is of a file no longer there */
		return -1;
	}
	if (a->file.sp) {
		spec_free(a->file.sp);
		free(a->file.sp);
	}
	a->file.sp = s;
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
	if (!a->file.sp)
		return app_error(a, "no kernel file: 'use FILE' first, then 'set %s=%s'", name, text);
	const spec_var *v = spec_var_find(a->file.sp, name);
	if (!v) {
		const char **names = xcalloc((size_t)a->file.sp->nvars + 1, sizeof *names);
		for (int i = 0; i < a->file.sp->nvars; i++)
			names[i] = a->file.sp->vars[i].name;
		const char *near = nearest_name(name, names, a->file.sp->nvars);
		sbuf known = {0};
		known_names(a->file.sp, &known);
		if (near)
			app_error(a, "unknown name '%s' in %s (did you mean '%s'?)", name, a->file.path, near);
		else
			app_error(a, "unknown name '%s' in %s (known: %s)", name, a->file.path,
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
		devinfo_for_arch(a->opt.arch_sm ? a->opt.arch_sm : 90, &dev);
	symtab vals = {0};
	char *err = NULL;
	/* a number alone (most values) needs no other value: `set` of N
	 * numbers costs N, not N evaluations of every value of the file */
	int pos = 0, at, len;
	if (expr_next_name(text, &pos, &at, &len) &&
	    plan_values(a->file.sp, &a->file.settings, &dev, &vals, &err) != 0) {
		/* a broken default must not block setting another value */
		free(err);
		err = NULL;
		memset(&vals, 0, sizeof vals);
	}
	/* typed by the kernels that take it: a float or double parameter gets
	 * float arithmetic, an integer one refuses a fraction now, not at run */
	value val;
	int col = 0;
	int r = plan_eval_value(a->file.sp, name, text, &vals, &val, &col, &err);
	symtab_free(&vals);
	if (r != 0) {
		/* a long expression is quoted around the column, not whole */
		char *shown = str_excerpt_at(text, col > 0 ? (size_t)col - 1 : 0, 80);
		if (col > 0)
			app_error(a, "set %s: %s (at column %d of '%s')", name, err, col, shown);
		else
			app_error(a, "set %s: %s", name, err);
		free(shown);
		free(err);
		return -1;
	}
	symtab_set(&a->file.settings, name, val, 0);
	return 0;
}

int app_unset(app *a, const char *name)
{
	if (symtab_remove(&a->file.settings, name) == 0)
		return 0;
	if (a->file.sp && spec_var_find(a->file.sp, name))
		return 0; /* already at its default */
	return app_error(a, "'%s' is not set", name);
}

/* "N=8192 TILE_SIZE=32 PAD=1": every define and param, file order. */


/* The file's `//@ tensormap` lines, as a header would write them (show). */
static void show_tmaps(app *a, const spec *s)
{
	for (int i = 0; i < s->ntmaps; i++) {
		const spec_tmap *m = &s->tmaps[i];
		sbuf b = {0};
		sb_printf(&b, "  tensormap %s = %s[", m->name, m->buf);
		for (int d = 0; d < m->rank; d++)
			sb_printf(&b, "%s%s", d ? ", " : "", m->dims[d].text);
		sb_puts(&b, "] box ");
		for (int d = 0; d < m->rank; d++)
			sb_printf(&b, "%s%s", d ? ", " : "", m->box[d].text);
		if (m->swizzle)
			sb_printf(&b, " swizzle %dB", m->swizzle);
		if (m->interleave)
			sb_printf(&b, " interleave %dB", m->interleave);
		if (m->l2promo == 0)
			sb_puts(&b, " l2promo none");
		else if (m->l2promo != 128)
			sb_printf(&b, " l2promo %dB", m->l2promo);
		if (m->oob_nan)
			sb_puts(&b, " oob nan");
		app_note(a, "%s", b.s);
		sb_free(&b);
	}
}

/* The file's `arch` line and what it picks on the device (show). */
static void show_arch(app *a, const spec *s, const devinfo *dev)
{
	if (!s->narch)
		return;
	sbuf b = {0};
	char name[24];
	for (int i = 0; i < s->narch; i++) {
		target_spell(&s->arch[i], name, sizeof name);
		sb_printf(&b, "%s%s", i ? ", " : "", name);
	}
	int cc = dev->cc_major * 10 + dev->cc_minor;
	int i = target_pick(s->arch, s->narch, cc);
	const char *on = a->gpu == 1 ? "this GPU" : "the GPU assumed (compile-only)";
	if (i >= 0) {
		target_resolve(&s->arch[i], cc, name, sizeof name);
		app_note(a, "arch %s: compiles for %s on %s, compute capability %d.%d", b.s, name, on, cc / 10, cc % 10);
	} else {
		app_note(a, "arch %s: no target runs on %s, compute capability %d.%d", b.s, on, cc / 10, cc % 10);
	}
	sb_free(&b);
}

/* show: the defines and params, their values now (vals, when ok). */
static void show_values(app *a, const spec *s, const symtab *vals, int ok)
{
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
		const sym *x = ok ? symtab_get(vals, v->name, (int)strlen(v->name)) : NULL;
		if (x) {
			value_format(x->v, buf, sizeof buf);
			table_num(&t, r, 3, x->v.is_float ? x->v.f : (double)x->v.i);
		}
		int set = symtab_get(&a->file.settings, v->name, (int)strlen(v->name)) != NULL;
		table_set(&t, r, 2, "%s%s", buf, set ? " (set)" : "");
		table_bool(&t, r, 4, set);
		table_set(&t, r, 5, "%s", v->value.text ? v->value.text : "");
	}
	if (s->nvars)
		app_table(a, &t, 2);
	table_free(&t);
}

/* show: the buffers, a table (data) or a line each. */
static void show_buffers(app *a, const spec *s, int data)
{
	table bt;
	const char *bhead[] = { "name", "kind", "type", "count", "init", "output", "managed", "prefetch", "host" };
	table_init(&bt, 9, bhead, "lllllllll");
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
			table_bool(&bt, r, 7, b->prefetch);
			if (b->host != BUF_DEVICE)
				table_set(&bt, r, 8, "%s", b->host == BUF_HOST_PINNED ? "pinned" : "pageable");
		} else {
			app_note(a, "  %s %s %s[%s] %s%s%s%s%s", b->global ? "global" : "buffer", b->name,
			         dtype_name(b->type), b->count.text, init.s, b->scratch ? " scratch" : b->output ? " output" : "",
			         b->managed ? " managed" : "", b->prefetch ? " prefetch" : "",
			         b->host == BUF_HOST_PINNED ? " host pinned" : b->host ? " host" : "");
		}
		sb_free(&init);
	}
	if (bt.nrows)
		app_table(a, &bt, 0);
	table_free(&bt);
}

/* show: the kernels, a table (data) or a line. */
static void show_kernels(app *a, const spec *s, int data)
{
	sbuf k = {0};
	table kt;
	const char *khead[] = { "kernel", "template", "skip", "steps" };
	table_init(&kt, 4, khead, "llll");
	table_kind(&kt, "kernel");
	for (int i = 0; i < s->nkernels; i++) {
		const spec_kernel *sk = &s->kernels[i];
		sbuf steps = {0};
		for (int j = 0; j < sk->nsteps; j++)
			sb_printf(&steps, "%s%s", j ? ", " : "", s->kernels[sk->steps[j]].name);
		sb_printf(&k, "%s%s%s%s%s", i ? ", " : "", sk->name,
		          sk->is_template ? " (template)" : sk->skip ? " (skip)" : sk->is_step ? " (step)" : "",
		          sk->nsteps ? " = " : "", sk->nsteps ? steps.s : "");
		int r = table_row(&kt);
		table_set(&kt, r, 0, "%s", sk->name);
		table_bool(&kt, r, 1, sk->is_template);
		table_bool(&kt, r, 2, sk->skip);
		if (sk->nsteps)
			table_set(&kt, r, 3, "%s", steps.s);
		sb_free(&steps);
	}
	if (data && kt.nrows)
		app_table(a, &kt, 0);
	else
		app_note(a, "  kernels: %s", k.len ? k.s : "none");
	table_free(&kt);
	sb_free(&k);
}

void app_show(app *a)
{
	if (!a->file.sp) {
		app_note(a, "no kernel file: 'use FILE' (see 'ls')");
		return;
	}
	const spec *s = a->file.sp;
	devinfo dev;
	app_current_dev(a, &dev);
	symtab vals;
	char *err = NULL;
	int ok = plan_values(s, &a->file.settings, &dev, &vals, &err) == 0;
	const char *sum = s->summary ? s->summary : "";
	const char *base = strrchr(s->path, '/') ? strrchr(s->path, '/') + 1 : s->path;
	if (strncmp(sum, base, strlen(base)) == 0 && sum[strlen(base)] == ':')
		sum += strlen(base) + 1 + (sum[strlen(base) + 1] == ' ');
	app_note(a, "%s%s%s", s->path, *sum ? ": " : "", sum);
	show_arch(a, s, &dev);
	int data = format_is_data(a->format);
	show_values(a, s, &vals, ok);
	show_buffers(a, s, data);
	show_tmaps(a, s);
	if (s->split)
		app_note(a, "  streams %s split %s: a run in chunks of %s, one per stream", s->streams.text, s->split,
		         s->split);
	show_kernels(a, s, data);
	app_note(a, "  reps %d, warmup %d, flush %s, clock %s, timeout %g s, format %s, %s",
	         a->opt.topt.min_reps, a->opt.topt.warmup, a->opt.topt.flush ? "on" : "off",
	         a->opt.topt.clock == CLOCK_KERNEL ? "kernel" : "events", a->opt.timeout_s,
	         format_name(a->format),
	         a->gpu == 1 ? a->worker.dev.name : a->opt.no_gpu ? "compile-only (--no-gpu)" : "GPU not started yet");
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
	for (int i = 0; i < n && !g_interrupt; i++) { /* Ctrl-C: the files read so far */
		const char *path = e[i].path;
		char *src = NULL;
		spec s;
		char *err = NULL;
		int r = table_row(&t);
		int cur = a->file.path && strcmp(a->file.path, path) == 0;
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

