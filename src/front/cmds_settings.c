/* cmds_settings.c: the commands that set how runs are timed and shown: reps, warmup, timing, batch, flush, check, timeout, format; each command's entry beside its handler. */
#include "cmds_settings.h"
#include "ccserver.h"
#include "diagnose.h"
#include "expect.h"
#include "fileio.h"
#include "headers.h"
#include "help.h"
#include "metrics.h"
#include "search.h"
#include "watch.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int parse_count(app *a, const command *c, const char *s, long lo, long hi, long *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || *end || end == s || v < lo || v > hi) {
		app_error(a, "%s: '%s' is not a whole number from %ld to %ld", c->name, s, lo, hi);
		return -1;
	}
	*out = v;
	return 0;
}

static int cmd_reps(app *a, int argc, char **argv, const char *rest)
{
	if (argc == 1) {
		app_note(a, "reps %d (at least this many timed launches)", a->opt.topt.min_reps);
		return 0;
	}
	long v;
	if (parse_count(a, &cmd_reps_entry, argv[1], 1, RES_MAX_SAMPLES, &v) != 0)
		return -1;
	a->opt.topt.min_reps = (int)v;
	return 0;
}

static int cmd_warmup(app *a, int argc, char **argv, const char *rest)
{
	if (argc == 1) {
		app_note(a, "warmup %d", a->opt.topt.warmup);
		return 0;
	}
	long v;
	if (parse_count(a, &cmd_warmup_entry, argv[1], 0, 1000, &v) != 0)
		return -1;
	a->opt.topt.warmup = (int)v;
	return 0;
}

static int on_off(app *a, const char *cmd, int argc, char **argv, int *flag)
{
	if (argc == 1) {
		app_note(a, "%s %s", cmd, *flag ? "on" : "off");
		return 0;
	}
	if (strcmp(argv[1], "on") == 0)
		*flag = 1;
	else if (strcmp(argv[1], "off") == 0)
		*flag = 0;
	else
		return app_error(a, "%s: expected 'on' or 'off', got '%s'", cmd, argv[1]);
	return 0;
}

static int cmd_flush(app *a, int argc, char **argv, const char *rest)
{
	return on_off(a, "flush", argc, argv, &a->opt.topt.flush);
}

static int cmd_check(app *a, int argc, char **argv, const char *rest)
{
	return on_off(a, "check", argc, argv, &a->opt.topt.do_check);
}

static int cmd_batch(app *a, int argc, char **argv, const char *rest)
{
	if (argc == 1) {
		if (a->opt.topt.batch > 1)
			app_note(a, "batch %d (each sample times %d back-to-back launches)", a->opt.topt.batch, a->opt.topt.batch);
		else
			app_note(a, "batch off (one launch between two events per sample)");
		return 0;
	}
	long v;
	if (strcmp(argv[1], "off") == 0) {
		a->opt.topt.batch = 1;
		return 0;
	}
	if (parse_count(a, &cmd_batch_entry, argv[1], 1, 100000, &v) != 0)
		return -1;
	a->opt.topt.batch = (int)v;
	return 0;
}

/* A fraction, or a percentage with '%' ("0.005", "0.5%"), from 0 to 3600. */
static int timing_number(const char *s, int pct_ok, double *v)
{
	char *end;
	*v = strtod(s, &end);
	if (pct_ok && end != s && *end == '%' && end[1] == 0) {
		*v /= 100;
		end++;
	}
	return end == s || *end || !(*v >= 0) || *v > 3600 ? -1 : 0;
}

/* timing [rule interval|noise] [target X] [noise X] [min S] [max S] [wall S]
 * [clock kernel|events]: the stopping rule and what times a sample */
