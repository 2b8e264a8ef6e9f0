/* metrics.c: the metric catalogue, user lists, derived figures, tables. */
#include "metrics.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define LD_SECT "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"
#define STALL(r) "smsp__average_warps_issue_stalled_" r "_per_issue_active.ratio"
#define LD_REQ  "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"
#define ST_SECT "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"
#define ST_REQ  "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"
#define DRAM_RD "dram__bytes_read.sum"
#define DRAM_WR "dram__bytes_write.sum"
#define DURATION "gpu__time_duration.sum"

static const metric_def catalogue[] = {
	{ "duration", "kernel time of the profiled launch (counters on: a bit slower than `run`)",
	  MK_VALUE, { DURATION, NULL, NULL }, MU_NS, NULL },
	{ "dram_read", "bytes read from device memory (DRAM/HBM)",
	  MK_VALUE, { DRAM_RD, NULL, NULL }, MU_BYTES, NULL },
	{ "dram_write", "bytes written to device memory (DRAM/HBM)",
	  MK_VALUE, { DRAM_WR, NULL, NULL }, MU_BYTES, NULL },
	{ "dram_bw", "device memory bandwidth achieved: (bytes read + written) / duration",
	  MK_PER_TIME, { DRAM_RD, DRAM_WR, DURATION }, MU_GBPS, NULL },
	{ "dram_bytes", "bytes read and written in device memory: what a fused kernel saves",
	  MK_VALUE, { "dram__bytes.sum", NULL, NULL }, MU_BYTES, NULL },
	{ "dram_throughput", "how busy device memory was, % of its peak, over the kernel's time",
	  MK_VALUE, { "dram__throughput.avg.pct_of_peak_sustained_elapsed", NULL, NULL }, MU_PCT,
	  "~100% if memory bound" },
	{ "ld_sectors_per_req", "32-byte sectors per warp load: 4 = 32 consecutive floats, 32 = scattered",
	  MK_RATIO, { LD_SECT, LD_REQ, NULL }, MU_RATIO, "4 (4-byte words)" },
	{ "st_sectors_per_req", "32-byte sectors per warp store: 4 = 32 consecutive floats, 32 = scattered",
	  MK_RATIO, { ST_SECT, ST_REQ, NULL }, MU_RATIO, "4 (4-byte words)" },
	{ "bank_conflicts_ld", "extra shared memory load cycles: threads of a warp hit the same bank",
	  MK_VALUE, { "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", NULL, NULL }, MU_COUNT, "0" },
	{ "bank_conflicts_st", "extra shared memory store cycles: threads of a warp hit the same bank",
	  MK_VALUE, { "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", NULL, NULL }, MU_COUNT, "0" },
	{ "occupancy", "achieved occupancy: resident warps, % of the SM's maximum, while busy",
	  MK_VALUE, { "sm__warps_active.avg.pct_of_peak_sustained_active", NULL, NULL }, MU_PCT, NULL },
	{ "l1_hit", "share of L1 sector lookups that hit",
	  MK_VALUE, { "l1tex__t_sector_hit_rate.pct", NULL, NULL }, MU_PCT, NULL },
	{ "l2_hit", "share of L2 sector lookups that hit",
	  MK_VALUE, { "lts__t_sector_hit_rate.pct", NULL, NULL }, MU_PCT, NULL },
	/* the speed of light, as Nsight Compute's SpeedOfLight section reads it */
	{ "sol_memory", "memory throughput: the busiest of DRAM, L2 and L1, % of its peak (ncu's Memory Throughput)",
	  MK_VALUE, { "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", NULL, NULL }, MU_PCT, NULL },
	{ "sol_dram", "DRAM throughput, % of its peak over the kernel's time",
	  MK_VALUE, { "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", NULL, NULL }, MU_PCT, NULL },
	{ "sol_l2", "L2 cache (lts) throughput, % of its peak over the kernel's time",
	  MK_VALUE, { "lts__throughput.avg.pct_of_peak_sustained_elapsed", NULL, NULL }, MU_PCT, NULL },
	{ "sol_l1", "L1 and shared memory (l1tex) throughput, % of its peak while the SMs were busy",
	  MK_VALUE, { "l1tex__throughput.avg.pct_of_peak_sustained_active", NULL, NULL }, MU_PCT, NULL },
	{ "sol_sm", "SM compute throughput: the busiest pipe, % of its peak (ncu's Compute (SM) Throughput)",
	  MK_VALUE, { "sm__throughput.avg.pct_of_peak_sustained_elapsed", NULL, NULL }, MU_PCT, NULL },
	/* what the rules of `explain` read besides */
	{ "ld_sectors", "32-byte sectors the global loads asked L1 for",
	  MK_VALUE, { LD_SECT, NULL, NULL }, MU_COUNT, NULL },
	{ "shared_ld_inst", "shared-memory load instructions (warp requests)",
	  MK_VALUE, { "smsp__inst_executed_op_shared_ld.sum", NULL, NULL }, MU_COUNT, NULL },
	{ "shared_st_inst", "shared-memory store instructions (warp requests)",
	  MK_VALUE, { "smsp__inst_executed_op_shared_st.sum", NULL, NULL }, MU_COUNT, NULL },
	{ "ld_requests", "global load requests: one per warp load instruction (a scattered one costs more sectors, not more requests)",
	  MK_VALUE, { LD_REQ, NULL, NULL }, MU_COUNT, NULL },
	{ "st_requests", "global store requests: one per warp store instruction",
	  MK_VALUE, { ST_REQ, NULL, NULL }, MU_COUNT, NULL },
	{ "local_ld_sectors", "32-byte sectors loaded from local memory: spilled registers read back (0 without spills)",
	  MK_VALUE, { "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum", NULL, NULL }, MU_COUNT, "0" },
	{ "atomic_requests", "global atomic requests (atom: atomicAdd with its result used, atomicCAS, ...)",
	  MK_VALUE, { "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum", NULL, NULL }, MU_COUNT, NULL },
	{ "reduction_requests", "global reduction requests (red: an atomicAdd whose result is unused)",
	  MK_VALUE, { "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum", NULL, NULL }, MU_COUNT, NULL },
	{ "threads_per_inst", "active threads per warp instruction: 32 = no thread of a warp idle (no divergence)",
	  MK_RATIO, { "smsp__thread_inst_executed.sum", "smsp__inst_executed.sum", NULL }, MU_RATIO, "32" },
	/* the tensor cores, and why warps wait (explain's tensor rules) */
	{ "tensor_active", "tensor pipe busy, % of the SMs' active cycles (HMMA, HGMMA, IMMA, QGMMA and the rest)",
	  MK_VALUE, { "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active", NULL, NULL }, MU_PCT, NULL },
	{ "tensor_inst", "warp instructions executed on the tensor pipe",
	  MK_VALUE, { "sm__inst_executed_pipe_tensor.sum", NULL, NULL }, MU_COUNT, NULL },
	{ "stall_long_sb", "warps waiting per issue on a global or local load's result (long scoreboard)",
	  MK_VALUE, { STALL("long_scoreboard"), NULL, NULL }, MU_RATIO, NULL },
	{ "stall_barrier", "warps waiting per issue at __syncthreads (barrier)",
	  MK_VALUE, { STALL("barrier"), NULL, NULL }, MU_RATIO, NULL },
	{ "stall_lg_throttle", "warps waiting per issue for room in the global/local memory queue (lg throttle)",
	  MK_VALUE, { STALL("lg_throttle"), NULL, NULL }, MU_RATIO, NULL },
	{ "stall_mio_throttle", "warps waiting per issue for room in the shared-memory/MIO queue (mio throttle)",
	  MK_VALUE, { STALL("mio_throttle"), NULL, NULL }, MU_RATIO, NULL },
	{ "stall_short_sb", "warps waiting per issue on a shared-memory or MIO result (short scoreboard)",
	  MK_VALUE, { STALL("short_scoreboard"), NULL, NULL }, MU_RATIO, NULL },
	{ "stall_math_pipe", "warps waiting per issue for a busy math pipe, the tensor pipe among them (math pipe "
	  "throttle)", MK_VALUE, { STALL("math_pipe_throttle"), NULL, NULL }, MU_RATIO, NULL },
	{ "stall_wait", "warps waiting per issue on a fixed-latency dependency (wait)",
	  MK_VALUE, { STALL("wait"), NULL, NULL }, MU_RATIO, NULL },
	{ "stall_branch", "warps waiting per issue for a branch's target (branch resolving)",
	  MK_VALUE, { STALL("branch_resolving"), NULL, NULL }, MU_RATIO, NULL },
	{ "inst_executed", "warp instructions executed, all kinds",
	  MK_VALUE, { "smsp__inst_executed.sum", NULL, NULL }, MU_COUNT, NULL },
	/* what the FMA pipe, loads, asynchronous copies and atomics do (the
	 * sgemm_worklog, async_copy, clusters and tensor_cores lessons) */
	{ "fma_pipe", "FP32 FMA pipe busy, % of its peak while the SMs were busy",
	  MK_VALUE, { "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active", NULL, NULL }, MU_PCT, NULL },
	{ "global_ld_inst", "global load instructions (warp level): data from global memory into registers",
	  MK_VALUE, { "smsp__inst_executed_op_global_ld.sum", NULL, NULL }, MU_COUNT, NULL },
	{ "cp_async_inst", "cp.async instructions (LDGSTS, warp level): global to shared memory, no registers on the way",
	  MK_VALUE, { "smsp__inst_executed_op_ldgsts.sum", NULL, NULL }, MU_COUNT, NULL },
	{ "shared_atom_inst", "shared-memory atomic instructions (warp level)",
	  MK_VALUE, { "smsp__inst_executed_op_shared_atom.sum", NULL, NULL }, MU_COUNT, NULL },
	{ "dsmem_atom_inst", "atomic instructions on distributed shared memory (a cluster's blocks' shared memory), warp level",
	  MK_VALUE, { "smsp__sass_inst_executed_op_dshared_atom.sum", NULL, NULL }, MU_COUNT, NULL },
	{ "ldmatrix_inst", "ldmatrix instructions (LDSM, warp level): tensor-core fragments from shared memory",
	  MK_VALUE, { "smsp__inst_executed_op_ldsm.sum", NULL, NULL }, MU_COUNT, NULL },
};

