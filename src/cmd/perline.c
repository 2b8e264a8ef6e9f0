/* perline.c: `lines` (a kernel's cost by source line, or two variants'
 * line by line) and the line expectations. */
#include "perline.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cubin.h"
#include "explain.h"
#include "files.h"
#include "counters.h"
#include "plan.h"
#include "run.h"
#include "pick.h"
#include "sass.h"
#include "sassprof.h"
#include "spec_find.h"

/* ------------------------------------------------------------ kept views */

typedef struct kept {
	char *kernel, *vline, *path;
	lines_view v;
} kept;

static kept *store;
static int nstore;

static void keep(const char *kernel, const char *vline, const char *path, lines_view *v)
{
	for (int i = 0; i < nstore; i++)
		if (strcmp(store[i].kernel, kernel) == 0 && strcmp(store[i].vline, vline) == 0 &&
		    strcmp(store[i].path, path) == 0) {
			lines_free(&store[i].v);
			store[i].v = *v;
			return;
		}
	store = xrealloc(store, (size_t)(nstore + 1) * sizeof *store);
	store[nstore].kernel = xstrdup(kernel);
	store[nstore].vline = xstrdup(vline);
	store[nstore].path = xstrdup(path);
	store[nstore].v = *v;
	nstore++;
}

const lines_view *perline_kept(int i, const char **kernel, const char **vline, const char **path)
{
	if (i < 0 || i >= nstore)
		return NULL;
	*kernel = store[i].kernel;
	*vline = store[i].vline;
	*path = store[i].path;
	return &store[i].v;
}

void perline_forget(void)
{
	for (int i = 0; i < nstore; i++) {
		free(store[i].kernel);
		free(store[i].vline);
		free(store[i].path);
		lines_free(&store[i].v);
	}
	free(store);
	store = NULL;
	nstore = 0;
}

/* 1 when every NAME=VALUE of sel (the inside of [...]) is a word of vline. */
static int sel_matches(const char *sel, size_t n, const char *vline)
{
	char *s = xstrndup(sel, n);
	int ok = 1;
	for (char *save = NULL, *tok = strtok_r(s, ", ", &save); tok && ok; tok = strtok_r(NULL, ", ", &save)) {
		size_t tl = strlen(tok);
		const char *p = vline;
		ok = 0;
		while ((p = strstr(p, tok)) != NULL) {
			if ((p == vline || p[-1] == ' ') && (p[tl] == 0 || p[tl] == ' ')) {
				ok = 1;
				break;
			}
			p += tl;
		}
	}
	free(s);
	return ok;
}

/* The latest view of label ("kernel" or "kernel[NAME=VALUE,...]"). */
static const lines_view *find_view(const char *label)
{
	const char *br = strchr(label, '[');
	size_t kl = br ? (size_t)(br - label) : strlen(label);
	for (int i = nstore - 1; i >= 0; i--) {
		if (strlen(store[i].kernel) != kl || strncmp(store[i].kernel, label, kl) != 0)
			continue;
		if (!br || sel_matches(br + 1, strlen(br + 1) - 1, store[i].vline))
			return &store[i].v;
	}
	return NULL;
}

const lines_view *perline_latest(const char *kernel)
{
	for (int i = nstore - 1; i >= 0; i--)
		if (strcmp(store[i].kernel, kernel) == 0)
			return &store[i].v;
	return NULL;
}

/* ------------------------------------------------------------ arguments */

typedef struct lopts {
	lines_sort sort;
	int sorted;        /* --sort given */
	int sass, all, period;
	char *labels[2];
	int nlabels;
} lopts;

static int parse_opts(app *a, int argc, char **argv, lopts *o)
{
	memset(o, 0, sizeof *o);
	o->sort = LS_STALL;
	for (int i = 1; i < argc; i++) {
		const char *w = argv[i];
		if (strcmp(w, "--sass") == 0) {
			o->sass = 1;
		} else if (strcmp(w, "--all") == 0) {
			o->all = 1;
		} else if (strcmp(w, "--sort") == 0 || strcmp(w, "--period") == 0) {
			if (i + 1 >= argc)
				return app_error(a, "lines: '%s' wants a value", w);
			const char *v = argv[++i];
			char *end;
			if (w[2] == 's' && lines_sort_parse(v, &o->sort) != 0)
				return app_error(a, "lines: unknown sort '%s' (stall, inst, global, shared, local, order)", v);
			o->sorted |= w[2] == 's';
			if (w[2] == 'p' && ((o->period = (int)strtol(v, &end, 10)) < 5 || o->period > 31 || *end))
				return app_error(a, "lines: period '%s' is not from 5 to 31 (2^N cycles)", v);
		} else if (w[0] == '-') {
			return app_error(a, "lines: unknown option '%s' (--sort, --sass, --all, --period)", w);
		} else if (o->nlabels == 2) {
			return app_error(a, "lines: at most two kernels, to set side by side ('%s')", w);
		} else {
			o->labels[o->nlabels++] = argv[i];
		}
	}
	return 0;
}

