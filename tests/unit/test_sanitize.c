/* test_sanitize.c: compute-sanitizer's argv and reports. The reports are
 * the examples of compute-sanitizer 2026.4's own manual (memcheck,
 * racecheck, initcheck, synccheck, API errors), plus a folded one. */
#include "test.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sanitize.h"
#include "util.h"

static const char memcheck_log[] =
	"========= COMPUTE-SANITIZER\n"
	"Mallocing memory\n"
	"========= Invalid __global__ write of size 4 bytes\n"
	"=========     at unaligned_kernel()+0x100 in memcheck_demo.cu:34\n"
	"=========     by thread (0,0,0) in block (0,0,0)\n"
	"=========     Address 0x7cc43aa00001 is misaligned\n"
	"=========     and is inside the nearest allocation at 0x7cc43aa00000 of size 4 bytes\n"
	"=========     Saved host backtrace up to driver entry point at kernel launch time\n"
	"=========         Host Frame: run_unaligned() [0xacd4] in memcheck_demo\n"
	"=========         Host Frame: main [0xae61] in memcheck_demo\n"
	"=========\n"
	"Running unaligned_kernel: no error\n"
	"========= Invalid __global__ write of size 4 bytes\n"
	"=========     at out_of_bounds_function()+0xb0 in memcheck_demo.cu:39\n"
	"=========     by thread (0,0,0) in block (0,0,0)\n"
	"=========     Address 0x87654320 is out of bounds\n"
	"=========     and is 137,179,965,340,896 bytes before the nearest allocation at 0x7cc43a800000 of size 1,024 bytes\n"
	"=========         Device Frame: out_of_bounds_kernel()+0x30 in memcheck_demo.cu:44\n"
	"=========     Saved host backtrace up to driver entry point at kernel launch time\n"
	"=========         Host Frame: run_out_of_bounds() [0xadb6] in memcheck_demo\n"
	"=========         Host Frame: main [0xae66] in memcheck_demo\n"
	"=========\n"
	"Running out_of_bounds_kernel: no error\n"
	"========= ERROR SUMMARY: 2 errors\n";

/* one bad line, 32 threads (shortened to 3), as a kernel without a bounds check makes */
static const char folded_log[] =
	"========= COMPUTE-SANITIZER\n"
	"========= Invalid __global__ read of size 4 bytes\n"
	"=========     at copy+0x90 in copy.cu:5\n"
	"=========     by thread (31,0,0) in block (4,0,0)\n"
	"=========     Address 0x7f0000001000 is out of bounds\n"
	"=========     and is 1 bytes after the nearest allocation at 0x7f0000000000 of size 4,096 bytes\n"
	"=========\n"
	"========= Invalid __global__ read of size 4 bytes\n"
	"=========     at copy+0x90 in copy.cu:5\n"
	"=========     by thread (30,0,0) in block (4,0,0)\n"
	"=========     Address 0x7f0000000ffc is out of bounds\n"
	"=========\n"
	"========= Invalid __global__ read of size 4 bytes\n"
	"=========     at copy+0x90 in copy.cu:5\n"
	"=========     by thread (29,0,0) in block (4,0,0)\n"
	"=========     Address 0x7f0000000ff8 is out of bounds\n"
	"=========\n"
	"========= Program hit CUDA_ERROR_LAUNCH_FAILED (error 719) due to \"unspecified launch failure\" on CUDA API call to cuCtxSynchronize.\n"
	"=========\n"
	"========= ERROR SUMMARY: 64 errors\n"
	"========= ERROR SUMMARY: 61 errors were not printed. Use --print-limit option to adjust the number of printed errors\n";

static const char racecheck_log[] =
	"========= COMPUTE-SANITIZER\n"
	"========= Error: Race reported between Write access at sumKernel(int *, int *)+0x90 in block_error.cu:41\n"
	"=========     and Read access at sumKernel(int *, int *)+0x100 in block_error.cu:51 [508 hazards]\n"
	"=========\n"
	"========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)\n";

static const char initcheck_log[] =
	"========= COMPUTE-SANITIZER\n"
	"========= Uninitialized __global__ memory read of size 4 bytes\n"
	"=========     at vectorAdd(int *)+0x70 in memset_error.cu:41\n"
	"=========     by thread (31,0,0) in block (1,0,0)\n"
	"=========     Address 0x7f3c7ec000fc\n"
	"=========\n"
	"=========  Unused __global__ memory in allocation 0x7fed9f400000 of size 100 bytes\n"
	"=========     Not written 80 bytes at offset 0x14 (0x7fed9f400014)\n"
	"=========     80% of allocation were unused.\n"
	"=========\n"
	"========= ERROR SUMMARY: 1 error\n";

