/* test_ccserver.c: the compile server. Its encodings round trip and
 * refuse what is cut short; compiles through it give what NVRTC gives here
 * (the cubin, names, resources, errors); a compile that would take minutes
 * is abandoned at once on the interrupt flag and at the time limit, and the
 * next compile works.
 *
 * This program is its own compile server: `test_ccserver --compile-server
 * FD` runs ccs_main, and ccs_init(NULL, ...) execs /proc/self/exe. */
#include "test.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "ccserver.h"
#include "util.h"

static const char *const names[] = { "copy", "twice" };
static const char *const where[] = { "k.cu:2:17", NULL };
static const char *const opts[] = { "-arch=sm_90", "-DN=4" };
static const char *const hn[] = { "h.cuh" };
static const char *const ht[] = { "#define TWICE(x) (2 * (x))\n" };
static const char src[] =
	"#include \"h.cuh\"\n"
	"extern \"C\" __global__ void copy(float *y, const float *x) { y[threadIdx.x] = x[threadIdx.x]; }\n"
	"__global__ void twice(float *y) { y[threadIdx.x] = TWICE(y[threadIdx.x]) + N; }\n";

static nvrtc_job job(const char *text)
{
	nvrtc_job j = {
		.name = "k.cu", .path = "kernels_src/k.cu", .src = text,
		.nheaders = 1, .header_names = hn, .header_texts = ht,
		.opts = opts, .nopts = 2, .exprs = names, .where = where, .nexprs = 2,
		.pch = 1, .pch_dir = NULL,
	};
	return j;
}

TEST(encodings)
{
	nvrtc_job j = job(src);
	size_t n = 0;
	char *p = ccs_encode_job(&j, &n);
	ccs_job *b = NULL;
	CHECK(ccs_decode_job(p, n, &b) == 0 && b);
	if (b) {
		const nvrtc_job *d = ccs_job_get(b);
		CHECK_STREQ(d->name, "k.cu");
		CHECK_STREQ(d->path, "kernels_src/k.cu");
		CHECK_STREQ(d->src, src);
		CHECK(d->nheaders == 1 && d->nopts == 2 && d->nexprs == 2 && d->pch == 1 && d->pch_dir == NULL);
		CHECK_STREQ(d->header_names[0], "h.cuh");
		CHECK_STREQ(d->header_texts[0], ht[0]);
		CHECK_STREQ(d->opts[1], "-DN=4");
		CHECK_STREQ(d->exprs[1], "twice");
		CHECK_STREQ(d->where[0], "k.cu:2:17");
		CHECK(d->where[1] == NULL);
	}
	ccs_job_free(b);
	/* every cut is refused, never read past */
	int refused = 0;
	for (size_t cut = 0; cut < n; cut++) {
		char *q = xmalloc(cut + 1);
		memcpy(q, p, cut);
		b = NULL;
		refused += ccs_decode_job(q, cut, &b) == -1 && b == NULL;
		free(q);
	}
	CHECK(refused == (int)n);
	free(p);

	kres r[2] = { { 1, 8, 0, 0, 0, 0, 368 }, { 1, 10, 16, 0, 0, 0, 372 } };
	char *lowered[2] = { "copy", "_Z5twicePf" };
	nvrtc_out o = { .cubin = "\x7f" "ELF", .cubin_len = 4, .ptx = "ptx", .log = "log", .nk = 2,
	                .lowered = lowered, .res = r, .pch = PCH_USED };
	p = ccs_encode_answer(0, NULL, &o, &n);
	nvrtc_out got;
	char *err = NULL;
	CHECK(ccs_decode_answer(p, n, &got, &err) == 0);
	CHECK(got.cubin_len == 4 && memcmp(got.cubin, "\x7f" "ELF", 4) == 0);
	CHECK(got.nk == 2 && got.pch == PCH_USED);
	CHECK_STREQ(got.lowered[1], "_Z5twicePf");
	CHECK(got.res[1].smem == 16 && got.res[0].cmem == 368);
	CHECK_STREQ(got.log, "log");
	nvrtc_out_free(&got);
	for (size_t cut = 0; cut < n; cut++) {
		err = NULL;
		CHECK(ccs_decode_answer(p, cut, &got, &err) == -1);
		free(err);
	}
	free(p);
	/* an answer of failure carries the compile's message */
	nvrtc_out none;
	memset(&none, 0, sizeof none);
	p = ccs_encode_answer(-1, "k.cu:3: error: expected a \";\"", &none, &n);
	err = NULL;
	CHECK(ccs_decode_answer(p, n, &got, &err) == -1);
	CHECK_STREQ(err, "k.cu:3: error: expected a \";\"");
	free(err);
	free(p);
}