static const struct {
	const char *name, *figs;
} sets[] = {
	{ "default", "duration dram_read dram_write dram_bw dram_throughput ld_sectors_per_req "
	             "st_sectors_per_req bank_conflicts_ld bank_conflicts_st occupancy l1_hit l2_hit" },
	{ "memory", "duration dram_read dram_write dram_bw dram_throughput ld_sectors_per_req "
	            "st_sectors_per_req l1_hit l2_hit" },
	{ "shared", "duration bank_conflicts_ld bank_conflicts_st" },
	{ "occupancy", "duration occupancy" },
	{ "sol", "duration sol_memory sol_dram sol_l2 sol_l1 sol_sm" },
	{ "explain", "duration sol_memory sol_dram sol_l2 sol_l1 sol_sm dram_read dram_write ld_sectors_per_req "
	             "st_sectors_per_req ld_sectors bank_conflicts_ld bank_conflicts_st shared_ld_inst shared_st_inst "
	             "occupancy l1_hit l2_hit atomic_requests reduction_requests threads_per_inst tensor_active "
	             "tensor_inst stall_long_sb stall_barrier stall_lg_throttle stall_mio_throttle "
	             "stall_short_sb stall_math_pipe stall_wait local_ld_sectors" },
	{ "tensor", "duration tensor_active tensor_inst stall_long_sb stall_barrier stall_lg_throttle "
	            "stall_mio_throttle stall_short_sb stall_math_pipe stall_wait" },
};