static const char synccheck_log[] =
	"========= COMPUTE-SANITIZER\n"
	"========= Barrier called by threads starting at (32,0,0) in block (1,0,0), (active mask: 0xffffffff) at kernel()+0x2b0 in app.cu:36\n"
	"=========\n"
	" ========= Barrier error detected. Divergent thread(s) in block.\n"
	" =========     at [clone myKernel(int *, int *)] outlineSync()+0x11f0 in test.cu:42\n"
	" =========     by thread (32,0,0) in block (0,0,0)\n"
	" =========         Device Frame: myKernel(int *, int *)+0xe40 in test.cu:60\n"
	" =========\n"
	"========= ERROR SUMMARY: 2 errors\n";

/* what compute-sanitizer 2026.4 wrote here for a program that never used CUDA */
static const char no_cuda_log[] =
	"========= COMPUTE-SANITIZER\n"
	"========= Error: process didn't terminate successfully\n"
	"=========     The application may have hit an error when dereferencing Unified Memory from the host. "
	"Please rerun the application under cuda-gdb or a host debugger to catch host side errors.\n"
	"========= Error: Target application terminated before first instrumented API call\n";

static const char clean_log[] =
	"========= COMPUTE-SANITIZER\n"
	"========= ERROR SUMMARY: 0 errors\n";

TEST(tools)
{
	san_tool t = SAN_SYNCCHECK;
	char *err = NULL;
	CHECK(san_tool_parse("memcheck", &t, &err) == 0 && t == SAN_MEMCHECK);
	CHECK(san_tool_parse("racecheck", &t, &err) == 0 && t == SAN_RACECHECK);
	CHECK(san_tool_parse("initcheck", &t, &err) == 0 && t == SAN_INITCHECK);
	CHECK(san_tool_parse("synccheck", &t, &err) == 0 && t == SAN_SYNCCHECK);
	CHECK_STREQ(san_tool_name(SAN_RACECHECK), "racecheck");
	CHECK(san_tool_parse("memchek", &t, &err) == -1);
	CHECK_STREQ(err, "unknown sanitizer tool 'memchek' (did you mean 'memcheck'?)");
	free(err);
	err = NULL;
	CHECK(san_tool_parse("valgrind", &t, &err) == -1);
	CHECK_STREQ(err, "unknown sanitizer tool 'valgrind' (memcheck, racecheck, initcheck or synccheck)");
	free(err);
}

TEST(argv)
{
	const char *target[] = { "/usr/bin/cuplay", "--worker", "5", "6", "0", NULL };
	char **v = san_argv("/cuda/bin/compute-sanitizer", SAN_RACECHECK, "/tmp/run%1.log", "_Z5tiledPKfPfi", target);
	const char *want[] = { "/cuda/bin/compute-sanitizer", "--tool", "racecheck", "--log-file", "/tmp/run%%1.log",
	                       "--print-limit", "20", "--show-backtrace", "device", "--kernel-name",
	                       "kne=_Z5tiledPKfPfi", "/usr/bin/cuplay", "--worker", "5", "6", "0" };
	int n = 0;
	while (v[n])
		n++;
	CHECK(n == (int)(sizeof want / sizeof want[0]));
	for (int i = 0; i < n && i < (int)(sizeof want / sizeof want[0]); i++)
		CHECK_STREQ(v[i], want[i]);
	san_argv_free(v);

	v = san_argv("cs", SAN_MEMCHECK, NULL, NULL, target);
	CHECK_STREQ(v[1], "--tool");
	CHECK_STREQ(v[2], "memcheck");
	CHECK_STREQ(v[3], "--print-limit");
	CHECK_STREQ(v[7], "/usr/bin/cuplay");
	CHECK(v[12] == NULL);
	san_argv_free(v);
}