static int cmd_timing(app *a, int argc, char **argv, const char *rest)
{
	timing_opts t = a->opt.topt;
	int min_given = 0, rule_given = 0;
	if ((argc - 1) % 2)
		return app_error(a, "usage: timing [rule interval|noise] [target FRACTION] [noise FRACTION] "
		                    "[min SECONDS] [max SECONDS] [wall SECONDS] [clock kernel|events] [graph on|off]");
	for (int i = 1; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "graph") == 0) {
			if (strcmp(argv[i + 1], "on") != 0 && strcmp(argv[i + 1], "off") != 0)
				return app_error(a, "timing: graph '%s' is not 'on' or 'off'", argv[i + 1]);
			t.graph = strcmp(argv[i + 1], "on") == 0;
			continue;
		}
		if (strcmp(argv[i], "clock") == 0) {
			if (strcmp(argv[i + 1], "kernel") == 0)
				t.clock = CLOCK_KERNEL;
			else if (strcmp(argv[i + 1], "events") == 0)
				t.clock = CLOCK_EVENTS;
			else
				return app_error(a, "timing: clock '%s' is not 'kernel' or 'events'", argv[i + 1]);
			continue;
		}
		if (strcmp(argv[i], "rule") == 0) {
			if (strcmp(argv[i + 1], "interval") == 0)
				t.rule = RULE_INTERVAL;
			else if (strcmp(argv[i + 1], "noise") == 0)
				t.rule = RULE_NOISE;
			else
				return app_error(a, "timing: rule '%s' is not 'interval' or 'noise'", argv[i + 1]);
			rule_given = 1;
			continue;
		}
		double v;
		int frac = strcmp(argv[i], "target") == 0 || strcmp(argv[i], "noise") == 0;
		if (timing_number(argv[i + 1], frac, &v) != 0)
			return app_error(a, "timing: '%s' is not a number from 0 to 3600", argv[i + 1]);
		if (strcmp(argv[i], "target") == 0)
			t.target = v;
		else if (strcmp(argv[i], "noise") == 0)
			t.noise_target = v;
		else if (strcmp(argv[i], "min") == 0)
			t.min_time_s = v, min_given = 1;
		else if (strcmp(argv[i], "max") == 0)
			t.max_time_s = v;
		else if (strcmp(argv[i], "wall") == 0)
			t.max_wall_s = v;
		else
			return app_error(a, "timing: unknown setting '%s' (rule, target, noise, min, max, wall, clock, graph)",
			                 argv[i]);
	}
	if (rule_given && !min_given && t.rule != a->opt.topt.rule)
		t.min_time_s = t.rule == RULE_NOISE ? TIMING_MIN_NOISE_S : TIMING_MIN_INTERVAL_S;
	a->opt.topt = t;
	char stop[160];
	if (t.rule == RULE_NOISE)
		snprintf(stop, sizeof stop, "stop once the noise is <= %.2f%%", 100 * t.noise_target);
	else
		snprintf(stop, sizeof stop, "stop once the median's 95%% interval is within +-%.2f%% of it", 100 * t.target);
	app_note(a, "timing: rule %s: at least %d samples; %s with %g s of kernel time, "
	         "at %g s of kernel time, %d samples, or after %g s in the loop; clock: %s%s",
	         t.rule == RULE_NOISE ? "noise" : "interval", t.min_reps, stop, t.min_time_s, t.max_time_s,
	         t.max_reps, t.max_wall_s,
	         t.clock == CLOCK_KERNEL ? "kernel (the GPU's timestamps at kernel start and end)"
	                                 : "events (a CUDA event pair around the launch)",
	         t.graph ? "; sequences also as one CUDA graph" : "");
	return 0;
}

/* `timeout [SECONDS]`: a kernel's; `timeout compile [SECONDS]`: a compile's. */
static int cmd_timeout(app *a, int argc, char **argv, const char *rest)
{
	int compile = argc > 1 && strcmp(argv[1], "compile") == 0;
	if (argc == 1 + compile) {
		if (compile)
			app_note(a, "timeout compile %g s", ccs_limit());
		else
			app_note(a, "timeout %g s", a->opt.timeout_s);
		return 0;
	}
	if (argc > 2 + compile)
		return app_error(a, "usage: timeout [SECONDS] | timeout compile [SECONDS]");
	const char *arg = argv[1 + compile];
	char *end;
	double v = strtod(arg, &end);
	if (end == arg || *end || !(v > 0) || v > 86400)
		return app_error(a, "timeout: '%s' is not a number of seconds (0 to 86400)", arg);
	if (compile)
		ccs_set_limit(v);
	else
		a->opt.timeout_s = v;
	return 0;
}

static int cmd_format(app *a, int argc, char **argv, const char *rest)
{
	if (argc == 1) {
		app_note(a, "format %s", format_name(a->format));
		return 0;
	}
	out_format f;
	if (format_parse(argv[1], &f) != 0)
		return app_error(a, "format: expected table, csv, json, jsonl or markdown, got '%s'", argv[1]);
	app_format(a, f);
	return 0;
}

static const char lh_reps[] =
	"Sets the least number of timed launches of each kernel (default 10); more come until "
	"the stopping rule is met ('timing'). Alone: shows it.\n"
	"\n"
	"Example:\n"
	"  reps 50\n";
const command cmd_reps_entry = {
	.name = "reps",
	.fn = cmd_reps,
	.args = "[N]",
	.help = "time at least N launches (default 10)",
	.min_args = 0,
	.max_args = 1,
	.compl = COMPL_NONE,
	.long_help = lh_reps,
};

static const char lh_warmup[] =
	"Sets the number of untimed launches before timing (default 2). Alone: shows it.\n"
	"\n"
	"Example:\n"
	"  warmup 5\n";
const command cmd_warmup_entry = {
	.name = "warmup",
	.fn = cmd_warmup,
	.args = "[N]",
	.help = "untimed launches before timing (default 2)",
	.min_args = 0,
	.max_args = 1,
	.compl = COMPL_NONE,
	.long_help = lh_warmup,
};