static const char *const set_names[] = { "default", "memory", "shared", "occupancy", "sol", "explain", "tensor",
	                                 NULL };

const metric_def *metrics_catalogue(int *n)
{
	if (n)
		*n = (int)ARRAY_LEN(catalogue);
	return catalogue;
}

static int def_index(const char *name)
{
	for (size_t i = 0; i < ARRAY_LEN(catalogue); i++)
		if (strcmp(catalogue[i].name, name) == 0)
			return (int)i;
	return -1;
}

const metric_def *metrics_find(const char *name)
{
	int i = def_index(name);
	return i < 0 ? NULL : &catalogue[i];
}

/* The figure that shows one raw metric as it is, or -1 */
static int def_of_raw(const char *raw)
{
	for (size_t i = 0; i < ARRAY_LEN(catalogue); i++)
		if (catalogue[i].kind == MK_VALUE && strcmp(catalogue[i].raw[0], raw) == 0)
			return (int)i;
	return -1;
}

const metric_def *metrics_by_raw(const char *raw)
{
	int i = def_of_raw(raw);
	return i < 0 ? NULL : &catalogue[i];
}

/* `occupancy` is both a set and a figure: as a word it means the set
 * (duration and occupancy); metrics_find still finds the figure. */
const char *metrics_set(const char *name)
{
	for (size_t i = 0; i < ARRAY_LEN(sets); i++)
		if (strcmp(sets[i].name, name) == 0)
			return sets[i].figs;
	return NULL;
}

