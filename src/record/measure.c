/* measure.c: a measurement's record and its row in a table. */
#include "measure.h"
#include "nvml.h"
#include "timeline.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void measure_init(measurement *m, const char *file, const plan *p, const char *vline, int check_on,
                  const kres *r)
{
	memset(m, 0, sizeof *m);
	m->pipe = -1;
	m->file = xstrdup(file ? file : "");
	m->kernel = xstrdup(p->launch.name);
	m->values = xstrdup(vline ? vline : "");
	m->check = check_on ? MCHECK_NONE : MCHECK_OFF;
	m->overlap = -1;
	m->bytes = p->bytes;
	m->flops = p->flops;
	if (p->nchunks > 0) {
		int pageable = 0;
		for (int i = 0; i < p->nbufs; i++)
			pageable |= (p->bufs[i].copy_in || p->bufs[i].copy_out) && p->bufs[i].host == BUF_HOST_PAGEABLE;
		m->bus_h2d = p->bus_h2d;
		m->bus_d2h = p->bus_d2h;
		m->bytes = p->bus_h2d + p->bus_d2h;
		snprintf(m->link, sizeof m->link, "%s%s%s %s", p->bus_h2d > 0 ? "H2D" : "",
		         p->bus_h2d > 0 && p->bus_d2h > 0 ? "+" : "", p->bus_d2h > 0 ? "D2H" : "",
		         pageable ? "pageable" : "pinned");
	}
	fmt_dims(m->grid, sizeof m->grid, p->launch.grid);
	fmt_dims(m->block, sizeof m->block, p->launch.block);
	m->dyn_smem = p->launch.smem;
	if (r)
		m->res = *r;
	m->nsteps = p->nsteps;
	for (int j = 0; j < p->nsteps && j < PLAN_MAX_STEPS; j++) {
		snprintf(m->step_names[j], sizeof m->step_names[j], "%s", p->steps[j].name);
		m->step_bytes[j] = p->step_bytes[j];
	}
}

/* Says in over_roof when the declared figures give more than a roof. */
static void flag_over_roof(measurement *m, double flops_roof)
{
	m->over_roof[0] = 0;
	if (m->roof_frac > MEASURE_OVER_ROOF && !m->link[0])
		snprintf(m->over_roof, sizeof m->over_roof, "%.0f%% of the memory roof: //@ bytes counts more than "
		         "this kernel moves", 100 * m->roof_frac);
	else if (flops_roof > 0 && m->gflops > MEASURE_OVER_ROOF * flops_roof)
		snprintf(m->over_roof, sizeof m->over_roof, "%.0f%% of the compute roof: //@ flops counts more than "
		         "this kernel computes", 100 * m->gflops / flops_roof);
}

void measure_set_flops_roof(measurement *m, double roof_gflops)
{
	flag_over_roof(m, roof_gflops);
}

void measure_steps_text(const measurement *m, const seq_split *sp, int raw, char *buf, size_t n)
{
	size_t k = 0;
	buf[0] = 0;
	for (int j = 0; j < sp->nsteps && j < m->nsteps && k + 1 < n; j++) {
		char t[32], g[32];
		if (raw) {
			k += (size_t)snprintf(buf + k, n - k, "%s%s=%.6f", j ? " " : "", m->step_names[j], sp->step_ms[j]);
			if (j + 1 < sp->nsteps && k + 1 < n)
				k += (size_t)snprintf(buf + k, n - k, " gap=%.6f", sp->gap_ms[j]);
			continue;
		}
		fmt_time_ms(sp->step_ms[j], t, sizeof t);
		fmt_time_ms(sp->gap_ms[j], g, sizeof g);
		k += (size_t)snprintf(buf + k, n - k, "%s%s %s", j ? ", " : "", m->step_names[j], t);
		if (j + 1 < sp->nsteps && k + 1 < n)
			k += (size_t)snprintf(buf + k, n - k, ", gap %s", g);
	}
	if (k >= n && n > 4)
		memcpy(buf + n - 4, "...", 4);
}

/* What the timed launches' last did that the checked one did not, in one
 * line: its first element found bad, left unwritten (still its initial
 * contents, poison unless declared) or with its value against the one
 * wanted; else the output's relative error. */