/* kernel[NAME=VALUE,...]: the kernel's index and the values. */
static int parse_label(app *a, const char *label, int *k, symtab *extra)
{
	memset(extra, 0, sizeof *extra);
	const char *br = strchr(label, '[');
	char *kname = xstrndup(label, br ? (size_t)(br - label) : strlen(label));
	char *names[] = { kname };
	int *ks = NULL, nk = 0;
	int rc = pick_kernels(a, names, 1, &ks, &nk); /* says a near name */
	*k = rc == 0 && nk > 0 ? ks[0] : -1;
	free(ks);
	free(kname);
	if (*k < 0)
		return -1;
	if (!br)
		return 0;
	size_t l = strlen(br);
	if (l < 2 || br[l - 1] != ']')
		return app_error(a, "lines: malformed variant '%s' (write kernel[NAME=VALUE,...])", label);
	char *inner = xstrndup(br + 1, l - 2);
	for (char *save = NULL, *tok = strtok_r(inner, ", ", &save); tok && rc == 0; tok = strtok_r(NULL, ", ", &save)) {
		char *eq = strchr(tok, '=');
		value val;
		int col = 0;
		char *err = NULL;
		if (!eq) {
			rc = app_error(a, "lines: '%s' in '%s' is not NAME=VALUE", tok, label);
			break;
		}
		*eq = 0;
		if (!spec_var_find(a->file.sp, tok)) {
			rc = app_error(a, "lines: unknown name '%s' in %s", tok, a->file.path);
		} else if (plan_eval_value(a->file.sp, tok, eq + 1, NULL, &val, &col, &err) != 0) {
			rc = app_error(a, "lines: %s=%s: %s", tok, eq + 1, err ? err : "bad value");
			free(err);
		} else {
			symtab_set(extra, tok, val, 0);
		}
	}
	free(inner);
	if (rc != 0)
		symtab_free(extra);
	return rc;
}

/* ------------------------------------------------------------ the view */

/* What one kernel's view is made of. */
typedef struct made {
	int nf;
	const char *names[PLAN_MAX_STEPS + 1];
	const char *lowered[PLAN_MAX_STEPS + 1];
	sp_head *h;              /* the per-line run's; NULL: none */
	const sp_pc *pcs;
	lines_insn *ins;
	int n, cap;
	char **sass;             /* disassembly lines kept for ins[].sass */
	sp_pc **acc;             /* per function: its instructions' counts, merged (ins[].c) */
	int nsass;
	uint64_t matched;        /* stall samples that fell on an instruction of the view */
	uint64_t guessed;        /* ... of them, by a function name matching none (one function) */
} made;

/* The kernel's functions: a sequence's steps in order, else itself. */
static int functions(app *a, const runctx *c, int k, made *m)
{
	const spec *s = a->file.sp;
	const spec_kernel *sk = &s->kernels[k];
	int n = sk->nsteps > 0 ? sk->nsteps : 1;
	for (int i = 0; i < n && m->nf < PLAN_MAX_STEPS + 1; i++) {
		const char *name = s->kernels[sk->nsteps > 0 ? sk->steps[i] : k].name;
		int ci = cunit_find(c->u, name);
		if (ci < 0)
			return app_error(a, "lines: kernel '%s' is missing from the compiled unit", name);
		m->names[m->nf] = name;
		m->lowered[m->nf++] = c->u->lowered[ci];
	}
	m->acc = xcalloc((size_t)m->nf, sizeof *m->acc);
	return 0;
}

/* The disassembly of function f by offset (its text for each 16 bytes,
 * NULL where none), when a disassembler is at hand; NULL else. */
static char **disassembly(const runctx *c, const made *m, int f, size_t slots, app *a)
{
	char *tool = NULL, *why = NULL, *out = NULL, *err = NULL;
	if (sass_find_tool(SASS_NONE, &tool, &why) == SASS_NONE) {
		app_note(a, "lines: --sass: %s", why ? why : "no disassembler");
		free(why);
		return NULL;
	}
	free(tool);
	sass_src src = { a->file.sp->path, a->file.sp->src };
	if (sass_disasm(c->u->cubin, c->u->cubin_len, m->lowered[f], &src, 1, &out, &err) != 0) {
		app_note(a, "lines: --sass: %s", err ? err : "the disassembler failed");
		free(err);
		return NULL;
	}
	char **by = xcalloc(slots, sizeof *by);
	for (char *save = NULL, *ln = strtok_r(out, "\n", &save); ln; ln = strtok_r(NULL, "\n", &save)) {
		char *o = strstr(ln, "/*");
		unsigned pc;
		int used = 0;
		if (!o || sscanf(o, "/*%x*/%n", &pc, &used) != 1 || used < 6 || pc / 16 >= slots)
			continue;
		char *t = o + used;
		while (*t == ' ')
			t++;
		size_t tl = strlen(t);
		while (tl > 0 && (t[tl - 1] == ' ' || t[tl - 1] == ';'))
			tl--;
		free(by[pc / 16]);
		by[pc / 16] = xstrndup(t, tl);
	}
	free(out);
	return by;
}