TEST(memcheck)
{
	san_report r;
	CHECK(san_parse(memcheck_log, &r) == 0);
	CHECK(r.reports == 2 && r.nissues == 2 && r.errors == 2);
	CHECK_STREQ(r.summary, "ERROR SUMMARY: 2 errors");
	CHECK_STREQ(r.issues[0].what, "Invalid __global__ write of size 4 bytes");
	CHECK_STREQ(r.issues[0].where, "unaligned_kernel()+0x100 in memcheck_demo.cu:34");
	CHECK_STREQ(r.issues[0].thread, "thread (0,0,0) in block (0,0,0)");
	CHECK_STREQ(r.issues[0].detail, "Address 0x7cc43aa00001 is misaligned and is inside the nearest allocation "
	                                "at 0x7cc43aa00000 of size 4 bytes");
	CHECK_STREQ(r.issues[1].where, "out_of_bounds_function()+0xb0 in memcheck_demo.cu:39");
	char *s = san_format(&r, SAN_MEMCHECK);
	CHECK_STREQ(s, "memcheck: 2 problems (ERROR SUMMARY: 2 errors)\n"
	               "  Invalid __global__ write of size 4 bytes at unaligned_kernel()+0x100 in memcheck_demo.cu:34\n"
	               "    thread (0,0,0) in block (0,0,0); Address 0x7cc43aa00001 is misaligned and is inside "
	               "the nearest allocation at 0x7cc43aa00000 of size 4 bytes\n"
	               "  Invalid __global__ write of size 4 bytes at out_of_bounds_function()+0xb0 in memcheck_demo.cu:39\n"
	               "    thread (0,0,0) in block (0,0,0); Address 0x87654320 is out of bounds and is "
	               "137,179,965,340,896 bytes before the nearest allocation at 0x7cc43a800000 of size 1,024 bytes\n");
	free(s);
}

TEST(folded)
{
	san_report r;
	CHECK(san_parse(folded_log, &r) == 0);
	CHECK(r.reports == 4 && r.nissues == 2 && r.errors == 64);
	CHECK(r.issues[0].count == 3);
	CHECK_STREQ(r.issues[0].thread, "thread (31,0,0) in block (4,0,0)");
	CHECK(strncmp(r.issues[1].what, "Program hit CUDA_ERROR_LAUNCH_FAILED (error 719)", 48) == 0);
	char *s = san_format(&r, SAN_MEMCHECK);
	CHECK_STREQ(s,
	            "memcheck: 2 problems (ERROR SUMMARY: 64 errors; ERROR SUMMARY: 61 errors were not printed. "
	            "Use --print-limit option to adjust the number of printed errors)\n"
	            "  Invalid __global__ read of size 4 bytes at copy+0x90 in copy.cu:5\n"
	            "    3 reports, first thread (31,0,0) in block (4,0,0); Address 0x7f0000001000 is out of bounds "
	            "and is 1 bytes after the nearest allocation at 0x7f0000000000 of size 4,096 bytes\n"
	            "  Program hit CUDA_ERROR_LAUNCH_FAILED (error 719) due to \"unspecified launch failure\" "
	            "on CUDA API call to cuCtxSynchronize.\n");
	free(s);
}

TEST(racecheck)
{
	san_report r;
	CHECK(san_parse(racecheck_log, &r) == 0);
	CHECK(r.nissues == 1 && r.errors == -1);
	CHECK_STREQ(r.issues[0].what, "Error: Race reported between Write access");
	CHECK_STREQ(r.issues[0].where, "sumKernel(int *, int *)+0x90 in block_error.cu:41");
	CHECK_STREQ(r.issues[0].detail, "and Read access at sumKernel(int *, int *)+0x100 in block_error.cu:51");
	CHECK(r.issues[0].hazards == 508);
	char *s = san_format(&r, SAN_RACECHECK);
	CHECK_STREQ(s,
	            "racecheck: 1 problem (RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings))\n"
	            "  Error: Race reported between Write access at sumKernel(int *, int *)+0x90 in block_error.cu:41\n"
	            "    508 hazards; and Read access at sumKernel(int *, int *)+0x100 in block_error.cu:51\n");
	free(s);
}