static void timed_says(char *buf, size_t n, const result *res)
{
	/* a NaN's sign is noise (poison is a negative NaN): "nan", never "-nan" */
	double got = isnan(res->timed_got) ? fabs(res->timed_got) : res->timed_got;
	double want = isnan(res->timed_want) ? fabs(res->timed_want) : res->timed_want;
	static const char lead[] = "the timed launches did not compute what the checked launch did: a kernel that keeps "
	                           "state across launches?";
	if (res->timed_index >= 0 && res->timed_unwritten)
		snprintf(buf, n, "%s ('%.63s'[%lld] left unwritten: it holds its initial contents, %.9g, where %.9g is wanted)",
		         lead, res->timed_buf, (long long)res->timed_index, got, want);
	else if (res->timed_index >= 0 && !isfinite(res->timed_err)) /* compared bit for bit */
		snprintf(buf, n, "%s ('%.63s'[%lld] is %.9g where %.9g is wanted)", lead, res->timed_buf,
		         (long long)res->timed_index, got, want);
	else if (res->timed_index >= 0)
		snprintf(buf, n, "%s ('%.63s'[%lld] is %.9g where %.9g is wanted; relative error %.2e)", lead, res->timed_buf,
		         (long long)res->timed_index, got, want, res->timed_err);
	else
		snprintf(buf, n, "%s ('%.63s', relative error %.2e)", lead, res->timed_buf, res->timed_err);
}

void measure_timed_flag(measurement *m, const result *res)
{
	if (res->timed_check != TIMED_DIFFERS || m->timed_bad[0])
		return;
	/* timed at what it did not compute: out of the charts and "best" */
	m->check = MCHECK_FAIL;
	m->timed_check = TIMED_DIFFERS;
	timed_says(m->timed_bad, sizeof m->timed_bad, res);
}

void measure_make(measurement *m, const char *file, const plan *p, const result *res, const char *vline,
                  int check_on)
{
	measure_init(m, file, p, vline, check_on, NULL);
	m->launched = 1;
	if (res->nchecks > 0) {
		int ok = 1;
		for (int i = 0; i < res->nchecks; i++) {
			ok &= res->checks[i].ok;
			if (res->checks[i].rel_err > m->check_err)
				m->check_err = res->checks[i].rel_err;
		}
		m->check = ok ? MCHECK_OK : MCHECK_FAIL;
	}
	m->timed_check = res->timed_check;
	m->timed_ms = res->timed_ms;
	measure_timed_flag(m, res);
	m->interrupted = res->status == RES_INTERRUPTED;
	m->roof_gbps = res->roof_gbps;
	if (m->link[0]) {
		/* the copies at the link's speed, both ways at once (a copy engine each) */
		int pin = strstr(m->link, "pinned") != NULL;
		double up = res->link_gbps[pin ? LINK_H2D_PINNED : LINK_H2D_PAGEABLE];
		double down = res->link_gbps[pin ? LINK_D2H_PINNED : LINK_D2H_PAGEABLE];
		double t_up = m->bus_h2d > 0 ? (up > 0 ? m->bus_h2d / up : -1) : 0;
		double t_down = m->bus_d2h > 0 ? (down > 0 ? m->bus_d2h / down : -1) : 0;
		double ideal = t_up > t_down ? t_up : t_down;
		m->roof_gbps = t_up >= 0 && t_down >= 0 && ideal > 0 ? m->bytes / ideal : 0;
	}
	m->clock = res->clock;
	if (res->nspans > 0 && res->nspans <= RES_MAX_SPANS) {
		tl_stats ts;
		tl_compute(res->spans, res->nspans, &ts);
		m->overlap = ts.overlap;
	}
	m->seq = res->seq;
	measure_set_samples(m, res->samples_ms, res->nsamples);
	m->stop = res->stop;
	const nvml_cond *cd = &res->cond;
	if (m->timed && cd->available) {
		m->cond_known = 1;
		m->sm_mhz = cd->sm_mhz;
		m->temp_c = cd->temp_c;
		nvml_reasons_text(nvml_slow_reasons(cd), m->throttle, sizeof m->throttle);
	}
}