/* 1 when CUPTI's name of a function is function f: its symbol, or its
 * name as the file spells it, alone or demangled with its parameters. */
static int same_function(const char *cupti, const made *m, int f)
{
	if (strncmp(cupti, "void ", 5) == 0) /* a template's demangled name says its return type */
		cupti += 5;
	size_t n = strlen(m->names[f]);
	return strcmp(cupti, m->lowered[f]) == 0 || strcmp(cupti, m->names[f]) == 0 ||
	       (strncmp(cupti, m->names[f], n) == 0 && cupti[n] == '(');
}

/* 1 when CUPTI's name is one of the view's functions. */
static int name_known(const made *m, const char *cupti)
{
	for (int f = 0; f < m->nf; f++)
		if (same_function(cupti, m, f))
			return 1;
	return 0;
}

/* Function f's instructions, each mapped to its line, with its counts. */
static int map_function(app *a, const runctx *c, made *m, int f, int want_sass)
{
	uint64_t size = 0;
	if (cubin_text_size(c->u->cubin, c->u->cubin_len, m->lowered[f], &size) != 0 || size == 0)
		return app_error(a, "lines: no code for '%s' in the cubin", m->names[f]);
	size_t slots = (size_t)(size / 16);
	/* the counts of each instruction, from every record CUPTI gave it (the
	 * counters' and the samples' may name the function differently) */
	const sp_pc **cnt = xcalloc(slots, sizeof *cnt);
	sp_pc *acc = m->acc[f] = xcalloc(slots, sizeof *acc);
	for (int i = 0; m->h && i < m->h->npc; i++) {
		const sp_pc *p = &m->pcs[i];
		if (p->func < 0 || p->func >= m->h->nfuncs || p->pc / 16 >= slots)
			continue;
		int same = same_function(m->h->funcs[p->func], m, f);
		/* one function launched and sampled alone: a name that is none
		 * of the view's (CUPTI's spelling) is still its */
		int lone = !same && m->nf == 1 && !name_known(m, m->h->funcs[p->func]);
		if (!same && !lone)
			continue;
		sp_pc *q = &acc[p->pc / 16];
		cnt[p->pc / 16] = q;
		lines_merge_pc(q, p);
		m->matched += p->samples;
		if (lone)
			m->guessed += p->samples;
	}
	char **sass = want_sass ? disassembly(c, m, f, slots, a) : NULL;
	for (size_t i = 0; sass && i < slots; i++)
		if (sass[i]) { /* kept until the view is built */
			m->sass = xrealloc(m->sass, (size_t)(m->nsass + 1) * sizeof *m->sass);
			m->sass[m->nsass++] = sass[i];
		}
	/* where inlined code was called from: the cubin's own line table */
	cubin_lines lt;
	int have_lt = cubin_line_table(c->u->cubin, c->u->cubin_len, m->lowered[f], &lt) == 0;
	int rc = 0;
	for (size_t i = 0; i < slots && rc == 0; i++) {
		char file[512], dir[512], *err = NULL;
		int line = 0;
		int got = sassprof_line(c->u->cubin, c->u->cubin_len, m->lowered[f], (uint32_t)(i * 16), file, sizeof file,
		                        dir, sizeof dir, &line, &err);
		if (got < 0) {
			rc = app_error(a, "lines: %s", err ? err : "CUPTI cannot map instructions to lines");
			free(err);
			break;
		}
		if (m->n == m->cap) {
			m->cap = m->cap ? m->cap * 2 : 256;
			m->ins = xrealloc(m->ins, (size_t)m->cap * sizeof *m->ins);
		}
		lines_insn *in = &m->ins[m->n++];
		memset(in, 0, sizeof *in);
		in->func = f;
		in->pc = (uint32_t)(i * 16);
		in->file = !got ? NULL : file[0] != '/' && dir[0] ? xasprintf("%s/%s", dir, file) : xstrdup(file);
		in->line = got ? line : 0;
		in->c = cnt[i];
		in->sass = sass ? sass[i] : NULL;
		const cubin_row *row = have_lt && got ? cubin_line_at(&lt, (uint32_t)(i * 16)) : NULL;
		if (row && row->site_line > 0 && row->line == line && row->site_file >= 0) {
			in->site_file = xstrdup(lt.files[row->site_file]);
			in->site_line = row->site_line;
		}
	}
	if (have_lt)
		cubin_lines_free(&lt);
	free(sass);
	free(cnt);
	return rc;
}

static void made_free(made *m)
{
	for (int i = 0; i < m->n; i++) {
		free((char *)m->ins[i].file);
		free((char *)m->ins[i].site_file);
	}
	free(m->ins);
	for (int i = 0; i < m->nsass; i++)
		free(m->sass[i]);
	free(m->sass);
	for (int f = 0; m->acc && f < m->nf; f++)
		free(m->acc[f]);
	free(m->acc);
	free(m->h);
	free((sp_pc *)m->pcs);
}

