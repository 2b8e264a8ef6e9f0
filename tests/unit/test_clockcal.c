/* test_clockcal.c: the kernel clock's check: its record and words
 * (clockcal), its entry in the cache (kept, keyed like the roofs, a
 * damaged one read as none so that it is measured again), the note under
 * a results table, and the field of the data formats. */
#include "test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app.h"
#include "clockcal.h"
#include "clockcheck.h"
#include "builtin.h"
#include "devcache.h"
#include "fileio.h"
#include "measure.h"
#include "util.h"

/* clockcal_set with the spin's and the copy's readings */
static int set2(clock_cal *c, double ks, double rs, double kc, double rc, int n)
{
	double k[CAL_N] = { ks, kc }, r[CAL_N] = { rs, rc };
	return clockcal_set(c, k, r, n);
}

TEST(record_and_words)
{
	clock_cal c;
	/* both read longer: the smaller offset is what both showed */
	CHECK(set2(&c, 6.85, 5.93, 5.01, 4.10, 3) == 0 && c.known && fabs(c.offset_us - 0.91) < 1e-9);
	CHECK(fabs(clockcal_offset(&c, CAL_SPIN) - 0.92) < 1e-9 && clockcal_disagrees(&c));
	char *t = clockcal_text(&c);
	CHECK(strstr(t, "+0.92 us for a 4 us spin (6.85 against 5.93 us)") && strstr(t, "+0.91 us for a copy") &&
	      strstr(t, "include about +0.91 us, not subtracted"));
	free(t);
	/* a 9.21 us result: its share; 50 us and over: nothing */
	char *r = clockcal_result(&c, 0.00921);
	CHECK(r && strcmp(r, "+0.91 us of 9.21 us (+10%)") == 0);
	free(r);
	CHECK(clockcal_result(&c, 0.050) == NULL && clockcal_result(&c, 0.3) == NULL);
	/* the spin disagrees, the copy agrees within 1% of 4 us (40 ns): not flagged */
	CHECK(set2(&c, 6.85, 6.37, 4.22, 4.19, 3) == 0 && !clockcal_disagrees(&c));
	t = clockcal_text(&c);
	CHECK(strstr(t, "+0.48 us for a 4 us spin") && strstr(t, "results are not flagged"));
	free(t);
	CHECK(clockcal_result(&c, 0.004) == NULL);
	/* opposite directions: nothing both showed */
	CHECK(set2(&c, 6.85, 6.37, 4.0, 4.5, 3) == 0 && c.offset_us == 0 && !clockcal_disagrees(&c));
	/* shorter counts too */
	CHECK(set2(&c, 6.0, 6.37, 4.0, 4.5, 3) == 0 && fabs(c.offset_us + 0.37) < 1e-9 && clockcal_disagrees(&c));
	/* not times: unknown */
	CHECK(set2(&c, 0, 4.09, 5, 4, 3) != 0 && !c.known && !clockcal_disagrees(&c));
	CHECK(set2(&c, 5, NAN, 5, 4, 3) != 0 && !c.known);
	CHECK(set2(&c, 5, 4, 5, 4, 0) != 0 && !c.known);
}

TEST(cache_text)
{
	clock_cal c, d;
	CHECK(set2(&c, 9.2125, 8.291, 5.5, 4.75, 3) == 0);
	char *t = clockcal_format(&c);
	CHECK(clockcal_parse(t, &d) == 0 && d.known && d.kernel_us[1] == c.kernel_us[1] && d.ref_us[0] == c.ref_us[0] &&
	      d.nref == 3 && d.offset_us == c.offset_us);
	/* damaged: cut short, another version, trailing text, out of range */
	size_t n = strlen(t);
	for (size_t cut = 0; cut + 1 < n; cut += 5) {
		char *s = xstrndup(t, cut);
		CHECK(clockcal_parse(s, &d) != 0 && !d.known);
		free(s);
	}
	free(t);
	CHECK(clockcal_parse("cuplay clock 1\nkernel_us 5\nref_us 4\nnref 5\n", &d) != 0);
	CHECK(clockcal_parse("cuplay clock 2\nspin_us 5 4\ncopy_us 5 4\nnref 3\nextra 1\n", &d) != 0);
	CHECK(clockcal_parse("cuplay clock 2\nspin_us -5 4\ncopy_us 5 4\nnref 3\n", &d) != 0);
	CHECK(clockcal_parse("cuplay clock 2\nspin_us nan 4\ncopy_us 5 4\nnref 3\n", &d) != 0);
	CHECK(clockcal_parse("cuplay clock 2\nspin_us 5 4\ncopy_us 5.5 4\nnref 3\n", &d) == 0 && d.offset_us == 1);
	CHECK(clockcal_parse(NULL, &d) != 0);
}

static void fake_device(app *a, const char *dir, const char *name)
{
	memset(a, 0, sizeof *a);
	a->cache.dir = (char *)dir;
	snprintf(a->worker.dev.name, sizeof a->worker.dev.name, "%s", name);
	snprintf(a->worker.dev.pci_bus_id, sizeof a->worker.dev.pci_bus_id, "0000:19:00.0");
	a->worker.dev.total_mem = (uint64_t)80 << 30;
	a->worker.dev.cc_major = 9;
	a->worker.dev.sm_count = 132;
	a->worker.dev.driver_version = 13000;
}

/* Kept beside the roofs, keyed the same way: by the device, the driver and
 * the kernels' source; a damaged entry is no entry (measured again). */
