/* lines.c: a kernel's cost by source line, built and drawn. */
#include "lines.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static const char *base_of(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

/* Line `line` of text, trimmed (caller frees), or NULL. */
static char *text_line(const char *src, int line)
{
	if (!src || line <= 0)
		return NULL;
	const char *p = src;
	for (int k = 1; k < line && p; k++) {
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	if (!p || !*p)
		return NULL;
	while (*p == ' ' || *p == '\t')
		p++;
	const char *e = strchr(p, '\n');
	size_t n = e ? (size_t)(e - p) : strlen(p);
	while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\r'))
		n--;
	return xstrndup(p, n);
}

static int cmp_insn(const void *a, const void *b)
{
	const lines_insn *x = *(const lines_insn *const *)a, *y = *(const lines_insn *const *)b;
	if (x->func != y->func)
		return x->func < y->func ? -1 : 1;
	return x->pc < y->pc ? -1 : x->pc > y->pc;
}

/* The record of (func, file, line), a header's also by the line it sits under. */
static line_rec *rec_of(lines_view *v, int func, const char *file, int line, int under, int *cap)
{
	for (int i = 0; i < v->n; i++)
		if (v->lines[i].func == func && v->lines[i].line == line && strcmp(v->lines[i].file, file) == 0 &&
		    v->lines[i].under == under)
			return &v->lines[i];
	if (v->n == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		v->lines = xrealloc(v->lines, (size_t)*cap * sizeof *v->lines);
	}
	line_rec *r = &v->lines[v->n++];
	memset(r, 0, sizeof *r);
	r->func = func;
	r->file = xstrdup(file);
	r->line = line;
	r->under = under;
	return r;
}

/* One instruction added to its line. */
static void add_insn(lines_view *v, line_rec *r, const lines_insn *in)
{
	r->ninsn++;
	r->pcs = xrealloc(r->pcs, (size_t)(r->npcs + 1) * sizeof *r->pcs);
	line_pc *lp = &r->pcs[r->npcs++];
	memset(lp, 0, sizeof *lp);
	lp->pc = in->pc;
	lp->sass = in->sass ? xstrdup(in->sass) : NULL;
	if (!in->c)
		return;
	for (int m = 0; m < SP_NMETRIC; m++) {
		lp->m[m] = (double)in->c->m[m];
		r->m[m] += lp->m[m];
	}
	lp->samples = in->c->samples;
	r->samples += lp->samples;
	v->total_samples += lp->samples;
	v->total_inst += lp->m[SP_INST];
	for (int t = 0; t < in->c->nreason && t < SP_TOP; t++)
		if (in->c->reason[t] < SP_MAX_REASONS)
			r->reason_n[in->c->reason[t]] += in->c->reason_n[t];
}

void lines_build(lines_view *v, const lines_insn *ins, int n, const char *const *names, int nfuncs,
                 const char *user_file, const char *src, const sp_head *h)
{
	memset(v, 0, sizeof *v);
	v->nfuncs = nfuncs;
	v->funcs = xcalloc((size_t)(nfuncs ? nfuncs : 1), sizeof *v->funcs);
	for (int i = 0; i < nfuncs; i++)
		v->funcs[i] = xstrdup(names[i]);
	if (h) {
		v->counted = h->status == PROF_OK;
		v->sampled = h->samp_status == PROF_OK;
		v->nreasons = h->nreasons < SP_MAX_REASONS ? h->nreasons : SP_MAX_REASONS;
		memcpy(v->reasons, h->reasons, sizeof v->reasons);
	}
	const lines_insn **ord = xcalloc((size_t)(n ? n : 1), sizeof *ord);
	for (int i = 0; i < n; i++)
		ord[i] = &ins[i];
	qsort(ord, (size_t)n, sizeof *ord, cmp_insn);
	const char *ub = user_file ? base_of(user_file) : "";
	int cap = 0, last_func = -1, last_user = 0;
	for (int i = 0; i < n; i++) {
		const lines_insn *in = ord[i];
		if (in->func != last_func)
			last_func = in->func, last_user = 0;
		if (!in->file || in->line <= 0)
			continue;
		const char *fb = base_of(in->file);
		int header = strcmp(fb, ub) != 0;
		/* a header's line: under its recorded call site in the kernel
		 * file, else under the kernel line before it in the code */
		int called = header && in->site_line > 0 && in->site_file && strcmp(base_of(in->site_file), ub) == 0;
		line_rec *r = rec_of(v, in->func, fb, in->line, !header ? 0 : called ? in->site_line : last_user, &cap);
		if (!header)
			last_user = in->line;
		if (r->ninsn == 0) {
			r->header = header;
			r->called = called;
			r->text = header ? NULL : text_line(src, in->line);
		}
		add_insn(v, r, in);
	}
	free(ord);
}

void lines_set_text(lines_view *v, const char *base, const char *src)
{
	for (int i = 0; i < v->n; i++) {
		line_rec *r = &v->lines[i];
		if (r->header && !r->text && strcmp(r->file, base) == 0)
			r->text = text_line(src, r->line);
	}
}

void lines_free(lines_view *v)
{
	for (int i = 0; i < v->n; i++) {
		line_rec *r = &v->lines[i];
		for (int k = 0; k < r->npcs; k++)
			free(r->pcs[k].sass);
		free(r->pcs);
		free(r->file);
		free(r->text);
	}
	free(v->lines);
	for (int i = 0; i < v->nfuncs; i++)
		free(v->funcs[i]);
	free(v->funcs);
	memset(v, 0, sizeof *v);
}

int lines_sort_parse(const char *s, lines_sort *out)
{
	static const char *const names[] = { "stall", "inst", "global", "shared", "local", "order" };
	for (int i = 0; i < (int)ARRAY_LEN(names); i++)
		if (strcmp(s, names[i]) == 0) {
			*out = (lines_sort)i;
			return 0;
		}
	return -1;
}

static double excess(double got, double ideal)
{
	return got > ideal ? got - ideal : 0;
}

double lines_figure(const line_rec *r, lines_sort s)
{
	switch (s) {
	case LS_STALL: return r->samples;
	case LS_INST: return r->m[SP_INST];
	case LS_GLOBAL: return excess(r->m[SP_GSEC], r->m[SP_GSEC_IDEAL]);
	case LS_SHARED: return excess(r->m[SP_SHWF], r->m[SP_SHWF_IDEAL]);
	case LS_LOCAL: return r->m[SP_LOCAL];
	case LS_ORDER: return r->m[SP_INST] > 0 ? r->m[SP_INST] : r->ninsn;
	}
	return 0;
}

const line_rec *lines_find(const lines_view *v, int func, const char *needle, int *many)
{
	const line_rec *best = NULL;
	*many = 0;
	/* the kernel file's lines first; a header's only when none holds it */
	for (int header = 0; header < 2 && !best; header++)
		for (int i = 0; i < v->n; i++) {
			const line_rec *r = &v->lines[i];
			if (r->func != func || r->header != header || !r->text || !strstr(r->text, needle))
				continue;
			if (best && (best->line != r->line || strcmp(best->file, r->file) != 0))
				*many = 1;
			if (!best || r->line < best->line)
				best = r;
		}
	return best;
}

const char lines_value_names[] = "inst, thread_inst, warps_full, global, global_ideal, global_excess, global_x, "
                                 "shared, shared_ideal, shared_excess, shared_x, local, stall, samples";

static double ratio(double a, double b)
{
	return b > 0 ? a / b : 0;
}

int lines_value(const lines_view *v, const line_rec *r, const char *name, double *val)
{
	const double *m = r->m;
	struct { const char *name; double v; } t[] = {
		{ "inst", m[SP_INST] },
		{ "thread_inst", m[SP_THREAD_INST] },
		{ "warps_full", ratio(m[SP_THREAD_INST], 32 * m[SP_INST]) },
		{ "global", m[SP_GSEC] },
		{ "global_ideal", m[SP_GSEC_IDEAL] },
		{ "global_excess", excess(m[SP_GSEC], m[SP_GSEC_IDEAL]) },
		{ "global_x", ratio(m[SP_GSEC], m[SP_GSEC_IDEAL]) },
		{ "shared", m[SP_SHWF] },
		{ "shared_ideal", m[SP_SHWF_IDEAL] },
		{ "shared_excess", excess(m[SP_SHWF], m[SP_SHWF_IDEAL]) },
		{ "shared_x", ratio(m[SP_SHWF], m[SP_SHWF_IDEAL]) },
		{ "local", m[SP_LOCAL] },
		{ "stall", ratio(r->samples, v->total_samples) },
		{ "samples", r->samples },
	};
	for (size_t i = 0; i < ARRAY_LEN(t); i++)
		if (strcmp(name, t[i].name) == 0) {
			*val = t[i].v;
			return 0;
		}
	return -1;
}

const char *lines_reason_short(const char *name)
{
	static const char *const pre[] = { "smsp__pcsamp_warps_issue_stalled_", "smsp__pcsamp_", "stalled_" };
	for (size_t i = 0; i < ARRAY_LEN(pre); i++)
		if (strncmp(name, pre[i], strlen(pre[i])) == 0)
			return name + strlen(pre[i]);
	return name;
}

/* p's counts added to q's: the metrics, the samples, the top reasons. */
void lines_merge_pc(sp_pc *q, const sp_pc *p)
{
	q->pc = p->pc;
	for (int k = 0; k < SP_NMETRIC; k++)
		q->m[k] += p->m[k];
	q->samples += p->samples;
	for (int t = 0; t < p->nreason && t < SP_TOP; t++) {
		int j = 0;
		while (j < q->nreason && q->reason[j] != p->reason[t])
			j++;
		if (j < q->nreason)
			q->reason_n[j] += p->reason_n[t];
		else if (q->nreason < SP_TOP) {
			q->reason[q->nreason] = p->reason[t];
			q->reason_n[q->nreason++] = p->reason_n[t];
		}
	}
}

/* ------------------------------------------------------------ drawing */

/* A bar of frac (0..1) in width cells: eighths in Unicode, '#' else. */
static void bar(char *buf, size_t n, double frac, int width, int unicode)
{
	static const char *const eighth[] = { "", "\u258f", "\u258e", "\u258d", "\u258c", "\u258b", "\u258a", "\u2589" };
	if (frac < 0)
		frac = 0;
	if (frac > 1)
		frac = 1;
	int units = (int)(frac * width * 8 + 0.5);
	size_t k = 0;
	buf[0] = 0;
	for (int i = 0; i < units / 8 && k + 4 < n; i++)
		k += (size_t)snprintf(buf + k, n - k, "%s", unicode ? "\u2588" : "#");
	if (unicode && units % 8 && k + 4 < n)
		snprintf(buf + k, n - k, "%s", eighth[units % 8]);
	if (!unicode && units % 8 >= 4 && units / 8 < width && k + 1 < n)
		snprintf(buf + k, n - k, "+");
}

/* "barrier 41%, long_scoreboard 30%": a line's top stall reasons. */
static void top_stalls(const lines_view *v, const line_rec *r, char *buf, size_t n)
{
	double c[SP_MAX_REASONS];
	memcpy(c, r->reason_n, sizeof c);
	size_t k = 0;
	buf[0] = 0;
	for (int t = 0; t < 2 && r->samples > 0; t++) {
		int best = -1;
		for (int i = 0; i < v->nreasons; i++)
			if (c[i] > 0 && (best < 0 || c[i] > c[best]))
				best = i;
		if (best < 0 || k >= n)
			break;
		k += (size_t)snprintf(buf + k, n - k, "%s%s %.0f%%", t ? ", " : "", lines_reason_short(v->reasons[best]),
		                      100 * c[best] / r->samples);
		c[best] = 0;
	}
}

/* The line's place: "17"; a header's "mma.h:120 @17" where line 17 called
 * it, "mma.h:120 <17" where it only follows line 17 in the code. */
static void where(const line_rec *r, char *buf, size_t n)
{
	if (!r->header)
		snprintf(buf, n, "%d", r->line);
	else if (r->under && r->called)
		snprintf(buf, n, "%s:%d @%d", r->file, r->line, r->under);
	else if (r->under)
		snprintf(buf, n, "%s:%d <%d", r->file, r->line, r->under);
	else
		snprintf(buf, n, "%s:%d", r->file, r->line);
}

static const lines_view *sort_view;
static lines_sort sort_by;

static int cmp_rec(const void *a, const void *b)
{
	const line_rec *x = &sort_view->lines[*(const int *)a], *y = &sort_view->lines[*(const int *)b];
	if (sort_by != LS_ORDER) {
		double fx = lines_figure(x, sort_by), fy = lines_figure(y, sort_by);
		if (fx != fy)
			return fx > fy ? -1 : 1;
	}
	if (x->func != y->func)
		return x->func < y->func ? -1 : 1;
	int lx = x->header ? x->under : x->line, ly = y->header ? y->under : y->line;
	if (lx != ly)
		return lx < ly ? -1 : 1;
	if (x->header != y->header)
		return x->header ? 1 : -1;
	int fc = x->header ? strcmp(x->file, y->file) : 0;
	if (fc)
		return fc;
	return x->line < y->line ? -1 : x->line > y->line;
}

static int costs(const lines_view *v, const line_rec *r)
{
	if (!v->counted && !v->sampled)
		return r->ninsn > 0;
	return r->samples > 0 || r->m[SP_INST] > 0 || r->m[SP_GSEC] > 0 || r->m[SP_SHWF] > 0 || r->m[SP_LOCAL] > 0;
}

/* The lines shown, in order: indices (caller frees), their count. */
static int *ordered(const lines_view *v, int func, lines_sort s, int all, int *n)
{
	int *ix = xcalloc((size_t)(v->n ? v->n : 1), sizeof *ix);
	*n = 0;
	for (int i = 0; i < v->n; i++)
		if ((func < 0 || v->lines[i].func == func) && (all || costs(v, &v->lines[i])))
			ix[(*n)++] = i;
	sort_view = v;
	sort_by = s;
	qsort(ix, (size_t)*n, sizeof *ix, cmp_rec);
	return ix;
}

enum { LC_FUNC, LC_LINE, LC_BAR, LC_STALL, LC_INST, LC_FULL, LC_GSEC, LC_GX, LC_SHWF, LC_SX, LC_LOCAL, LC_TOP,
       LC_SRC, LC_NINSN, LC_GEX, LC_SEX, LC_SAMPLES, LC_FILE, LC_LNO, LC_UNDER, LC_PC, LC_N };

static void table_head(table *t, const lines_view *v, int func)
{
	static const char *const head[LC_N] = { "kernel", "line", "", "stalls", "warp inst", "warps full",
		"global sectors", "x ideal", "shared wavefronts", "x ideal", "local sectors", "top stalls", "source",
		"instructions", "global excess", "shared excess", "samples", "file", "line number", "under", "pc" };
	table_init(t, LC_N, head, "llllrrrrrrrrllrrrrlrrr");
	table_kind(t, "line");
	int counts = v->counted || v->sampled;
	table_col(t, LC_FUNC, "kernel", U_PLAIN, func >= 0 || v->nfuncs <= 1 ? COL_RAW : COL_BOTH);
	table_col(t, LC_LINE, "line", U_PLAIN, COL_HUMAN);
	table_col(t, LC_BAR, "bar", U_PLAIN, COL_HUMAN);
	table_col(t, LC_STALL, "stall_frac", U_FRAC, v->sampled ? COL_BOTH : COL_NONE);
	table_col(t, LC_INST, "warp_inst", U_INT, v->counted ? COL_BOTH : COL_NONE);
	table_col(t, LC_FULL, "warps_full_frac", U_FRAC, v->counted ? COL_BOTH : COL_NONE);
	table_col(t, LC_GSEC, "global_sectors", U_INT, v->counted ? COL_BOTH : COL_NONE);
	table_col(t, LC_GX, "global_x_ideal", U_X, v->counted ? COL_BOTH : COL_NONE);
	table_col(t, LC_SHWF, "shared_wavefronts", U_INT, v->counted ? COL_BOTH : COL_NONE);
	table_col(t, LC_SX, "shared_x_ideal", U_X, v->counted ? COL_BOTH : COL_NONE);
	table_col(t, LC_LOCAL, "local_sectors", U_INT, v->counted ? COL_BOTH : COL_NONE);
	table_col(t, LC_TOP, "top_stalls", U_PLAIN, v->sampled ? COL_BOTH : COL_NONE);
	table_col(t, LC_SRC, "source", U_PLAIN, COL_BOTH);
	table_col(t, LC_NINSN, "instructions", U_INT, counts ? COL_RAW : COL_BOTH);
	table_col(t, LC_GEX, "global_excess", U_INT, v->counted ? COL_RAW : COL_NONE);
	table_col(t, LC_SEX, "shared_excess", U_INT, v->counted ? COL_RAW : COL_NONE);
	table_col(t, LC_SAMPLES, "samples", U_INT, v->sampled ? COL_RAW : COL_NONE);
	table_col(t, LC_FILE, "file", U_PLAIN, COL_RAW);
	table_col(t, LC_LNO, "line", U_INT, COL_RAW);
	table_col(t, LC_UNDER, "under_line", U_INT, COL_RAW);
	table_col(t, LC_PC, "pc", U_INT, COL_RAW);
}

/* A row's figures from counts m and samples s. */
static void row_figures(table *t, int row, const lines_view *v, const double *m, double s)
{
	if (v->sampled) {
		table_num(t, row, LC_STALL, v->total_samples > 0 ? s / v->total_samples : 0);
		table_num(t, row, LC_SAMPLES, s);
	}
	if (!v->counted)
		return;
	table_num(t, row, LC_INST, m[SP_INST]);
	if (m[SP_INST] > 0)
		table_num(t, row, LC_FULL, m[SP_THREAD_INST] / (32 * m[SP_INST]));
	if (m[SP_GSEC] > 0) {
		table_num(t, row, LC_GSEC, m[SP_GSEC]);
		table_num(t, row, LC_GEX, excess(m[SP_GSEC], m[SP_GSEC_IDEAL]));
		if (m[SP_GSEC_IDEAL] > 0)
			table_num(t, row, LC_GX, m[SP_GSEC] / m[SP_GSEC_IDEAL]);
	}
	if (m[SP_SHWF] > 0) {
		table_num(t, row, LC_SHWF, m[SP_SHWF]);
		table_num(t, row, LC_SEX, excess(m[SP_SHWF], m[SP_SHWF_IDEAL]));
		if (m[SP_SHWF_IDEAL] > 0)
			table_num(t, row, LC_SX, m[SP_SHWF] / m[SP_SHWF_IDEAL]);
	}
	if (m[SP_LOCAL] > 0)
		table_num(t, row, LC_LOCAL, m[SP_LOCAL]);
}

static void line_row(table *t, const lines_view *v, const line_rec *r, lines_sort s, double top, int unicode)
{
	int row = table_row(t);
	char buf[256];
	table_set(t, row, LC_FUNC, "%s", r->func < v->nfuncs ? v->funcs[r->func] : "?");
	where(r, buf, sizeof buf);
	table_set(t, row, LC_LINE, "%s", buf);
	bar(buf, sizeof buf, top > 0 ? lines_figure(r, s) / top : 0, 12, unicode);
	table_set(t, row, LC_BAR, "%s", buf);
	row_figures(t, row, v, r->m, r->samples);
	if (v->sampled) {
		top_stalls(v, r, buf, sizeof buf);
		table_set(t, row, LC_TOP, "%s", buf);
	}
	table_set(t, row, LC_SRC, "%s", r->text ? r->text : "(header)");
	table_num(t, row, LC_NINSN, r->ninsn);
	table_set(t, row, LC_FILE, "%s", r->file);
	table_num(t, row, LC_LNO, r->line);
	if (r->under)
		table_num(t, row, LC_UNDER, r->under);
}

static void pc_row(table *t, const lines_view *v, const line_rec *r, const line_pc *p)
{
	int row = table_row(t);
	table_set(t, row, LC_FUNC, "%s", r->func < v->nfuncs ? v->funcs[r->func] : "?");
	table_set(t, row, LC_LINE, "  %04x", (unsigned)p->pc);
	row_figures(t, row, v, p->m, p->samples);
	table_set(t, row, LC_SRC, "  %s", p->sass ? p->sass : "");
	table_num(t, row, LC_NINSN, 1);
	table_set(t, row, LC_FILE, "%s", r->file);
	table_num(t, row, LC_LNO, r->line);
	table_num(t, row, LC_PC, p->pc);
}

void lines_table(table *t, const lines_view *v, int func, lines_sort s, int all, int sass, int unicode)
{
	table_head(t, v, func);
	if (!v->sampled && s == LS_STALL)
		s = v->counted ? LS_INST : LS_ORDER;
	int n;
	int *ix = ordered(v, func, s, all, &n);
	double top = 0;
	for (int i = 0; i < n; i++)
		if (lines_figure(&v->lines[ix[i]], s) > top)
			top = lines_figure(&v->lines[ix[i]], s);
	for (int i = 0; i < n; i++) {
		const line_rec *r = &v->lines[ix[i]];
		line_row(t, v, r, s, top, unicode);
		for (int k = 0; sass && k < r->npcs; k++)
			pc_row(t, v, r, &r->pcs[k]);
	}
	free(ix);
}

/* The record of b at a's line (same file and line, the first function). */
static const line_rec *match(const lines_view *b, const line_rec *r)
{
	for (int i = 0; i < b->n; i++)
		if (b->lines[i].line == r->line && strcmp(b->lines[i].file, r->file) == 0 &&
		    (!r->header || b->lines[i].under == r->under))
			return &b->lines[i];
	return NULL;
}

void lines_diff_table(table *t, const lines_view *a, const lines_view *b, lines_sort s)
{
	static const char *const head[] = { "line", "A", "B", "change", "source", "file", "line number" };
	table_init(t, 7, head, "lrrrllr");
	table_kind(t, "line_change");
	table_col(t, 0, "line", U_PLAIN, COL_HUMAN);
	table_col(t, 1, "a", U_INT, COL_BOTH);
	table_col(t, 2, "b", U_INT, COL_BOTH);
	table_col(t, 3, "change_x", U_X, COL_BOTH);
	table_col(t, 5, "file", U_PLAIN, COL_RAW);
	table_col(t, 6, "line", U_INT, COL_RAW);
	int n;
	int *ix = ordered(a, -1, LS_ORDER, 1, &n);
	for (int i = 0; i < n; i++) {
		const line_rec *r = &a->lines[ix[i]], *o = match(b, r);
		double fa = lines_figure(r, s), fb = o ? lines_figure(o, s) : 0;
		if (fa == 0 && fb == 0)
			continue;
		int row = table_row(t);
		char buf[128];
		where(r, buf, sizeof buf);
		table_set(t, row, 0, "%s", buf);
		table_num(t, row, 1, fa);
		table_num(t, row, 2, fb);
		if (fa > 0)
			table_num(t, row, 3, fb / fa);
		table_set(t, row, 4, "%s", r->text ? r->text : "(header)");
		table_set(t, row, 5, "%s", r->file);
		table_num(t, row, 6, r->line);
	}
	free(ix);
}

/* ------------------------------------------------------------ HTML */

/* What a line cost beyond the ideal, in words; "" for nothing. */
static void beyond(const line_rec *r, char *buf, size_t n)
{
	size_t k = 0;
	buf[0] = 0;
	if (r->m[SP_SHWF_IDEAL] > 0 && r->m[SP_SHWF] > 1.05 * r->m[SP_SHWF_IDEAL])
		k += (size_t)snprintf(buf + k, n - k, "%.1fx shared wavefronts", r->m[SP_SHWF] / r->m[SP_SHWF_IDEAL]);
	if (k < n && r->m[SP_GSEC_IDEAL] > 0 && r->m[SP_GSEC] > 1.05 * r->m[SP_GSEC_IDEAL])
		k += (size_t)snprintf(buf + k, n - k, "%s%.1fx global sectors", k ? ", " : "",
		                      r->m[SP_GSEC] / r->m[SP_GSEC_IDEAL]);
	if (k < n && r->m[SP_LOCAL] > 0)
		snprintf(buf + k, n - k, "%slocal: %.0f sectors", k ? ", " : "", r->m[SP_LOCAL]);
}

static void html_row(sbuf *b, const lines_view *v, const line_rec *r, int line, const char *text, lines_sort s,
                     double total)
{
	char fig[160] = "";
	double f = r ? lines_figure(r, s) : 0, frac = total > 0 ? f / total : 0;
	sb_printf(b, "<tr%s><td class=\"n\">", r && f > 0 ? "" : " class=\"q\"");
	if (r && r->header)
		sb_printf(b, "%s:%d", r->file, r->line);
	else
		sb_printf(b, "%d", line);
	sb_puts(b, "</td><td><code>");
	sb_xml(b, text ? text : "");
	sb_puts(b, "</code></td><td>");
	if (r && f > 0)
		sb_printf(b, "<div class=\"bar\" style=\"width:%.1f%%\"></div>", 100 * (frac < 0.005 ? 0.005 : frac));
	sb_puts(b, "</td><td class=\"n\">");
	if (r && f > 0)
		sb_printf(b, "%.1f%%", 100 * frac);
	sb_puts(b, "</td><td>");
	if (r && v->counted)
		beyond(r, fig, sizeof fig);
	sb_xml(b, fig);
	sb_puts(b, "</td></tr>\n");
}

/* 1 when header line x comes after y: by file, then line. */
static int rec_after(const line_rec *x, const line_rec *y)
{
	int c = strcmp(x->file, y->file);
	return c > 0 || (c == 0 && x->line > y->line);
}

void lines_html(sbuf *b, const lines_view *v, int func, const char *src)
{
	lines_sort s = v->sampled ? LS_STALL : v->counted ? LS_INST : LS_ORDER;
	int lo = 0, hi = 0;
	double total = 0;
	for (int i = 0; i < v->n; i++) {
		const line_rec *r = &v->lines[i];
		if (r->func != func)
			continue;
		total += lines_figure(r, s);
		int l = r->header ? r->under : r->line;
		if (l > 0 && (!lo || l < lo))
			lo = l;
		if (l > hi)
			hi = l;
	}
	static const char *const what[] = { "stall samples", "warp instructions", "", "", "", "instructions" };
	sb_printf(b, "<table class=\"lines\"><tr><th>line</th><th>source</th><th>%s</th><th>share</th>"
	             "<th>beyond the ideal</th></tr>\n", what[s]);
	for (int l = lo; l && l <= hi; l++) {
		const line_rec *own = NULL;
		for (int i = 0; i < v->n && !own; i++)
			if (v->lines[i].func == func && !v->lines[i].header && v->lines[i].line == l)
				own = &v->lines[i];
		char *text = text_line(src, l);
		html_row(b, v, own, l, text, s, total);
		free(text);
		/* the header lines under it, by file and line */
		for (const line_rec *last = NULL, *next;; last = next) {
			next = NULL;
			for (int i = 0; i < v->n; i++) {
				const line_rec *r = &v->lines[i];
				if (r->func == func && r->header && r->under == l && (!last || rec_after(r, last)) &&
				    (!next || rec_after(next, r)))
					next = r;
			}
			if (!next)
				break;
			html_row(b, v, next, l, next->text ? next->text : "(inlined from a header)", s, total);
		}
	}
	sb_puts(b, "</table>\n");
}