/* The text of the header lines: each other file read where it was
 * compiled from, else beside the kernel file; unread, they stay "(header)". */
static void header_texts(const made *m, const char *kpath, lines_view *v)
{
	const char *ks = strrchr(kpath, '/');
	const char *kbase = ks ? ks + 1 : kpath;
	for (int i = 0; i < m->n; i++) {
		const char *f = m->ins[i].file, *fs = f ? strrchr(f, '/') : NULL, *base = fs ? fs + 1 : f;
		if (!f || strcmp(base, kbase) == 0)
			continue;
		int seen = 0;
		for (int j = 0; j < i && !seen; j++) {
			const char *g = m->ins[j].file, *gs = g ? strrchr(g, '/') : NULL;
			seen = g && strcmp(gs ? gs + 1 : g, base) == 0;
		}
		if (seen)
			continue;
		char *text = NULL;
		if (read_file_max(f, &text, NULL, 4 << 20) != 0) {
			char *beside = xasprintf("%.*s%s", (int)(ks ? ks + 1 - kpath : 0), kpath, base);
			if (read_file_max(beside, &text, NULL, 4 << 20) != 0)
				text = NULL;
			free(beside);
		}
		if (text)
			lines_set_text(v, base, text);
		free(text);
	}
}

/* The per-line run on the GPU: the kernel checked, then counted and
 * sampled (m->h and m->pcs from the worker's records). */
static int gpu_run(app *a, runctx *c, int k, const lopts *o, made *m)
{
	plan *p = xcalloc(1, sizeof *p);
	result *res = xcalloc(1, sizeof *res);
	char *err = NULL;
	timing_opts t = a->opt.topt;
	t.do_time = 0;
	int rc = 0;
	const char *name = a->file.sp->kernels[k].name;
	if (run_plan(a, c, k, &t, p, &err) != 0) {
		rc = app_error_msg(a, err ? err : "cannot plan the launch");
	} else {
		p->lines = 1;
		p->lines_period = o->period;
		if (run_exec_checked(a, c, k, p, res, &err) != 0)
			rc = app_error(a, "lines: %s: %s", name, err ? err : "the worker failed");
	}
	free(err);
	for (int i = 0; rc == 0 && i < res->nchecks; i++)
		if (!res->checks[i].ok)
			rc = app_error(a, "lines: %s: the check failed (%s): its lines are not counted", name,
			               res->checks[i].buf);
	size_t len = a->worker.extra_len;
	char *x = a->worker.extra;
	a->worker.extra = NULL;
	a->worker.extra_len = 0;
	if (rc == 0 && res->status == RES_INTERRUPTED)
		rc = app_error(a, "lines: interrupted");
	else if (rc == 0 && (len < sizeof(sp_head) || !x)) {
		rc = app_error(a, "lines: %s: the worker sent no per-line records", name);
	} else if (rc == 0) {
		m->h = xmalloc(sizeof *m->h);
		memcpy(m->h, x, sizeof *m->h);
		sp_head *h = m->h;
		h->error[sizeof h->error - 1] = h->samp_error[sizeof h->samp_error - 1] = 0;
		if (h->npc < 0 || (size_t)h->npc != (len - sizeof *h) / sizeof(sp_pc) || h->nfuncs < 0 ||
		    h->nfuncs > SP_MAX_FUNCS || h->nreasons < 0 || h->nreasons > SP_MAX_REASONS) {
			rc = app_error(a, "lines: %s: malformed per-line records from the worker", name);
			h->npc = 0;
		} else {
			for (int i = 0; i < h->nfuncs; i++)
				h->funcs[i][SP_NAME - 1] = 0;
			for (int i = 0; i < h->nreasons; i++)
				h->reasons[i][SP_REASON_NAME - 1] = 0;
			size_t n = (size_t)h->npc * sizeof(sp_pc);
			sp_pc *own = xmalloc(n ? n : 1);
			memcpy(own, x + sizeof *h, n);
			m->pcs = own;
		}
	}
	free(x);
	free(p);
	free(res);
	return rc;
}

/* One line about the per-line run: what was collected, what it cost
 * against a plain launch, what could not be had. */