void measure_set_samples(measurement *m, const double *ms, int n)
{
	free(m->samples);
	m->samples = NULL;
	m->nsamples = 0;
	m->stop = STOP_NOT;
	memset(&m->st, 0, sizeof m->st);
	m->timed = 0;
	m->gbps = m->gflops = m->roof_frac = 0;
	if (n <= 0)
		return;
	stats_compute(ms, n, &m->st);
	m->samples = xmalloc((size_t)n * sizeof *m->samples);
	memcpy(m->samples, ms, (size_t)n * sizeof *m->samples);
	m->nsamples = n;
	m->timed = m->st.median > 0;
	if (!m->timed)
		return;
	double s = m->st.median * 1e-3;
	m->gbps = m->bytes > 0 ? m->bytes / s / 1e9 : 0;
	m->gflops = m->flops > 0 ? m->flops / s / 1e9 : 0;
	m->roof_frac = m->gbps > 0 && m->roof_gbps > 0 ? m->gbps / m->roof_gbps : 0;
	flag_over_roof(m, 0);
}

void measure_set_roof(measurement *m, double roof_gbps)
{
	m->roof_gbps = roof_gbps;
	m->roof_frac = m->gbps > 0 && m->roof_gbps > 0 ? m->gbps / m->roof_gbps : 0;
	flag_over_roof(m, 0);
}

void measure_use_roof(measurement *m, double device_roof_gbps)
{
	if (device_roof_gbps > 0 && !m->link[0])
		measure_set_roof(m, device_roof_gbps);
}

void measure_free(measurement *m)
{
	free(m->file);
	free(m->kernel);
	free(m->values);
	free(m->device);
	free(m->command);
	free(m->samples);
	for (int i = 0; i < m->nmet; i++)
		free(m->met_names[i]);
	free(m->met_names);
	free(m->met_values);
	free(m->why);
	memset(m, 0, sizeof *m);
}

double measure_figure(const measurement *m, const char **unit)
{
	if (m->gflops > 0) {
		*unit = "GFLOP/s";
		return m->gflops;
	}
	if (m->gbps > 0) {
		*unit = "GB/s";
		return m->gbps;
	}
	*unit = "runs/ms";
	return m->timed ? 1.0 / m->st.median : 0;
}

const char *measure_check_word(const measurement *m)
{
	switch (m->check) {
	case MCHECK_OK:
		return "ok";
	case MCHECK_FAIL:
		return "FAIL";
	case MCHECK_NONE:
		return "no check";
	default:
		return "off";
	}
}

