/* metrics.h: the hardware-counter figures cuplay shows, what each means,
 * which raw ncu metrics it needs and how it is derived from them. Pure: no
 * CUDA; prof.c collects the raw values, this module names, derives and
 * formats them.
 *
 *   metrics                      the default set
 *   metrics memory               a named set (default, memory, shared, occupancy,
 *                                sol, explain)
 *   metrics bank_conflicts_ld l2_hit
 *   metrics dram__bytes_read.sum any raw ncu metric name (it contains "__")
 */
#ifndef CUPLAY_METRICS_H
#define CUPLAY_METRICS_H

#include "report.h"

#define METRICS_MAX_RAW 48   /* raw ncu metrics collected in one request */
#define METRICS_MAX_FIGS 48  /* figures shown */
#define METRICS_NAME 128     /* longest metric name, with the NUL */

typedef enum metric_kind {
	MK_VALUE = 0,  /* raw[0] as it is */
	MK_RATIO,      /* raw[0] / raw[1] (NaN when raw[1] is 0) */
	MK_PER_TIME    /* (raw[0] + raw[1]) / raw[2]: bytes / ns = GB/s */
} metric_kind;

typedef enum metric_unit {
	MU_COUNT = 0,  /* a plain count */
	MU_NS,         /* nanoseconds, shown as a time */
	MU_BYTES,
	MU_PCT,        /* already a percentage (0..100) */
	MU_GBPS,
	MU_RATIO,      /* a ratio shown with two decimals */
	MU_RAW         /* a metric typed by hand: the unit is guessed from its name */
} metric_unit;

typedef struct metric_def {
	const char *name;     /* short name: "ld_sectors_per_req" */
	const char *meaning;  /* one line for students */
	metric_kind kind;
	const char *raw[3];   /* the raw ncu metrics it needs (unused: NULL) */
	metric_unit unit;
	const char *ideal;    /* "4", "0", ... or NULL when there is none */
} metric_def;

/* The catalogue, in display order. */
const metric_def *metrics_catalogue(int *n);
/* A figure by short name, or NULL. */
const metric_def *metrics_find(const char *name);
/* The figure that shows a raw ncu metric as it is (ld_requests for
 * l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum), or NULL: a raw name typed
 * by hand is shown, and found by `expect`, under that figure's short name. */
const metric_def *metrics_by_raw(const char *raw);
/* The figures of a named set as a space-separated list, or NULL. */
const char *metrics_set(const char *name);
/* The set names: "default", "memory", "shared", "occupancy", "sol",
 * "explain"; NULL-terminated. */
const char *const *metrics_set_names(void);

typedef struct metric_fig {
	int def;                   /* index in the catalogue; -1: a raw metric by hand */
	char name[METRICS_NAME];   /* short name, or the raw metric name */
	int raw[3];                /* indexes into metric_sel.raw; -1 unused */
} metric_fig;

/* What to collect and what to show. Fixed size, no pointers: it may cross
 * the pipe to the worker as it is. */
typedef struct metric_sel {
	int nraw;
	char raw[METRICS_MAX_RAW][METRICS_NAME];  /* deduplicated, first use first */
	int nfig;
	metric_fig fig[METRICS_MAX_FIGS];
} metric_sel;

/* Parses a user list: words separated by spaces or commas, each a set name,
 * a short name or a raw ncu metric (a name with "__"). NULL or empty means
 * the default set. Figures and raw metrics are deduplicated. -1 with *err:
 * "unknown metric 'bank_conflict' (did you mean 'bank_conflicts_ld'?)". */
int metrics_parse(const char *list, metric_sel *out, char **err);
/* The same for words already split (a command's arguments). */
int metrics_parse_words(const char *const *words, int n, metric_sel *out, char **err);

/* names[i] = out->raw[i] for i < s->nraw, for prof_collect. */
void metrics_raw_names(const metric_sel *s, const char **names);

/* Figures from raw values (raw[i] is the value of s->raw[i]); fig has
 * s->nfig slots; a figure whose inputs are missing or divide by 0 is NaN. */
void metrics_compute(const metric_sel *s, const double *raw, double *fig);

/* The figure's value for people: "194 us", "256.0 MiB", "4.00", "12.5%",
 * "2764 GB/s", "1048576"; "-" for NaN. */
void metrics_format(const metric_sel *s, int i, double v, char *buf, int n);
/* ... and as a plain number for csv/json ("" for NaN). */
void metrics_format_raw(const metric_sel *s, int i, double v, char *buf, int n);
/* The unit of figure i for csv/json: "ns", "bytes", "%", "GB/s", "" */
const char *metrics_unit(const metric_sel *s, int i);

/* Builds the table of nk kernels' figures: figs[k][i] is figure i of kernel
 * k. human (FMT_TABLE): columns metric, one per kernel (titled by its name,
 * or "value" when kernels is NULL and nk is 1), ideal, meaning. Otherwise
 * one row per kernel and figure: kernel, metric, value, unit, ideal, raw
 * metrics. theoretical (may be NULL): per kernel, the theoretical occupancy
 * (0..1, negative when unknown), shown as a row after `occupancy`. mask:
 * print "<m>" for every measured value (golden tests). */
void metrics_table(table *t, const metric_sel *s, int nk, const char *const *kernels,
                   const double *const *figs, const double *theoretical, int human, int mask);

/* The catalogue as a table (name, ideal, meaning, raw metrics) and the sets,
 * for `help metrics`. */
void metrics_catalogue_table(table *t);

#endif
