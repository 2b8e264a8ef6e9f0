/* cmd_timeline.c: the `timeline` command: the last timed run's copies and kernels by stream; its entry beside its handler. */
#include "cmd_timeline.h"
#include "fileio.h"
#include "timeline.h"

#include <stdlib.h>
#include <string.h>

int app_timeline_svg(app *a, const char *path)
{
	size_t n = strlen(path);
	if (n < 4 || strcmp(path + n - 4, ".svg") != 0)
		return app_error(a, "timeline: '%s': write an .svg file", path);
	if (!a->timeline.spans)
		return app_error(a, "timeline: %s", a->timeline.why ? a->timeline.why : "no run yet: 'run' a kernel first");
	sbuf b = {0};
	tl_svg(a->timeline.spans, a->timeline.n, a->timeline.title, 1, &b);
	char *err = NULL;
	if (write_sbuf(path, &b, &err) != 0) {
		app_error(a, "timeline: %s", err);
		free(err);
		return -1;
	}
	app_note(a, "wrote %s", path);
	return 0;
}

int app_timeline(app *a, const char *svg_path)
{
	if (svg_path && (strlen(svg_path) < 4 || strcmp(svg_path + strlen(svg_path) - 4, ".svg") != 0))
		return app_error(a, "timeline: '%s': write an .svg file", svg_path);
	if (!a->timeline.spans && a->gpu != 1 && !a->timeline.title) {
		app_note(a, "timeline: skipped (no GPU)");
		return 0;
	}
	if (!a->timeline.spans && a->timeline.unavailable) { /* CUPTI would not: said, not an error of the session */
		app_note(a, "timeline of %s: %s", a->timeline.title, a->timeline.why);
		return 0;
	}
	if (!a->timeline.spans)
		return app_error(a, "timeline: %s", a->timeline.why ? a->timeline.why : "no run yet: 'run' a kernel first");
	sbuf b = {0};
	tl_text(a->timeline.spans, a->timeline.n, a->timeline.title, 80, &b);
	if (a->opt.mask_times) { /* the bars and figures are the GPU's: only the shape is kept */
		sb_free(&b);
		sb_printf(&b, "timeline of %s: %d spans\n", a->timeline.title, a->timeline.n);
	}
	if (a->display && a->format == FMT_TABLE && !a->opt.mask_times) {
		sbuf svg = {0};
		tl_svg(a->timeline.spans, a->timeline.n, a->timeline.title, 0, &svg);
		app_figure(a, b.s, svg.s);
		sb_free(&svg);
	} else {
		fputs(b.s, app_textf(a));
	}
	sb_free(&b);
	if (a->timeline.lost > 0)
		app_note(a, "  %d more spans were not kept (at most %d)", a->timeline.lost, RES_MAX_SPANS);
	a->timeline.plot = 1;
	return svg_path ? app_timeline_svg(a, svg_path) : 0;
}

static int cmd_timeline(app *a, int argc, char **argv, const char *rest)
{
	return app_timeline(a, argc > 1 ? argv[1] : NULL);
}

static const char lh_timeline[] =
	"Draws the last timed run's copies and kernels against time, a row a stream, from the "
	"GPU's own timestamps (CUPTI's activity records of one more run after the samples): "
	"'>' a copy in (host to device), '#' a kernel, '<' a copy out. Then what it shows: the "
	"copies' bytes and speed, the share of copy time hidden under kernels (the overlap), "
	"how long copies went both ways at once, and the gaps where nothing ran. Recorded for "
	"runs on host data ('//@ buffer ... host', '//@ streams') and for batches ('batch N', "
	"whose launches show back to back). With FILE.svg, or 'plot FILE.svg' after it, also "
	"as SVG.\n"
	"\n"
	"Examples:\n"
	"  set STREAMS=4\n"
	"  run vadd\n"
	"  timeline\n"
	"  timeline vadd4.svg\n";
const command cmd_timeline_entry = {
	.name = "timeline",
	.fn = cmd_timeline,
	.args = "[FILE.svg]",
	.help = "the last run's copies and kernels by stream, in time",
	.min_args = 0,
	.max_args = 1,
	.compl = COMPL_PATH,
	.long_help = lh_timeline,
};