const char *const *metrics_set_names(void)
{
	return set_names;
}

/* ------------------------------------------------------------- parsing */

static int is_raw_name(const char *w)
{
	return strstr(w, "__") != NULL;
}

static int valid_raw_name(const char *w)
{
	if (!isalpha((unsigned char)w[0]))
		return 0;
	for (const char *p = w; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_' && *p != '.')
			return 0;
	return 1;
}

static int add_raw(metric_sel *s, const char *name, char **err)
{
	for (int i = 0; i < s->nraw; i++)
		if (strcmp(s->raw[i], name) == 0)
			return i;
	if (s->nraw >= METRICS_MAX_RAW)
		return fail(err, "too many metrics: at most %d raw counters in one request", METRICS_MAX_RAW);
	snprintf(s->raw[s->nraw], METRICS_NAME, "%s", name);
	return s->nraw++;
}

static int has_fig(const metric_sel *s, const char *name)
{
	for (int i = 0; i < s->nfig; i++)
		if (strcmp(s->fig[i].name, name) == 0)
			return 1;
	return 0;
}

static int add_fig(metric_sel *s, int def, const char *name, char **err)
{
	if (has_fig(s, name))
		return 0;
	if (s->nfig >= METRICS_MAX_FIGS)
		return fail(err, "too many metrics: at most %d figures", METRICS_MAX_FIGS);
	metric_fig *f = &s->fig[s->nfig];
	memset(f, 0, sizeof *f);
	f->def = def;
	snprintf(f->name, METRICS_NAME, "%s", name);
	for (int k = 0; k < 3; k++) {
		f->raw[k] = -1;
		const char *r = def >= 0 ? catalogue[def].raw[k] : (k == 0 ? name : NULL);
		if (!r)
			continue;
		int idx = add_raw(s, r, err);
		if (idx < 0)
			return -1;
		f->raw[k] = idx;
	}
	s->nfig++;
	return 0;
}

static int add_set(const char *figs, metric_sel *s, char **err)
{
	const char *p = figs;
	while (*p) {
		while (*p == ' ')
			p++;
		size_t n = strcspn(p, " ");
		if (n == 0)
			break;
		char word[METRICS_NAME];
		snprintf(word, sizeof word, "%.*s", (int)n, p);
		int i = def_index(word);
		if (i < 0 || add_fig(s, i, word, err) != 0)
			return i < 0 ? fail(err, "internal: set names unknown metric '%s'", word) : -1;
		p += n;
	}
	return 0;
}

static int parse_word(const char *w, metric_sel *s, char **err)
{
	const char *set = metrics_set(w);
	if (set)
		return add_set(set, s, err);
	int i = def_index(w);
	if (i >= 0)
		return add_fig(s, i, w, err);
	if (is_raw_name(w) && (i = def_of_raw(w)) >= 0)
		return add_fig(s, i, catalogue[i].name, err); /* its short name, with its meaning */
	if (is_raw_name(w)) {
		if (strlen(w) >= METRICS_NAME)
			return fail(err, "metric name too long: '%.40s...'", w);
		if (!valid_raw_name(w))
			return fail(err, "bad metric name '%s' (letters, digits, '_' and '.')", w);
		return add_fig(s, -1, w, err);
	}
	const char *cands[ARRAY_LEN(catalogue) + ARRAY_LEN(set_names)];
	int nc = 0;
	for (size_t k = 0; k < ARRAY_LEN(catalogue); k++)
		cands[nc++] = catalogue[k].name;
	for (int k = 0; set_names[k]; k++)
		cands[nc++] = set_names[k];
	const char *near = nearest_name(w, cands, nc);
	if (near)
		return fail(err, "unknown metric '%s' (did you mean '%s'?)", w, near);
	return fail(err, "unknown metric '%s' (sets: default, memory, shared, occupancy, sol, explain, tensor; "
	             "`help metrics` lists the names; raw ncu names contain '__')", w);
}

int metrics_parse_words(const char *const *words, int n, metric_sel *out, char **err)
{
	memset(out, 0, sizeof *out);
	int any = 0;
	for (int i = 0; i < n; i++) {
		if (!words[i] || !*words[i])
			continue;
		any = 1;
		if (parse_word(words[i], out, err) != 0) {
			memset(out, 0, sizeof *out);
			return -1;
		}
	}
	if (!any && add_set(metrics_set("default"), out, err) != 0)
		return -1;
	return 0;
}

int metrics_parse(const char *list, metric_sel *out, char **err)
{
	const char *words[METRICS_MAX_FIGS * 2];
	char *copy = xstrdup(list ? list : "");
	int n = 0, rc = 0;
	for (char *save = NULL, *w = strtok_r(copy, " \t,", &save); w; w = strtok_r(NULL, " \t,", &save)) {
		if (n >= (int)ARRAY_LEN(words)) {
			rc = fail(err, "too many metrics: at most %d figures", METRICS_MAX_FIGS);
			break;
		}
		words[n++] = w;
	}
	if (rc == 0)
		rc = metrics_parse_words(words, n, out, err);
	else
		memset(out, 0, sizeof *out);
	free(copy);
	return rc;
}

void metrics_raw_names(const metric_sel *s, const char **names)
{
	for (int i = 0; i < s->nraw; i++)
		names[i] = s->raw[i];
}

/* ----------------------------------------------------------- computing */

static double rawv(const metric_fig *f, int k, const double *raw)
{
	return f->raw[k] >= 0 ? raw[f->raw[k]] : NAN;
}

void metrics_compute(const metric_sel *s, const double *raw, double *fig)
{
	for (int i = 0; i < s->nfig; i++) {
		const metric_fig *f = &s->fig[i];
		metric_kind kind = f->def >= 0 ? catalogue[f->def].kind : MK_VALUE;
		double a = rawv(f, 0, raw), b = rawv(f, 1, raw), c = rawv(f, 2, raw);
		switch (kind) {
		case MK_VALUE:
			fig[i] = a;
			break;
		case MK_RATIO:
			fig[i] = b != 0 && !isnan(b) ? a / b : NAN;
			break;
		case MK_PER_TIME:
			fig[i] = c > 0 ? (a + b) / c : NAN;
			break;
		default:
			fig[i] = NAN;
		}
	}
}

/* -------------------------------------------------------- formatting */

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* The unit of a raw metric from its name, as ncu's names go. */
static metric_unit guess_unit(const char *name)
{
	if (strstr(name, ".pct") || strstr(name, "pct_of_peak") || ends_with(name, "_pct"))
		return MU_PCT;
	if (strstr(name, "__time_duration") && !strstr(name, "per_second"))
		return MU_NS;
	if (strstr(name, "bytes") && !strstr(name, "per_second"))
		return MU_BYTES;
	if (strstr(name, ".ratio"))
		return MU_RATIO;
	return MU_RAW;
}

static metric_unit fig_unit(const metric_sel *s, int i)
{
	const metric_fig *f = &s->fig[i];
	return f->def >= 0 ? catalogue[f->def].unit : guess_unit(f->name);
}

const char *metrics_unit(const metric_sel *s, int i)
{
	switch (fig_unit(s, i)) {
	case MU_NS: return "ns";
	case MU_BYTES: return "bytes";
	case MU_PCT: return "%";
	case MU_GBPS: return "GB/s";
	default: return "";
	}
}

static void plain_number(double v, char *buf, int n)
{
	if (isnan(v))
		snprintf(buf, (size_t)n, "%s", "");
	else if (fabs(v) < 1e15 && v == floor(v))
		snprintf(buf, (size_t)n, "%.0f", v);
	else
		snprintf(buf, (size_t)n, "%.6g", v);
}

void metrics_format_raw(const metric_sel *s, int i, double v, char *buf, int n)
{
	(void)s;
	(void)i;
	plain_number(v, buf, n);
}

void metrics_format(const metric_sel *s, int i, double v, char *buf, int n)
{
	if (isnan(v)) {
		snprintf(buf, (size_t)n, "-");
		return;
	}
	switch (fig_unit(s, i)) {
	case MU_NS:
		fmt_time_ms(v / 1e6, buf, n);
		break;
	case MU_BYTES:
		fmt_bytes(v, buf, n);
		break;
	case MU_PCT:
		snprintf(buf, (size_t)n, "%.1f%%", v);
		break;
	case MU_GBPS:
		snprintf(buf, (size_t)n, "%.0f GB/s", v);
		break;
	case MU_RATIO:
		snprintf(buf, (size_t)n, "%.2f", v);
		break;
	case MU_COUNT:
	case MU_RAW:
	default:
		if (fabs(v) < 1e15 && v == floor(v))
			snprintf(buf, (size_t)n, "%.0f", v);
		else
			snprintf(buf, (size_t)n, "%.4g", v);
		break;
	}
}

static const char *fig_ideal(const metric_sel *s, int i)
{
	const metric_fig *f = &s->fig[i];
	return f->def >= 0 && catalogue[f->def].ideal ? catalogue[f->def].ideal : "";
}

static const char *fig_meaning(const metric_sel *s, int i)
{
	const metric_fig *f = &s->fig[i];
	return f->def >= 0 ? catalogue[f->def].meaning : "raw ncu metric";
}

static void fig_raw_list(const metric_sel *s, int i, char *buf, int n)
{
	const metric_fig *f = &s->fig[i];
	const metric_def *d = f->def >= 0 ? &catalogue[f->def] : NULL;
	const char *r0 = f->raw[0] >= 0 ? s->raw[f->raw[0]] : "";
	const char *r1 = f->raw[1] >= 0 ? s->raw[f->raw[1]] : "";
	const char *r2 = f->raw[2] >= 0 ? s->raw[f->raw[2]] : "";
	if (d && d->kind == MK_RATIO)
		snprintf(buf, (size_t)n, "%s / %s", r0, r1);
	else if (d && d->kind == MK_PER_TIME)
		snprintf(buf, (size_t)n, "(%s + %s) / %s", r0, r1, r2);
	else
		snprintf(buf, (size_t)n, "%s", r0);
}

static int is_occupancy(const metric_sel *s, int i)
{
	return s->fig[i].def >= 0 && strcmp(catalogue[s->fig[i].def].name, "occupancy") == 0;
}

void metrics_table(table *t, const metric_sel *s, int nk, const char *const *kernels,
                   const double *const *figs, const double *theoretical, int human, int mask)
{
	char buf[METRICS_NAME * 3 + 16];
	int have_theory = 0;
	for (int k = 0; theoretical && k < nk; k++)
		if (theoretical[k] >= 0)
			have_theory = 1;
	if (human) {
		int ncols = nk + 3;
		const char **head = xcalloc((size_t)ncols, sizeof *head);
		char *align = xcalloc((size_t)ncols + 1, 1);
		head[0] = "metric";
		align[0] = 'l';
		for (int k = 0; k < nk; k++) {
			head[1 + k] = kernels && kernels[k] ? kernels[k] : "value";
			align[1 + k] = 'r';
		}
		head[nk + 1] = "ideal";
		head[nk + 2] = "meaning";
		align[nk + 1] = 'l';
		align[nk + 2] = 'l';
		table_init(t, ncols, head, align);
		free(head);
		free(align);
		for (int i = 0; i < s->nfig; i++) {
			int r = table_row(t);
			table_set(t, r, 0, "%s", s->fig[i].name);
			for (int k = 0; k < nk; k++) {
				if (mask) {
					table_set(t, r, 1 + k, "<m>");
				} else {
					metrics_format(s, i, figs[k][i], buf, sizeof buf);
					table_set(t, r, 1 + k, "%s", buf);
				}
			}
			table_set(t, r, nk + 1, "%s", fig_ideal(s, i));
			table_set(t, r, nk + 2, "%s", fig_meaning(s, i));
			if (is_occupancy(s, i) && have_theory) {
				r = table_row(t);
				table_set(t, r, 0, "occupancy_theory");
				for (int k = 0; k < nk; k++)
					if (theoretical[k] >= 0)
						table_set(t, r, 1 + k, "%.1f%%", theoretical[k] * 100);
				table_set(t, r, nk + 1, "%s", "");
				table_set(t, r, nk + 2, "the most this launch's registers, shared memory and block size allow");
			}
		}
		return;
	}
	const char *head[] = { "kernel", "metric", "value", "unit", "ideal", "raw" };
	table_init(t, 6, head, "llrlll");
	table_kind(t, "metric");
	for (int k = 0; k < nk; k++) {
		for (int i = 0; i < s->nfig; i++) {
			int r = table_row(t);
			table_set(t, r, 0, "%s", kernels && kernels[k] ? kernels[k] : "");
			table_set(t, r, 1, "%s", s->fig[i].name);
			if (mask)
				table_set(t, r, 2, "<m>");
			else if (!isnan(figs[k][i]))
				table_num(t, r, 2, figs[k][i]); /* NaN: not measured, null */
			table_set(t, r, 3, "%s", metrics_unit(s, i));
			table_set(t, r, 4, "%s", fig_ideal(s, i));
			fig_raw_list(s, i, buf, sizeof buf);
			table_set(t, r, 5, "%s", buf);
			if (is_occupancy(s, i) && theoretical && theoretical[k] >= 0) {
				r = table_row(t);
				table_set(t, r, 0, "%s", kernels && kernels[k] ? kernels[k] : "");
				table_set(t, r, 1, "occupancy_theory");
				table_num(t, r, 2, theoretical[k] * 100);
				table_set(t, r, 3, "%%");
			}
		}
	}
}

void metrics_catalogue_table(table *t)
{
	const char *head[] = { "metric", "ideal", "meaning", "raw ncu metrics" };
	table_init(t, 4, head, "llll");
	table_kind(t, "metric_name");
	metric_sel one;
	char buf[METRICS_NAME * 3 + 16];
	for (size_t i = 0; i < ARRAY_LEN(catalogue); i++) {
		int r = table_row(t);
		table_set(t, r, 0, "%s", catalogue[i].name);
		table_set(t, r, 1, "%s", catalogue[i].ideal ? catalogue[i].ideal : "");
		table_set(t, r, 2, "%s", catalogue[i].meaning);
		memset(&one, 0, sizeof one);
		if (add_fig(&one, (int)i, catalogue[i].name, NULL) == 0) {
			fig_raw_list(&one, 0, buf, sizeof buf);
			table_set(t, r, 3, "%s", buf);
		}
	}
	for (size_t i = 0; i < ARRAY_LEN(sets); i++) {
		int r = table_row(t);
		table_set(t, r, 0, "set %s", sets[i].name);
		table_set(t, r, 2, "%s", sets[i].figs);
	}
}
