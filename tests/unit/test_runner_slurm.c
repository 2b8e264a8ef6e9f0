/* test_runner_slurm.c: the Slurm runner against a stand-in srun (a shell
 * script first in PATH) that records its arguments, then runs the command
 * after its options as a node would, SLURMD_NODENAME set: the job's
 * resources (a GPU only when one is asked for, the time and memory), the
 * source whole on stdin (larger than a pipe holds), the verify line back
 * with the node as its host, and each failure as one line. */
#include "test.h"
#include "runner.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[64], args_file[128], cuplay[128];

static void write_exec(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fputs(text, f);
	fclose(f);
	chmod(path, 0755);
}

/* srun: its options to args_file, then the command after them, on "node7";
 * MODE (an environment variable) makes it fail as Slurm does */
static const char *srun_text =
	"#!/bin/sh\n"
	"printf '%s\\n' \"$@\" >\"$ARGS_FILE\"\n"
	"case \"$MODE\" in\n"
	"fail) echo 'srun: error: Unable to allocate resources: Invalid partition name specified' >&2; exit 1;;\n"
	"limit) cat >/dev/null; echo 'slurmstepd: error: *** STEP 7.0 ON node7 CANCELLED AT 2026-01-01T00:00:00 DUE TO "
	"TIME LIMIT ***' >&2; echo 'srun: error: node7: task 0: Terminated' >&2; exit 143;;\n"
	"esac\n"
	"while [ $# -gt 0 ]; do case \"$1\" in --*) shift;; *) break;; esac; done\n"
	"SLURMD_NODENAME=node7 exec \"$@\"\n";

/* cuplay --verify EXERCISE - --seed N [--compile-only]: the bytes of stdin
 * counted, the arguments echoed in the line */
static const char *cuplay_text =
	"#!/bin/sh\n"
	"n=$(wc -c | tr -d ' ')\n"
	"echo 'a note on stderr' >&2\n"
	"echo 'not the result'\n"
	"if [ \"$MODE\" = host ]; then host=',\"host\":\"gpu3\"'; else host=; fi\n"
	"printf '{\"status\":\"needs_gpu\",\"reason\":\"%s %s %s %s %s %s bytes=%s\"%s}\\n' \"$1\" \"$2\" \"$3\" \"$4\" \"$5\" \"$6\" "
	"\"$n\" \"$host\"\n";

static struct run_req req(const char *src, size_t len, int gpu, int compile_only)
{
	struct run_req r = { cuplay, "sessions/exercises/transpose.exercise", src, len, 42, gpu, compile_only, 10, 2048 };
	return r;
}

static char *args_seen(void)
{
	char *s = NULL;
	size_t n = 0;
	FILE *f = fopen(args_file, "r");
	if (!f)
		return strdup("");
	s = malloc(1 << 16);
	n = fread(s, 1, (1 << 16) - 1, f);
	s[n] = 0;
	fclose(f);
	return s;
}

TEST(compile_only_job)
{
	setenv("MODE", "", 1);
	const char *src = "__global__ void k() {}\n";
	struct run_req r = req(src, strlen(src), -1, 1);
	struct run_out o;
	CHECK(runner_slurm(&r, &o, "--partition=class  --account=cs101") == 0);
	CHECK(o.json != NULL);
	char *want = NULL;
	if (asprintf(&want, "{\"host\":\"node7\",\"status\":\"needs_gpu\",\"reason\":\"--verify "
	             "sessions/exercises/transpose.exercise - --seed 42 --compile-only bytes=%zu\"}", strlen(src)) < 0)
		want = NULL;
	CHECK_STREQ(o.json ? o.json : "", want ? want : "?");
	free(want);
	free(o.json);
	char *a = args_seen();
	CHECK(strstr(a, "--gres") == NULL);
	CHECK(strstr(a, "\n--time=1:10\n") != NULL); /* the exercise's 10 s and a minute to start */
	CHECK(strstr(a, "\n--mem=2048M\n") != NULL);
	CHECK(strstr(a, "\n--partition=class\n--account=cs101\n") != NULL);
	free(a);
}

TEST(gpu_job_and_large_source)
{
	setenv("MODE", "host", 1);
	size_t len = 300000; /* over what a pipe holds: written while the output is read */
	char *src = malloc(len);
	memset(src, 'x', len);
	struct run_req r = req(src, len, 0, 0);
	struct run_out o;
	CHECK(runner_slurm(&r, &o, NULL) == 0);
	CHECK(o.json && strstr(o.json, "bytes=300000\"") != NULL);
	/* the line's own host is kept */
	CHECK(o.json && strstr(o.json, ",\"host\":\"gpu3\"}") && !strstr(o.json, "node7"));
	CHECK(o.json && !strstr(o.json, "--compile-only"));
	free(o.json);
	char *a = args_seen();
	CHECK(strstr(a, "\n--gres=gpu:1\n") != NULL);
	free(a);
	free(src);
}

TEST(failures_are_one_line)
{
	struct run_req r = req("x", 1, 0, 0);
	struct run_out o;
	setenv("MODE", "fail", 1);
	CHECK(runner_slurm(&r, &o, NULL) == -1 && o.json == NULL);
	CHECK_STREQ(o.err, "slurm: the job failed (status 1): srun: error: Unable to allocate resources: "
	                   "Invalid partition name specified");
	setenv("MODE", "limit", 1);
	CHECK(runner_slurm(&r, &o, NULL) == -1 && o.json == NULL);
	CHECK_STREQ(o.err, "slurm: the job was stopped at its time limit");
	setenv("MODE", "", 1);
	char *path = strdup(getenv("PATH"));
	setenv("PATH", "/nonexistent", 1);
	CHECK(runner_slurm(&r, &o, NULL) == -1 && o.json == NULL);
	CHECK_STREQ(o.err, "slurm: no 'srun' in PATH (install Slurm's client or run without --slurm)");
	setenv("PATH", path, 1);
	free(path);
	/* a node where cuplay is not installed */
	r.cuplay = "/nonexistent/cuplay";
	CHECK(runner_slurm(&r, &o, NULL) == -1 && o.json == NULL);
	CHECK(strncmp(o.err, "slurm: the job failed (status 127): ", 36) == 0 && strstr(o.err, "/nonexistent/cuplay"));
}

int main(void)
{
	snprintf(dir, sizeof dir, "/tmp/runner_slurm_XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	char srun[128], *path = NULL;
	snprintf(srun, sizeof srun, "%s/srun", dir);
	snprintf(cuplay, sizeof cuplay, "%s/cuplay", dir);
	snprintf(args_file, sizeof args_file, "%s/args", dir);
	write_exec(srun, srun_text);
	write_exec(cuplay, cuplay_text);
	setenv("ARGS_FILE", args_file, 1);
	if (asprintf(&path, "%s:%s", dir, getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin") > 0)
		setenv("PATH", path, 1);
	free(path);
	RUN(compile_only_job);
	RUN(gpu_job_and_large_source);
	RUN(failures_are_one_line);
	unlink(srun);
	unlink(cuplay);
	unlink(args_file);
	rmdir(dir);
	return test_report("runner_slurm");
}