static void say_run(app *a, const char *label, const char *vline, const sp_head *h)
{
	if (!h) {
		app_note(a, "lines: %s  %s: instructions per line from the cubin's line table (no GPU: the counts "
		         "need one)", label, vline);
		return;
	}
	char plain[32], pm[32], ps[32];
	fmt_time_ms(h->plain_ms, plain, sizeof plain);
	fmt_time_ms(h->metrics_ms, pm, sizeof pm);
	fmt_time_ms(h->sampling_ms, ps, sizeof ps);
	if (a->opt.mask_times)
		snprintf(plain, sizeof plain, "<t>"), snprintf(pm, sizeof pm, "<t>"), snprintf(ps, sizeof ps, "<t>");
	sbuf b = {0};
	sb_printf(&b, "lines: %s  %s: per-line run, not timed: ", label, vline);
	if (h->status == PROF_OK)
		sb_printf(&b, "counted in a patched launch (%s)", pm);
	if (h->samp_status == PROF_OK)
		sb_printf(&b, "%ssampled in one more (%s, %llu samples, one every 2^%d cycles)",
		          h->status == PROF_OK ? ", " : "", ps, (unsigned long long)h->total_samples, h->period);
	sb_printf(&b, "; a plain launch %s", plain);
	app_note(a, "%s", b.s);
	sb_free(&b);
	if (h->status != PROF_OK)
		app_note(a, "lines: no counts per line: %s", h->error);
	if (h->samp_status != PROF_OK)
		app_note(a, "lines: no stall samples: %s", h->samp_error);
	else if (h->total_samples < 100)
		app_note(a, "lines: only %llu stall samples: the kernel is too short to sample well (try --period 5)",
		         (unsigned long long)h->total_samples);
}

/* Where the samples went, when not all on the view's instructions. */
static void say_matched(app *a, const made *m)
{
	const sp_head *h = m->h;
	if (h->samp_status != PROF_OK || h->total_samples == 0)
		return;
	const char *other = "?";
	for (int i = 0; i < h->nfuncs; i++)
		if (!name_known(m, h->funcs[i]))
			other = h->funcs[i];
	if (m->guessed > 0)
		app_note(a, "lines: %llu stall samples named the function '%s', taken as '%s'",
		         (unsigned long long)m->guessed, other, m->names[0]);
	if (m->matched > 0)
		return;
	sbuf b = {0};
	for (int i = 0; i < h->nfuncs; i++)
		sb_printf(&b, "%s'%s'", i ? ", " : "", h->funcs[i]);
	app_note(a, "lines: no stall sample fell on the kernel's instructions: %d PC records (pc up to 0x%llx, "
	         "%llu samples) of %llu sampled, %llu in code CUPTI does not know; functions named: %s", h->pc_records,
	         (unsigned long long)h->samp_pc_max, (unsigned long long)h->record_samples,
	         (unsigned long long)h->total_samples, (unsigned long long)h->nonuser_samples, b.s ? b.s : "none");
	sb_free(&b);
}

/* The view of kernel k compiled in c: mapped, and counted on a GPU. */
static int view_in(app *a, runctx *c, int k, const char *label, const lopts *o, lines_view *v)
{
	made m;
	memset(&m, 0, sizeof m);
	int rc = functions(a, c, k, &m);
	int barred = rc == 0 && c->gpu && counters_barred(a);
	if (rc == 0 && c->gpu && !barred)
		rc = gpu_run(a, c, k, o, &m);
	for (int f = 0; rc == 0 && f < m.nf; f++)
		rc = map_function(a, c, &m, f, o->sass);
	if (rc == 0) {
		lines_build(v, m.ins, m.n, m.names, m.nf, a->file.sp->path, a->file.sp->src, m.h);
		header_texts(&m, a->file.sp->path, v);
		if (barred) {
			snprintf(v->why, sizeof v->why, "%s", a->prof_why);
			snprintf(v->samp_why, sizeof v->samp_why, "%s", a->prof_why);
			app_note(a, "lines: %s: %s", label, a->prof_why);
		} else if (m.h) {
			snprintf(v->why, sizeof v->why, "%s", m.h->status == PROF_OK ? "" : m.h->error);
			snprintf(v->samp_why, sizeof v->samp_why, "%s", m.h->samp_status == PROF_OK ? "" : m.h->samp_error);
		}
		if (!barred)
			say_run(a, label, c->vline, m.h);
		if (!barred && m.h)
			say_matched(a, &m);
	}
	made_free(&m);
	return rc;
}

/* The view of label: compiled with its values, mapped, counted on a GPU. */
static int view_of(app *a, const char *label, const lopts *o, lines_view *v, char **kernel, char **vline)
{
	int k;
	symtab extra;
	if (parse_label(a, label ? label : "", &k, &extra) != 0)
		return -1;
	runctx c;
	int rc = run_prepare(a, &extra, 0, &c);
	symtab_free(&extra);
	if (rc != 0)
		return -1;
	const char *name = a->file.sp->kernels[k].name;
	rc = view_in(a, &c, k, label ? label : name, o, v);
	if (rc == 0) {
		*kernel = xstrdup(name);
		*vline = xstrdup(c.vline);
	}
	run_release(&c);
	return rc;
}

/* The figure two views differ most in, relatively, of those they have. */
static lines_sort most_moved(const lines_view *x, const lines_view *y)
{
	static const lines_sort cand[] = { LS_SHARED, LS_GLOBAL, LS_LOCAL, LS_STALL, LS_INST };
	lines_sort best = x->counted ? LS_INST : LS_ORDER;
	double bestd = 0;
	for (size_t i = 0; i < sizeof cand / sizeof cand[0]; i++) {
		double sx = 0, sy = 0;
		for (int j = 0; j < x->n; j++)
			sx += lines_figure(&x->lines[j], cand[i]);
		for (int j = 0; j < y->n; j++)
			sy += lines_figure(&y->lines[j], cand[i]);
		double d = fabs(sx - sy) / (sx > sy ? sx : sy > 0 ? sy : 1);
		if (d > bestd * 1.0001 && (sx > 0 || sy > 0)) {
			bestd = d;
			best = cand[i];
		}
	}
	return best;
}