void measure_table_init(table *t, int first, int last, const char *const *head, const char *align)
{
	static const char *const mine[M_N] = { "kernel", "values", "check", "rel_err", "median", "±95%",
		                               "min .. max", "min", "max", "noise", "samples", "GB/s", "roof", "link", "overlap",
		                               "GFLOP/s", "SM MHz", "temp C", "throttle", "clock", "regs",
		                               "smem_bytes", "compile_ms", "device", "ci_lo", "ci_hi", "stop",
		                               "steps", "steps_ms", "graph", "one by one", "over roof", "timed launches",
		                               "clock_offset_us", "file" };
	const char *h[64];
	char al[64];
	int n = first + M_N + last;
	for (int i = 0; i < first; i++) {
		h[i] = head[i];
		al[i] = align && align[i] ? align[i] : 'r';
	}
	for (int i = 0; i < M_N; i++)
		h[first + i] = mine[i];
	memcpy(al + first, "lllrrlrrrrrrrlrrrrllrrlrrllllrrllrl", M_N);
	for (int i = 0; i < last; i++) {
		h[first + M_N + i] = head[first + i];
		al[first + M_N + i] = align && align[first + i] ? align[first + i] : 'l';
	}
	al[n] = 0;
	table_init(t, n, h, al);
	table_kind(t, "run");
	table_col(t, first + M_VALUES, NULL, U_PLAIN, COL_RAW);
	table_col(t, first + M_ERR, NULL, U_PLAIN, COL_RAW);
	table_col(t, first + M_MEDIAN, "median_ms", U_MS, COL_BOTH);
	table_col(t, first + M_CI, NULL, U_PLAIN, COL_HUMAN);
	table_col(t, first + M_RANGE, NULL, U_PLAIN, COL_HUMAN);
	table_col(t, first + M_MIN, "min_ms", U_MS, COL_RAW);
	table_col(t, first + M_MAX, "max_ms", U_MS, COL_RAW);
	table_col(t, first + M_NOISE, "noise_frac", U_FRAC1, COL_RAW);
	table_col(t, first + M_SAMPLES, NULL, U_INT, COL_RAW);
	table_col(t, first + M_GBPS, "gbps", U_F0, COL_BOTH);
	table_col(t, first + M_ROOF, "roof_frac", U_FRAC, COL_BOTH);
	table_col(t, first + M_LINK, NULL, U_PLAIN, COL_BOTH);
	table_col(t, first + M_OVERLAP, "overlap_frac", U_FRAC, COL_BOTH);
	table_col(t, first + M_GFLOPS, "gflops", U_F0, COL_BOTH);
	table_col(t, first + M_SM_MHZ, "sm_mhz", U_INT, COL_RAW);
	table_col(t, first + M_TEMP, "temp_c", U_INT, COL_RAW);
	table_col(t, first + M_THROTTLE, NULL, U_PLAIN, COL_RAW);
	table_col(t, first + M_CLOCK, NULL, U_PLAIN, COL_RAW);
	table_col(t, first + M_REGS, NULL, U_INT, COL_RAW);
	table_col(t, first + M_SMEM, NULL, U_BYTES, COL_RAW);
	table_col(t, first + M_COMPILE, NULL, U_MS, COL_RAW);
	table_col(t, first + M_DEVICE, NULL, U_PLAIN, COL_RAW);
	table_col(t, first + M_CI_LO, "ci_lo_ms", U_MS, COL_RAW);
	table_col(t, first + M_CI_HI, "ci_hi_ms", U_MS, COL_RAW);
	table_col(t, first + M_STOP, NULL, U_PLAIN, COL_RAW);
	table_col(t, first + M_CLOCK_OFFSET, NULL, U_PLAIN, COL_RAW);
	table_col(t, first + M_FILE, NULL, U_PLAIN, COL_RAW); /* rows of several files in one stream */
	table_col(t, first + M_STEPS, NULL, U_PLAIN, COL_HUMAN);
	table_col(t, first + M_STEPS_MS, NULL, U_PLAIN, COL_RAW);
	table_col(t, first + M_GRAPH, "graph_ms", U_MS, COL_BOTH);
	table_col(t, first + M_STREAMED, "streamed_ms", U_MS, COL_BOTH);
	table_col(t, first + M_OVER, "over_roof", U_PLAIN, COL_BOTH);
	table_col(t, first + M_TIMED, "timed_check", U_PLAIN, COL_BOTH);
}

/* "±0.2%": the median's interval, its wider side as a percentage of it */
static void interval_text(const stats *st, char *buf, size_t n)
{
	double pct = 100 * st->ci_rel;
	snprintf(buf, n, pct < 0.095 ? "±%.2f%%" : "±%.1f%%", pct);
}

/* A record's cells in row r from column `first` (mask: every time "<t>"). */
#define COL(c) (first + (c))
#define NUM(c, v)                                                                                                \
	do {                                                                                                       \
		if (mask)                                                                                          \
			table_set(t, r, COL(c), "<t>");                                                            \
		else                                                                                               \
			table_num(t, r, COL(c), (v));                                                              \
	} while (0)