static const char lh_timing[] =
	"Sets when sampling stops. The rule 'interval' (the default) samples until the 95% "
	"confidence interval of the median is within +-target of it (target 0.005, or 0.5%); "
	"the interval comes from the samples' order statistics and holds whatever their "
	"distribution; where the samples come in runs (a GPU that holds one speed for several "
	"launches, then another), it is widened for them. The rule 'noise' samples until their relative standard deviation is "
	"under 'noise' (0.005). Either stops only once 'min' seconds of kernel time are "
	"sampled (2 ms for interval, 20 ms for noise: naming a rule sets its own unless min "
	"comes with it), and always at a cap of kernel time (max 0.5 s), of samples (2048) or "
	"of wall time in the loop (wall 1 s; for a kernel under 10 ms, once 'min' is sampled, 100 "
	"of its medians, at least 0.1 s). 'clock kernel' times each launch by the GPU's own "
	"start and end timestamps (the default); 'clock events' by a CUDA event pair, which "
	"also counts the launch's processing. 'graph on' also times each sequence "
	"('//@ sequence') captured as one CUDA graph and launched whole (cuGraphLaunch), "
	"beside its steps launched one by one: the gaps a graph removes are launch overhead. "
	"Shows the rule it ends with.\n"
	"\n"
	"Examples:\n"
	"  timing target 0.2%\n"
	"  timing rule noise\n"
	"  timing noise 0.01 max 2\n"
	"  timing clock events\n"
	"  timing graph on\n";
const command cmd_timing_entry = {
	.name = "timing",
	.fn = cmd_timing,
	.args = "[rule interval|noise] [target X] [noise X] [min S] [max S] [wall S] [clock kernel|events] [graph on|off]",
	.help = "when sampling stops; what clock times a sample",
	.min_args = 0,
	.max_args = -1,
	.compl = COMPL_WORDS,
	.words = "rule interval noise target min max wall clock kernel events graph on off",
	.long_help = lh_timing,
};

static const char lh_batch[] =
	"Times N back-to-back launches per sample, between two events, and divides: for kernels "
	"shorter than a launch. 'batch off' goes back to one launch a sample.\n"
	"\n"
	"Examples:\n"
	"  batch 100\n"
	"  batch off\n";
const command cmd_batch_entry = {
	.name = "batch",
	.fn = cmd_batch,
	.args = "[N|off]",
	.help = "time N back-to-back launches per sample",
	.min_args = 0,
	.max_args = 1,
	.compl = COMPL_WORDS,
	.words = "off 10 100 1000",
	.long_help = lh_batch,
};

static const char lh_flush[] =
	"With flush on (the default), a buffer twice the size of the L2 is read before each "
	"timed launch, so every kernel starts with a cold cache; flush off shows warm-cache "
	"behaviour.\n"
	"\n"
	"Example:\n"
	"  flush off\n";
const command cmd_flush_entry = {
	.name = "flush",
	.fn = cmd_flush,
	.args = "[on|off]",
	.help = "a cold L2 before each timed launch (default on)",
	.min_args = 0,
	.max_args = 1,
	.compl = COMPL_WORDS,
	.words = "on off",
	.long_help = lh_flush,
};

static const char lh_check[] =
	"With check on (the default), every run compares each output with its reference before "
	"timing; check off skips that (a kernel under construction).\n"
	"\n"
	"Example:\n"
	"  check off\n";
const command cmd_check_entry = {
	.name = "check",
	.fn = cmd_check,
	.args = "[on|off]",
	.help = "compare outputs with the reference (default on)",
	.min_args = 0,
	.max_args = 1,
	.compl = COMPL_WORDS,
	.words = "on off",
	.long_help = lh_check,
};

static const char lh_timeout[] =
	"Stops a kernel that makes no progress for this many seconds (default 10): the worker "
	"is stopped, every setting is kept, and the next run starts a new one.\n"
	"'timeout compile SECONDS' limits one compile likewise (default 120): NVRTC runs in a "
	"process of its own, which is stopped (so is it on Ctrl-C) and started again.\n"
	"\n"
	"Examples:\n"
	"  timeout 60\n"
	"  timeout compile 30\n";
const command cmd_timeout_entry = {
	.name = "timeout",
	.fn = cmd_timeout,
	.args = "[compile] [SECONDS]",
	.help = "stop a stuck kernel (10 s) or compile (120 s)",
	.min_args = 0,
	.max_args = 2,
	.compl = COMPL_NONE,
	.long_help = lh_timeout,
};

static const char lh_format[] =
	"Sets how results print: an aligned table (the default), or data: csv, json (one "
	"document for the whole invocation), jsonl (a record a line) or markdown. Data carries "
	"raw numbers with the unit in the field name and null for what is missing; notes and "
	"errors then go to stderr, so stdout holds only data.\n"
	"\n"
	"Example:\n"
	"  format csv\n";
const command cmd_format_entry = {
	.name = "format",
	.fn = cmd_format,
	.args = "[table|csv|json|jsonl|markdown]",
	.help = "how results print: for people, or as data",
	.min_args = 0,
	.max_args = 1,
	.compl = COMPL_WORDS,
	.words = "table csv json markdown",
	.long_help = lh_format,
};