static const char *sort_name(lines_sort s)
{
	static const char *const n[] = { "stall samples", "warp instructions", "global sectors beyond the ideal",
		"shared wavefronts beyond the ideal", "local sectors", "instructions" };
	return n[s];
}

/* The kernel of `lines` alone: the last run's in this file, else the
 * file's first that runs; said which. */
static int default_kernel(app *a, char *name, size_t n)
{
	const spec *s = a->file.sp;
	const app_prefetch_memo *m = &a->last_run;
	if (m->path && a->file.path && strcmp(m->path, a->file.path) == 0)
		for (int i = 0; i < m->n; i++) {
			int k = spec_kernel_find(s, m->names[i]);
			if (k >= 0 && spec_kernel_launchable(s, k)) {
				snprintf(name, n, "%s", s->kernels[k].name);
				app_note(a, "lines: %s, the kernel of the last run", name);
				return 0;
			}
		}
	for (int k = 0; k < s->nkernels; k++)
		if (spec_kernel_launchable(s, k)) {
			snprintf(name, n, "%s", s->kernels[k].name);
			app_note(a, "lines: %s, the file's first kernel", name);
			return 0;
		}
	return app_error(a, "lines: no kernel in '%s' to run", s->path);
}

int perline_run(app *a, int argc, char **argv)
{
	lopts o;
	if (parse_opts(a, argc, argv, &o) != 0)
		return -1;
	if (app_reload(a) != 0)
		return -1;
	char deflt[256];
	if (o.nlabels == 0 && default_kernel(a, deflt, sizeof deflt) != 0)
		return -1;
	if (o.nlabels == 0)
		o.labels[o.nlabels++] = deflt;
	lines_view v[2];
	char *kernel[2] = { NULL, NULL }, *vline[2] = { NULL, NULL };
	int nv = o.nlabels > 1 ? 2 : 1, rc = 0, made_n = 0;
	for (int i = 0; i < nv && rc == 0; i++)
		if ((rc = view_of(a, o.labels[i], &o, &v[i], &kernel[i], &vline[i])) == 0)
			made_n++;
	if (rc == 0 && nv == 2 && strcmp(kernel[0], kernel[1]) != 0) {
		/* two kernels share no line: each ranked by its own cost */
		app_note(a, "lines: %s and %s are two kernels: their lines, each ranked by cost", o.labels[0], o.labels[1]);
		for (int i = 0; i < 2; i++) {
			table t;
			lines_table(&t, &v[i], -1, o.sort, o.all, o.sass, a->opt.tty);
			app_table(a, &t, 0);
			table_free(&t);
		}
	} else if (rc == 0) {
		table t;
		if (nv == 1) {
			lines_table(&t, &v[0], -1, o.sort, o.all, o.sass, a->opt.tty);
		} else {
			lines_sort s = o.sorted ? o.sort : most_moved(&v[0], &v[1]);
			app_note(a, "lines: A = %s, B = %s: %s, line by line", o.labels[0], o.labels[1], sort_name(s));
			lines_diff_table(&t, &v[0], &v[1], s);
		}
		app_table(a, &t, 0);
		table_free(&t);
	}
	for (int i = 0; i < made_n; i++) {
		if (rc == 0)
			keep(kernel[i], vline[i], a->file.sp->path, &v[i]);
		else
			lines_free(&v[i]);
		free(kernel[i]);
		free(vline[i]);
	}
	return rc;
}

/* ------------------------------------------------------------ expect */

static int cmp(const char *op, double x, double y, int *ok)
{
	if (strcmp(op, ">") == 0) *ok = x > y;
	else if (strcmp(op, ">=") == 0) *ok = x >= y;
	else if (strcmp(op, "<") == 0) *ok = x < y;
	else if (strcmp(op, "<=") == 0) *ok = x <= y;
	else return -1;
	return 0;
}

static int number(const char *s, double *v)
{
	char *end;
	*v = strtod(s, &end);
	return end == s || *end || !isfinite(*v) ? -1 : 0;
}

/* The checks of the words, before any view is looked at: one error line
 * for what is wrong. The right side: X, X * FIGURE, or FIGURE. */
