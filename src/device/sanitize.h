/* sanitize.h: running a kernel under NVIDIA's compute-sanitizer (memcheck,
 * racecheck, initcheck, synccheck) and reading its report back as a few
 * lines a student can act on: what went wrong, where (function+offset and
 * file:line with -lineinfo), for how many threads, and the first thread.
 *
 * The sanitizer wraps a whole process, so the front end runs a one-shot
 * worker under it: san_argv() builds the argv (sanitizer options, then the
 * worker's own argv), its text report goes to a log file, san_parse()
 * reads that file. Pure apart from san_find (a file lookup). */
#ifndef CUPLAY_SANITIZE_H
#define CUPLAY_SANITIZE_H

typedef enum san_tool {
	SAN_MEMCHECK = 0,  /* out-of-bounds and misaligned accesses, bad frees */
	SAN_RACECHECK,     /* shared memory data races */
	SAN_INITCHECK,     /* reads of global memory nothing wrote */
	SAN_SYNCCHECK      /* __syncthreads in divergent code, bad __syncwarp masks */
} san_tool;

/* "memcheck", ... by name; -1 with *err: "unknown sanitizer tool 'memchek'
 * (did you mean 'memcheck'?)". */
int san_tool_parse(const char *name, san_tool *tool, char **err);
const char *san_tool_name(san_tool tool);

/* compute-sanitizer in $CUDA_HOME/bin, $CUDA_HOME/compute-sanitizer, the
 * built-in toolkit's, then PATH. 0 with *path (caller frees), or -1 with
 * *why: "no compute-sanitizer in /usr/local/cuda/bin or PATH (it comes
 * with the CUDA toolkit; set CUDA_HOME)". */
int san_find(char **path, char **why);

/* The argv (NULL-terminated; caller frees the array and the strings it
 * made: free with san_argv_free) that runs target[] under the sanitizer:
 *   SANITIZER --tool T --log-file LOG --print-limit 20 --show-backtrace device
 *             [--kernel-name kne=LOWERED] TARGET...
 * kernel (may be NULL): check only the kernel of this lowered name, not
 * the reference kernels or other variants the worker launches. */
char **san_argv(const char *sanitizer, san_tool tool, const char *log_file, const char *kernel,
                const char *const *target);
void san_argv_free(char **argv);

#define SAN_MAX_ISSUES 16

typedef struct san_issue {
	char what[200];     /* "Invalid __global__ write of size 4 bytes" */
	char where[300];    /* "transpose_naive(const float *, float *, int)+0x1b0 in transpose.cu:23" */
	char detail[300];   /* "Address 0x7f.. is out of bounds and is 4 bytes after the nearest ..." */
	char thread[80];    /* the first report's "thread (31,0,0) in block (0,0,0)" */
	int count;          /* reports folded into this one (threads, usually) */
	long hazards;       /* racecheck: the "[508 hazards]" of the report, summed */
} san_issue;

typedef struct san_report {
	int nissues;                  /* distinct problems kept (what + where) */
	san_issue issues[SAN_MAX_ISSUES];
	int reports;                  /* reports read, kept or not */
	long errors;                  /* from "ERROR SUMMARY: N errors"; -1 when absent */
	char summary[300];            /* the SUMMARY lines, joined by "; " */
} san_report;

/* Reads the sanitizer's text output. 0, or -1 when text holds no sanitizer
 * line at all (the tool did not run). */
int san_parse(const char *text, san_report *r);

/* What to print: a first line, then two lines an issue:
 *   memcheck: 1 problem (ERROR SUMMARY: 32 errors)
 *     Invalid __global__ write of size 4 bytes at k(float *)+0x70 in k.cu:5
 *       32 reports, first thread (31,0,0) in block (0,0,0); Address 0x.. is out of bounds
 * "memcheck: no problems found (ERROR SUMMARY: 0 errors)" when clean.
 * Caller frees. */
char *san_format(const san_report *r, san_tool tool);

#endif