TEST(cache_entry)
{
	char dir[] = "/tmp/cuplay-clockcal-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	app a;
	fake_device(&a, dir, "NVIDIA H200");
	const char *src[] = { "kernel source" }, *src2[] = { "kernel source 2" };
	char *p1 = builtin_cache_path(&a, &a.worker.dev, "clock", src, 1);
	char *p2 = builtin_cache_path(&a, &a.worker.dev, "clock", src2, 1);
	char *p3 = builtin_cache_path(&a, &a.worker.dev, "roof", src, 1);
	CHECK(p1 && p2 && p3 && strncmp(p1, dir, strlen(dir)) == 0 && strstr(p1, "/clock-"));
	CHECK(strcmp(p1, p2) != 0 && strcmp(p1, p3) != 0);
	a.worker.dev.driver_version = 13010;
	char *p4 = builtin_cache_path(&a, &a.worker.dev, "clock", src, 1);
	CHECK(strcmp(p1, p4) != 0);
	a.worker.dev.driver_version = 13000;
	char *p5 = builtin_cache_path(&a, &a.worker.dev, "clock", src, 1);
	CHECK(strcmp(p1, p5) == 0);
	free(p1), free(p2), free(p3), free(p4), free(p5);

	/* nothing kept yet: not known, and `device` says not checked yet */
	CHECK(clock_check_cached(&a) == 0 && a.clk_device == 0);
	char *t = clock_check_text(&a);
	CHECK(strstr(t, "not checked yet") != NULL);
	free(t);
	/* a kept entry: read, for this device */
	clock_cal c;
	CHECK(set2(&c, 6.01, 5.09, 5.01, 4.09, 3) == 0);
	char *path = clock_check_path(&a);
	char *entry = clockcal_format(&c);
	CHECK(path && write_file_atomic(path, entry, strlen(entry)) == 0);
	CHECK(clock_check_cached(&a) == 1 && a.clk_device == 1 && a.clk.offset_us == c.offset_us);
	t = clock_check_text(&a);
	CHECK(strstr(t, "+0.92 us") != NULL);
	free(t);
	/* another device (the name is in the key): not this entry */
	fake_device(&a, dir, "NVIDIA H100 80GB HBM3");
	CHECK(clock_check_cached(&a) == 0);
	/* damaged: no entry, so measured again */
	fake_device(&a, dir, "NVIDIA H200");
	CHECK(write_file_atomic(path, entry, strlen(entry) / 2) == 0);
	CHECK(clock_check_cached(&a) == 0 && !a.clk.known && a.clk_device == 0);
	const char *bad = "cuplay clock 2\nspin_us 5 4\ncopy_us 5 4\nnref x\n";
	CHECK(write_file_atomic(path, bad, strlen(bad)) == 0);
	CHECK(clock_check_cached(&a) == 0);
	unlink(path);
	free(path);
	free(entry);
	free(a.clk_why);
	rmdir(dir);
}

TEST(result_note_and_field)
{
	app a;
	fake_device(&a, "/nonexistent", "NVIDIA H200");
	CHECK(set2(&a.clk, 6.01, 5.09, 5.01, 4.09, 3) == 0);
	a.clk_device = 1;
	measurement m;
	memset(&m, 0, sizeof m);
	m.kernel = xstrdup("vadd_float4");
	m.values = xstrdup("N=2097152");
	m.file = xstrdup("v.cu");
	m.launched = 1;
	double x[40];
	for (int i = 0; i < 40; i++)
		x[i] = 0.00921;
	measure_set_samples(&m, x, 40);
	m.clock = CLOCK_KERNEL;
	sbuf note = { 0 };
	app_clock_add(&a, &m, &note);
	CHECK(note.s && strcmp(note.s, "vadd_float4 +0.92 us of 9.21 us (+10%)") == 0);
	app_clock_add(&a, &m, &note);
	CHECK(strstr(note.s, "(+10%), vadd_float4") != NULL);
	sb_free(&note);
	/* events, 50 us and over, another device, a clock that agrees: nothing */
	m.clock = CLOCK_EVENTS;
	app_clock_add(&a, &m, &note);
	m.clock = CLOCK_KERNEL;
	a.device = 1;
	app_clock_add(&a, &m, &note);
	a.device = 0;
	CHECK(set2(&a.clk, 6.01, 5.09, 4.1, 4.09, 3) == 0);
	app_clock_add(&a, &m, &note);
	CHECK(note.len == 0);
	sb_free(&note);

	/* the data field: in csv and json, not in the table for people */
	m.clock_offset_known = 1;
	m.clock_offset_us = 0.92;
	for (int f = 0; f < 3; f++) {
		table t;
		measure_table_init(&t, 0, 0, NULL, NULL);
		measure_row(&t, table_row(&t), 0, &m, 0);
		char *buf = NULL;
		size_t len = 0;
		FILE *s = open_memstream(&buf, &len);
		out_format fm = f == 0 ? FMT_CSV : f == 1 ? FMT_JSON : FMT_TABLE;
		table_print(&t, s, fm, 0, 0);
		fclose(s);
		table_free(&t);
		if (fm == FMT_CSV)
			CHECK(strstr(buf, ",clock_offset_us,file\n") && strstr(buf, ",0.92,"));
		else if (fm == FMT_JSON)
			CHECK(strstr(buf, "\"clock_offset_us\": 0.92") || strstr(buf, "\"clock_offset_us\":0.92"));
		else
			CHECK(strstr(buf, "clock_offset") == NULL);
		free(buf);
	}
	measure_free(&m);
}

int main(void)
{
	RUN(record_and_words);
	RUN(cache_text);
	RUN(cache_entry);
	RUN(result_note_and_field);
	return test_report("clockcal");
}
