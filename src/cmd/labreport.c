/* labreport.c: `report FILE.html|FILE.md`, the session's lab report. */
#include "labreport.h"
#include "lab.h"
#include "perline.h"
#include "fileio.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int ends_with(const char *s, const char *suf)
{
	size_t l = strlen(s), m = strlen(suf);
	return l >= m && strcmp(s + l - m, suf) == 0;
}

int app_report(app *a, const char *path)
{
	lab_format fmt;
	if (ends_with(path, ".html") || ends_with(path, ".htm"))
		fmt = LAB_HTML;
	else if (ends_with(path, ".md"))
		fmt = LAB_MARKDOWN;
	else
		return app_error(a, "report: '%s': write an .html or .md file", path);
	char when[64] = "";
	time_t now = time(NULL);
	struct tm tm;
	if (gmtime_r(&now, &tm))
		strftime(when, sizeof when, "%Y-%m-%d %H:%M UTC", &tm);
	/* the commands so far, without this one */
	int nc = a->results.nhistory;
	if (nc > 0 && a->cmd_text && strcmp(a->results.history[nc - 1], a->cmd_text) == 0)
		nc--;
	lab_input in = { a->results.runs, a->results.nruns, a->results.history, nc, CUPLAY_VERSION,
		         a->opt.mask_times ? "<t>" : when, a->opt.mask_times ? NULL : a->timeline.spans, a->timeline.n,
		         a->timeline.title,
		         a->roof.device ? a->roof.best : 0, a->roof.device ? a->roof.gflops : 0, NULL, 0 };
	/* the per-line views made (`lines`, `explain`) */
	lab_lines *ll = NULL;
	const char *k, *vl, *pa;
	for (const lines_view *v; (v = perline_kept(in.nlines, &k, &vl, &pa)) != NULL; in.nlines++) {
		ll = xrealloc(ll, (size_t)(in.nlines + 1) * sizeof *ll);
		ll[in.nlines] = (lab_lines){ k, vl, pa, v };
	}
	in.lines = ll;
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (!m) {
		free(ll);
		return app_error(a, "report: %s", strerror(errno));
	}
	lab_write(m, fmt, &in);
	fclose(m);
	free(ll);
	char *why = NULL;
	int r = write_file(path, buf, len, &why);
	free(buf);
	if (r != 0) {
		app_error(a, "report: cannot write '%s': %s", path, why);
		free(why);
		return -1;
	}
	int timed = 0, counters = 0;
	for (int i = 0; i < a->results.nruns; i++) {
		timed += a->results.runs[i].timed;
		counters += lab_counters_only(&a->results.runs[i]);
	}
	int rows = a->results.nruns - counters;
	char more[64] = "";
	if (counters)
		snprintf(more, sizeof more, "; the counters of %d `metrics` run%s", counters, counters == 1 ? "" : "s");
	app_note(a, "wrote %s: %d result%s, %d timed%s", path, rows, rows == 1 ? "" : "s", timed, more);
	return 0;
}