static int expect_words(app *a, int argc, char **argv, double *x, const char **rfig)
{
	static const char use[] = "usage: expect KERNEL[SEL] line \"TEXT\" FIGURE OP X|FIGURE|X * FIGURE";
	double dummy;
	int ok;
	*x = 1;
	*rfig = NULL;
	if (argc != 7 && argc != 9)
		return app_error(a, "%s", use);
	if (!argv[3][0])
		return app_error(a, "expect: line: the text to find is empty");
	lines_view none;
	memset(&none, 0, sizeof none);
	line_rec r;
	memset(&r, 0, sizeof r);
	if (lines_value(&none, &r, argv[4], &dummy) != 0)
		return app_error(a, "expect: line: unknown figure '%s' (%s)", argv[4], lines_value_names);
	if (cmp(argv[5], 0, 0, &ok) != 0)
		return app_error(a, "expect: line: '%s' is not one of < <= > >=", argv[5]);
	if (argc == 9) {
		if (strcmp(argv[7], "*") != 0)
			return app_error(a, "expect: line: write X * FIGURE, not '%s %s %s'", argv[6], argv[7], argv[8]);
		if (number(argv[6], x) != 0)
			return app_error(a, "expect: line: '%s' is not a number", argv[6]);
		*rfig = argv[8];
	} else if (number(argv[6], x) != 0) {
		*x = 1;
		*rfig = argv[6];
	}
	if (*rfig && lines_value(&none, &r, *rfig, &dummy) != 0)
		return app_error(a, "expect: line: '%s' is neither a number nor a figure (%s)", *rfig, lines_value_names);
	return 0;
}

/* "expect ...: skipped (no GPU)", or "...: skipped: WHY" where the
 * counters could not be had */
static void skipped(app *a, int argc, char **argv, const char *why)
{
	sbuf b = {0};
	for (int i = 1; i < argc; i++)
		sb_printf(&b, i == 3 ? " \"%s\"" : " %s", argv[i]);
	if (strcmp(why, "no GPU") == 0)
		app_note(a, "expect%s: skipped (no GPU)", b.s);
	else
		app_note(a, "expect%s: skipped: %s", b.s, why);
	sb_free(&b);
	a->expect_skipped++;
}

int perline_expect(app *a, int argc, char **argv)
{
	double x;
	const char *rfig;
	if (expect_words(a, argc, argv, &x, &rfig) != 0)
		return -1;
	const char *label = argv[1], *text = argv[3], *name = argv[4], *op = argv[5];
	const lines_view *v = find_view(label);
	if (!v && a->gpu != 1) {
		skipped(a, argc, argv, "no GPU");
		return 0;
	}
	char buf[768];
	if (!v) {
		snprintf(buf, sizeof buf, "no per-line run of '%s' yet (run 'lines %s' first)", label, label);
		a->expect_failed++;
		return app_error(a, "expectation failed: %s", buf);
	}
	int many = 0;
	const line_rec *r = lines_find(v, 0, text, &many);
	if (!r || many) {
		snprintf(buf, sizeof buf, !r ? "no line of '%s' holds \"%s\"" : "more than one line of '%s' holds \"%s\": "
		         "quote more of it, or mark it with a comment", label, text);
		a->expect_failed++;
		return app_error(a, "expectation failed: %s", buf);
	}
	int needs_counts = strcmp(name, "stall") != 0 && strcmp(name, "samples") != 0;
	if ((needs_counts && !v->counted) || (!needs_counts && !v->sampled)) {
		const char *why = needs_counts ? v->why : v->samp_why;
		skipped(a, argc, argv, why[0] ? why : "no GPU");
		return 0;
	}
	double val = 0, rv = 0;
	lines_value(v, r, name, &val);
	if (rfig)
		lines_value(v, r, rfig, &rv);
	double bound = rfig ? x * rv : x;
	int ok = 0;
	cmp(op, val, bound, &ok);
	if (rfig)
		snprintf(buf, sizeof buf, "%s line %d \"%s\" %s is %.4g, expected %s %g * %s (%.4g)", label, r->line, text, name,
		         val, op, x, rfig, bound);
	else
		snprintf(buf, sizeof buf, "%s line %d \"%s\" %s is %.4g, expected %s %g", label, r->line, text, name, val, op, x);
	if (!ok) {
		a->expect_failed++;
		return app_error(a, "expectation failed: %s", buf);
	}
	a->expect_held++;
	if (bound != 0)
		app_note(a, "expect: %s: ok (margin %.0f%%)", buf,
		         100 * (op[0] == '>' ? (val - bound) : (bound - val)) / fabs(bound));
	else
		app_note(a, "expect: %s: ok", buf);
	return 0;
}

/* ------------------------------------------------------------ narration */

