/* cmd_device.c: the `device` command: the GPU in use, or another chosen; its entry beside its handler. */
#include "cmd_device.h"
#include "clockcheck.h"

#include <stdlib.h>
#include <string.h>

int app_device(app *a, int argc, char **argv)
{
	if (argc > 1) {
		char *end;
		long n = strtol(argv[1], &end, 10);
		if (end == argv[1] || *end || n < 0 || n > 1023)
			return app_error(a, "device: '%s' is not a device number", argv[1]);
		if (a->gpu == 1 && a->worker.dev.count > 0 && n >= a->worker.dev.count)
			return app_error(a, "device: no GPU %ld (this machine has %d)", n, a->worker.dev.count);
		if (a->worker.pid)
			wc_stop(&a->worker);
		a->device = (int)n;
		a->device_set = 1;
		if (a->gpu == 1)
			a->gpu = -1;
		memset(&a->roof, 0, sizeof a->roof);
	}
	/* without a GPU, one line says so, why, and what is compiled for */
	int said = a->notice_said;
	a->notice_said = 1;
	int gpu = app_gpu(a);
	a->notice_said = said || gpu == 0;
	if (gpu < 0)
		return -1;
	if (!gpu) {
		int sm = a->opt.arch_sm ? a->opt.arch_sm : 90;
		if (a->opt.no_gpu)
			app_note(a, "compile-only mode (--no-gpu), compiling for sm_%d", sm);
		else
			app_note(a, "%s: compile-only mode, compiling for sm_%d", a->gpu_why ? a->gpu_why : "no GPU", sm);
		return 0;
	}
	char *err = NULL;
	if (wc_device(&a->worker, &err) != 0) { /* the free memory, once the worker's context exists */
		app_error(a, "device: %s", err ? err : "the GPU worker did not answer");
		free(err);
		return -1;
	}
	const devinfo *d = &a->worker.dev;
	if (format_is_data(a->format)) {
		const char *head[] = { "ordinal", "count", "name", "sm", "sm_count", "l2_bytes", "memory_bytes",
			               "free_bytes", "driver", "clock_offset_us" };
		table t;
		table_init(&t, 10, head, NULL);
		table_kind(&t, "device");
		int r = table_row(&t);
		table_num(&t, r, 0, d->ordinal);
		table_num(&t, r, 1, d->count);
		table_set(&t, r, 2, "%s", d->name);
		table_num(&t, r, 3, d->cc_major * 10 + d->cc_minor);
		table_num(&t, r, 4, d->sm_count);
		table_num(&t, r, 5, (double)d->l2_bytes);
		table_num(&t, r, 6, (double)d->total_mem);
		table_num(&t, r, 7, (double)d->free_mem);
		table_set(&t, r, 8, "%d.%d", d->driver_version / 1000, d->driver_version % 1000 / 10);
		clock_check_cached(a);
		clock_offset_field(a, &t, r, 9);
		app_table(a, &t, 0);
		table_free(&t);
		return 0;
	}
	char mem[32], fr[32], l2[32];
	fmt_bytes((double)d->total_mem, mem, sizeof mem);
	fmt_bytes((double)d->free_mem, fr, sizeof fr);
	fmt_bytes((double)d->l2_bytes, l2, sizeof l2);
	app_note(a, "GPU %d of %d: %s, sm_%d%d, %d SMs, %s L2, %s memory (%s free), driver %d.%d",
	         d->ordinal, d->count, d->name, d->cc_major, d->cc_minor, d->sm_count, l2, mem, fr,
	         d->driver_version / 1000, d->driver_version % 1000 / 10);
	clock_check_cached(a);
	clock_line(a);
	return 0;
}

static int cmd_device(app *a, int argc, char **argv, const char *rest)
{
	return app_device(a, argc, argv);
}

static const char lh_device[] =
	"Shows the GPU in use, or switches to GPU N; every setting is kept. Without a GPU it "
	"says so, and which architecture kernels are compiled for.\n"
	"\n"
	"Examples:\n"
	"  device\n"
	"  device 1\n";
const command cmd_device_entry = {
	.name = "device",
	.fn = cmd_device,
	.args = "[N]",
	.help = "show the GPU, or switch to GPU N",
	.min_args = 0,
	.max_args = 1,
	.compl = COMPL_NONE,
	.long_help = lh_device,
};