/* The timing's cells: the median, its interval, the range, the figures. */
static void row_timing(table *t, int r, int first, const measurement *m, int mask)
{
	NUM(M_MEDIAN, m->st.median);
	table_style(t, r, COL(M_MEDIAN), "1");
	if (m->st.has_ci) {
		char ci[32];
		interval_text(&m->st, ci, sizeof ci);
		if (mask)
			table_set(t, r, COL(M_CI), "<t>");
		else
			table_set(t, r, COL(M_CI), "%s", ci);
		NUM(M_CI_LO, m->st.ci_lo);
		NUM(M_CI_HI, m->st.ci_hi);
	}
	if (m->stop != STOP_NOT)
		table_set(t, r, COL(M_STOP), "%s", mask ? "<t>" : stop_why_name(m->stop));
	if (mask) {
		table_set(t, r, COL(M_RANGE), "<t>");
	} else {
		char lo[32], hi[32];
		fmt_time_ms(m->st.min, lo, sizeof lo);
		fmt_time_ms(m->st.max, hi, sizeof hi);
		table_set(t, r, COL(M_RANGE), "%s .. %s", lo, hi);
	}
	NUM(M_MIN, m->st.min);
	NUM(M_MAX, m->st.max);
	NUM(M_NOISE, m->st.noise);
	NUM(M_SAMPLES, m->st.n);
	if (m->gbps > 0)
		NUM(M_GBPS, m->gbps);
	if (m->roof_frac > 0)
		NUM(M_ROOF, m->roof_frac);
	if (m->overlap >= 0)
		NUM(M_OVERLAP, m->overlap);
	if (m->gflops > 0)
		NUM(M_GFLOPS, m->gflops);
	table_set(t, r, COL(M_CLOCK), "%s", m->clock == CLOCK_KERNEL ? "kernel" : "events");
	if (m->clock_offset_known)
		NUM(M_CLOCK_OFFSET, m->clock_offset_us);
}

/* A sequence's steps and graph, a figure over its roof, the GPU's
 * conditions. */
static void row_more(table *t, int r, int first, const measurement *m, int mask)
{
	if (m->seq.stream.nsteps > 0) {
		char st[512];
		measure_steps_text(m, &m->seq.stream, 0, st, sizeof st);
		table_set(t, r, COL(M_STEPS), "%s", mask ? "<t>" : st);
		measure_steps_text(m, &m->seq.stream, 1, st, sizeof st);
		table_set(t, r, COL(M_STEPS_MS), "%s", mask ? "<t>" : st);
	}
	if (m->seq.graph_n > 0) {
		NUM(M_GRAPH, m->seq.graph_ms);
		NUM(M_STREAMED, m->seq.streamed_ms);
	}
	if (m->over_roof[0]) {
		table_set(t, r, COL(M_OVER), "%s", m->over_roof);
		table_style(t, r, COL(M_OVER), "1;33");
	}
	if (m->timed_bad[0]) {
		table_set(t, r, COL(M_TIMED), "%s", m->timed_bad);
		table_style(t, r, COL(M_TIMED), "1;31");
	}
	if (m->cond_known) {
		if (m->sm_mhz)
			NUM(M_SM_MHZ, m->sm_mhz);
		if (m->temp_c >= 0)
			NUM(M_TEMP, m->temp_c);
		if (mask)
			table_set(t, r, COL(M_THROTTLE), "<t>");
		else
			table_set(t, r, COL(M_THROTTLE), "%s", m->throttle);
	}
}

void measure_row(table *t, int r, int first, const measurement *m, int mask)
{
	table_set(t, r, COL(M_KERNEL), "%s", m->kernel);
	table_set(t, r, COL(M_VALUES), "%s", m->values);
	table_set(t, r, COL(M_FILE), "%s", m->file);
	table_set(t, r, COL(M_CHECK), "%s", measure_check_word(m));
	if (m->check == MCHECK_OK || m->check == MCHECK_FAIL) {
		table_style(t, r, COL(M_CHECK), m->check == MCHECK_OK ? "32" : "1;31");
		table_num(t, r, COL(M_ERR), m->check_err);
	}
	if (m->res.known) {
		table_num(t, r, COL(M_REGS), m->res.regs);
		table_num(t, r, COL(M_SMEM), (double)m->res.smem + (double)m->dyn_smem);
	}
	if (m->compile_ms > 0) {
		if (mask)
			table_set(t, r, COL(M_COMPILE), "<t>");
		else
			table_num(t, r, COL(M_COMPILE), m->compile_ms);
	}
	if (m->device)
		table_set(t, r, COL(M_DEVICE), "%s", m->device);
	if (m->link[0])
		table_set(t, r, COL(M_LINK), "%s", m->link);
	if (!m->timed) {
		if (m->interrupted)
			table_set(t, r, COL(M_MEDIAN), "interrupted");
		return;
	}
	row_timing(t, r, first, m, mask);
	row_more(t, r, first, m, mask);
}
#undef NUM
#undef COL