int perline_say(const char *label, const char *figure, const char *text, sbuf *b)
{
	lines_view none;
	line_rec r0;
	double x;
	memset(&none, 0, sizeof none);
	memset(&r0, 0, sizeof r0);
	if (lines_value(&none, &r0, figure, &x) != 0)
		return -1;
	const lines_view *v = find_view(label);
	int many = 0;
	const line_rec *r = v ? lines_find(v, 0, text, &many) : NULL;
	if (!v) {
		sb_printf(b, "(no per-line run of %s)", label);
		return 0;
	}
	if (!r || many) {
		sb_printf(b, "(%s line of %s holds \"%s\")", r ? "more than one" : "no", label, text);
		return 0;
	}
	int counts = strcmp(figure, "stall") != 0 && strcmp(figure, "samples") != 0;
	if ((counts && !v->counted) || (!counts && !v->sampled)) {
		const char *why = counts ? v->why : v->samp_why;
		sb_printf(b, "line %d (its %s %s)", r->line, figure, why[0] ? "was not counted here" : "needs a GPU");
		return 0;
	}
	lines_value(v, r, figure, &x);
	size_t fl = strlen(figure);
	if (fl > 2 && strcmp(figure + fl - 2, "_x") == 0)
		sb_printf(b, "line %d: %.1fx", r->line, x);
	else if (strcmp(figure, "stall") == 0 || strcmp(figure, "warps_full") == 0)
		sb_printf(b, "line %d: %.0f%%", r->line, 100 * x);
	else
		sb_printf(b, "line %d: %.0f", r->line, x);
	return 0;
}

/* ------------------------------------------------------------ explain */

/* The rules about an access or a stall, and the figure that convicts a
 * line of each. */
static const struct {
	const char *rule;
	lines_sort by;
} convicts[] = {
	{ "uncoalesced", LS_GLOBAL }, { "bank_conflicts", LS_SHARED }, { "ldmatrix_conflicts", LS_SHARED },
	{ "local_memory", LS_LOCAL }, { "accumulator_spills", LS_LOCAL }, { "no_wgmma", LS_STALL },
	{ "loads_mma_turns", LS_STALL },
};

/* "line 57 \"const float v = A[idx];\" {4.0x the ideal global sectors}" */
static void name_line(app *a, const lines_view *v, const line_rec *r, const char *rule, lines_sort by)
{
	char where[128], fig[160];
	if (r->header)
		snprintf(where, sizeof where, "%s:%d (inlined %s line %d)", r->file, r->line, r->called ? "at" : "after",
		         r->under);
	else
		snprintf(where, sizeof where, "line %d \"%s\"", r->line, r->text ? r->text : "");
	double x = 0;
	switch (by) {
	case LS_GLOBAL:
		lines_value(v, r, "global_x", &x);
		snprintf(fig, sizeof fig, "%.1fx its ideal global sectors: %.0f of %.0f", x, r->m[SP_GSEC], r->m[SP_GSEC_IDEAL]);
		break;
	case LS_SHARED:
		lines_value(v, r, "shared_x", &x);
		snprintf(fig, sizeof fig, "%.1fx its ideal shared wavefronts: %.0f beyond %.0f", x,
		         r->m[SP_SHWF] - r->m[SP_SHWF_IDEAL], r->m[SP_SHWF_IDEAL]);
		break;
	case LS_LOCAL:
		snprintf(fig, sizeof fig, "%.0f local sectors", r->m[SP_LOCAL]);
		break;
	default: {
		char top[160] = "";
		double c[SP_MAX_REASONS];
		memcpy(c, r->reason_n, sizeof c);
		int best = -1;
		for (int i = 0; i < v->nreasons; i++)
			if (c[i] > 0 && (best < 0 || c[i] > c[best]))
				best = i;
		if (best >= 0)
			snprintf(top, sizeof top, ", most on %s", lines_reason_short(v->reasons[best]));
		lines_value(v, r, "stall", &x);
		snprintf(fig, sizeof fig, "%.0f%% of the stall samples%s", 100 * x, top);
	}
	}
	app_note(a, "explain: %s: %s {%s}", rule, where, fig);
}

int perline_explain(app *a, runctx *c, int k, const explain_out *o)
{
	int need = 0;
	for (size_t i = 0; i < ARRAY_LEN(convicts); i++)
		need |= explain_has_rule(o, convicts[i].rule);
	if (!need || !c->gpu)
		return 0;
	lopts lo;
	memset(&lo, 0, sizeof lo);
	lines_view v;
	const char *name = a->file.sp->kernels[k].name;
	if (view_in(a, c, k, name, &lo, &v) != 0)
		return -1;
	for (size_t i = 0; i < ARRAY_LEN(convicts); i++) {
		if (!explain_has_rule(o, convicts[i].rule))
			continue;
		lines_sort by = convicts[i].by;
		if ((by == LS_STALL && !v.sampled) || (by != LS_STALL && !v.counted))
			continue; /* said by the per-line run's note */
		const line_rec *best = NULL, *second = NULL;
		for (int j = 0; j < v.n; j++) {
			double f = lines_figure(&v.lines[j], by);
			if (f <= 0)
				continue;
			if (!best || f > lines_figure(best, by))
				second = best, best = &v.lines[j];
			else if (!second || f > lines_figure(second, by))
				second = &v.lines[j];
		}
		if (best)
			name_line(a, &v, best, convicts[i].rule, by);
		/* a second line that holds a quarter of the first's part or more */
		if (second && lines_figure(second, by) >= 0.25 * lines_figure(best, by))
			name_line(a, &v, second, convicts[i].rule, by);
	}
	keep(name, c->vline, a->file.sp->path, &v);
	return 0;
}