static volatile sig_atomic_t g_stop;
static void on_alarm(int sig)
{
	(void)sig;
	g_stop = 1;
}

/* A source whose macros double 21 times: minutes of NVRTC. */
static char *slow_source(void)
{
	sbuf b = {0};
	sb_puts(&b, "#define S0 1 +\n");
	for (int i = 1; i <= 21; i++)
		sb_printf(&b, "#define S%d S%d S%d\n", i, i - 1, i - 1);
	sb_puts(&b, "__global__ void copy(float *y, const float *x) { y[0] = S21 0; }\n"
	            "__global__ void twice(float *y) { y[0] = 2; }\n");
	return sb_steal(&b);
}

TEST(server)
{
	char *err = NULL;
	if (nvrtc_load(&err) != 0) {
		printf("  skipped: compiles (%s)\n", err);
		free(err);
		return;
	}
	ccs_init(NULL, &g_stop);
	CHECK(ccs_enabled());
	nvrtc_job j = job(src);
	nvrtc_out o;
	CHECK(ccs_run(&j, &o, &err) == 0);
	CHECK(o.cubin && o.cubin_len > 100 && memcmp(o.cubin, "\x7f" "ELF", 4) == 0);
	CHECK(o.nk == 2);
	if (o.nk == 2) {
		CHECK_STREQ(o.lowered[0], "copy");
		CHECK(o.lowered[1] && strstr(o.lowered[1], "twice"));
		CHECK(o.res[0].known && o.res[0].regs > 0);
	}
	nvrtc_out_free(&o);

	/* a compile error: NVRTC's words, as in this process */
	nvrtc_job bad = job("__global__ void copy(float *y) { y[0] = ; }\n__global__ void twice(float *y) {}\n");
	char *err_here = NULL, *err_there = NULL;
	nvrtc_out o2;
	CHECK(nvrtc_run(&bad, &o2, &err_here) == -1);
	CHECK(ccs_run(&bad, &o2, &err_there) == -1);
	CHECK(err_here && err_there && strcmp(err_here, err_there) == 0);
	CHECK(err_there && strstr(err_there, "k.cu:1:") != NULL);
	free(err_here);
	free(err_there);

	/* minutes of work: the interrupt flag (an alarm 300 ms in) */
	char *slow = slow_source();
	nvrtc_job sj = job(slow);
	sj.nexprs = 0;
	g_stop = 0;
	signal(SIGALRM, on_alarm);
	struct itimerval it = { { 0, 0 }, { 0, 300000 } };
	setitimer(ITIMER_REAL, &it, NULL);
	uint64_t t0 = now_ns();
	err = NULL;
	CHECK(ccs_run(&sj, &o, &err) == -1);
	double s = (double)(now_ns() - t0) / 1e9;
	CHECK(s < 1.5);
	CHECK_STREQ(err, "compile of 'kernels_src/k.cu' interrupted: the compiler was stopped (settings kept)");
	free(err);
	g_stop = 0;
	signal(SIGALRM, SIG_DFL);

	/* the time limit */
	ccs_set_limit(0.5);
	t0 = now_ns();
	err = NULL;
	CHECK(ccs_run(&sj, &o, &err) == -1);
	s = (double)(now_ns() - t0) / 1e9;
	CHECK(s >= 0.45 && s < 2);
	CHECK_STREQ(err, "compile of 'kernels_src/k.cu' took longer than 0.5 s: the compiler was stopped "
	                 "(settings kept; 'timeout compile SECONDS' sets the limit)");
	free(err);
	ccs_set_limit(CCS_LIMIT_DEFAULT);
	free(slow);

	/* and the next compile works, in a new compiler process */
	err = NULL;
	CHECK(ccs_run(&j, &o, &err) == 0);
	CHECK(o.nk == 2 && o.cubin_len > 100);
	nvrtc_out_free(&o);
	free(err);
	ccs_stop();
}

int main(int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "--compile-server") == 0)
		return ccs_main(argc - 2, argv + 2);
	RUN(encodings);
	RUN(server);
	return test_report("ccserver");
}