TEST(initcheck_synccheck)
{
	san_report r;
	CHECK(san_parse(initcheck_log, &r) == 0);
	CHECK(r.nissues == 2 && r.errors == 1);
	CHECK_STREQ(r.issues[0].what, "Uninitialized __global__ memory read of size 4 bytes");
	CHECK_STREQ(r.issues[0].detail, "Address 0x7f3c7ec000fc");
	CHECK_STREQ(r.issues[1].what, "Unused __global__ memory in allocation 0x7fed9f400000 of size 100 bytes");
	CHECK_STREQ(r.issues[1].detail, "Not written 80 bytes at offset 0x14 (0x7fed9f400014) 80% of allocation were unused.");

	CHECK(san_parse(synccheck_log, &r) == 0);
	CHECK(r.nissues == 2 && r.errors == 2);
	CHECK_STREQ(r.issues[0].what, "Barrier called by threads starting at (32,0,0) in block (1,0,0), (active mask: 0xffffffff)");
	CHECK_STREQ(r.issues[0].where, "kernel()+0x2b0 in app.cu:36");
	CHECK_STREQ(r.issues[1].what, "Barrier error detected. Divergent thread(s) in block.");
	CHECK_STREQ(r.issues[1].where, "[clone myKernel(int *, int *)] outlineSync()+0x11f0 in test.cu:42");
	CHECK_STREQ(r.issues[1].thread, "thread (32,0,0) in block (0,0,0)");
}

TEST(clean_and_absent)
{
	san_report r;
	CHECK(san_parse(clean_log, &r) == 0);
	CHECK(r.nissues == 0 && r.errors == 0);
	char *s = san_format(&r, SAN_INITCHECK);
	CHECK_STREQ(s, "initcheck: no problems found (ERROR SUMMARY: 0 errors)\n");
	free(s);
	CHECK(san_parse(no_cuda_log, &r) == 0);
	CHECK(r.nissues == 2 && r.errors == -1 && r.summary[0] == 0);
	CHECK_STREQ(r.issues[0].what, "Error: process didn't terminate successfully");
	CHECK_STREQ(r.issues[1].what, "Error: Target application terminated before first instrumented API call");
	CHECK(san_parse("plain program output\n", &r) == -1);
	CHECK(san_parse("", &r) == -1);
	CHECK(san_parse(NULL, &r) == -1);

	/* more distinct problems than kept: the rest still count as reports */
	sbuf b = {0};
	for (int i = 0; i < SAN_MAX_ISSUES + 5; i++)
		sb_printf(&b, "========= Invalid __global__ write of size 4 bytes\n=========     at k+0x%x in k.cu:%d\n=========\n",
		          i * 16, i + 1);
	CHECK(san_parse(b.s, &r) == 0);
	CHECK(r.nissues == SAN_MAX_ISSUES && r.reports == SAN_MAX_ISSUES + 5);
	sb_free(&b);
}

TEST(find)
{
	char *path = NULL, *why = NULL;
	char *saved = getenv("CUDA_HOME") ? xstrdup(getenv("CUDA_HOME")) : NULL;
	char *saved_path = getenv("PATH") ? xstrdup(getenv("PATH")) : NULL;
	char dir[] = "/tmp/cuplay-san-XXXXXX";
	if (!mkdtemp(dir)) {
		CHECK(0);
		return;
	}
	/* older toolkits: $CUDA_HOME/compute-sanitizer/compute-sanitizer */
	char *sub = xasprintf("%s/compute-sanitizer", dir);
	mkdir(sub, 0755);
	char *tool = xasprintf("%s/compute-sanitizer", sub);
	FILE *f = fopen(tool, "w");
	if (f) {
		fputs("#!/bin/sh\nexit 0\n", f);
		fclose(f);
	}
	chmod(tool, 0755);
	setenv("CUDA_HOME", dir, 1);
	setenv("PATH", "/nonexistent", 1);
	char *dflt = xasprintf("%s/bin/compute-sanitizer", CUDA_HOME_DEFAULT);
	int have_default = access(dflt, X_OK) == 0;
	CHECK(san_find(&path, &why) == 0);
	CHECK(path && strcmp(path, tool) == 0);
	free(path);
	path = NULL;
	unlink(tool);
	if (!have_default) {
		CHECK(san_find(&path, &why) == -1 && path == NULL);
		CHECK(why && strncmp(why, "no compute-sanitizer in ", 24) == 0);
		free(why);
	}
	rmdir(sub);
	rmdir(dir);
	if (saved)
		setenv("CUDA_HOME", saved, 1);
	else
		unsetenv("CUDA_HOME");
	if (saved_path)
		setenv("PATH", saved_path, 1);
	free(saved);
	free(saved_path);
	free(sub);
	free(tool);
	free(dflt);
}

int main(void)
{
	RUN(tools);
	RUN(argv);
	RUN(memcheck);
	RUN(folded);
	RUN(racecheck);
	RUN(initcheck_synccheck);
	RUN(clean_and_absent);
	RUN(find);
	return test_report("sanitize");
}
