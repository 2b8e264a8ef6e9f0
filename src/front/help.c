/* help.c: the text of `help` (help.h). */
#include "help.h"
#include "metrics.h"
#include "plan.h"
#include "ref.h"
#include "types.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SYN_WIDTH 24 /* the synopsis column of the list */

#ifndef CUPLAY_DOCDIR
#define CUPLAY_DOCDIR "/usr/local/share/doc/cuplay"
#endif

void help_format(sbuf *b, const char *text, int width)
{
	const char *p = text;
	while (*p) {
		size_t l = strcspn(p, "\n");
		if (l == 0) {                 /* a blank line */
			sb_putc(b, '\n');
			p++;
			continue;
		}
		if (*p == ' ') {              /* as written */
			sb_add(b, p, l);
			sb_putc(b, '\n');
			p += l + (p[l] == '\n');
			continue;
		}
		/* a paragraph: the lines up to a blank or an indented one */
		sbuf para = {0};
		while (*p && *p != '\n' && *p != ' ') {
			l = strcspn(p, "\n");
			sb_printf(&para, "%s%.*s", para.len ? " " : "", (int)l, p);
			p += l + (p[l] == '\n');
		}
		sb_wrap(b, para.s, 0, 0, width);
		sb_putc(b, '\n');
		sb_free(&para);
	}
}

/* "NAME ARGS" cut at a word so that it fits w columns, "..." marking the cut. */
static char *short_synopsis(const command *c, int w)
{
	char *full = xasprintf("%s%s%s", c->name, c->args[0] ? " " : "", c->args);
	if ((int)strlen(full) <= w)
		return full;
	int cut = 0; /* the longest prefix ending at a word that leaves room for " ..." */
	for (int i = (int)strlen(c->name); full[i]; i++)
		if (full[i] == ' ' && i + 4 <= w)
			cut = i;
	if (cut == 0)
		cut = (int)strlen(c->name);
	char *s = xasprintf("%.*s ...", cut, full);
	free(full);
	return s;
}

char *help_list(const command *const *t, int n)
{
	sbuf b = {0};
	sb_puts(&b, "Commands ('help COMMAND' explains one, with examples):\n");
	for (int i = 0; i < n; i++) {
		char *syn = short_synopsis(t[i], SYN_WIDTH);
		sb_printf(&b, "  %-*s  ", SYN_WIDTH, syn);
		sb_wrap(&b, t[i]->help, SYN_WIDTH + 4, SYN_WIDTH + 4, HELP_WIDTH);
		sb_putc(&b, '\n');
		free(syn);
	}
	help_format(&b, "\nSeparate commands with ';'; '#' starts a comment. Ctrl-C stops a command, or "
	                "drops the line being typed. Topics: 'help header' (the //@ lines of a kernel "
	                "file), 'help refs' (the CPU references of a check), 'help buffers' (what "
	                "buffers hold).\n", HELP_WIDTH);
	help_format(&b, "\nOn a terminal, help, ptx and sass longer than the window go through a pager "
	                "($PAGER, else less, in its secure mode; not while typed lines wait): start cuplay "
	                "with PAGER=cat to turn paging off.\n", HELP_WIDTH);
	help_format(&b, "\nThe reference is in docs/ of cuplay's source (installed in " CUPLAY_DOCDIR "): "
	                "header.md (kernel files), commands.md, timing.md, explain.md, formats.md, "
	                "classroom.md, environment.md, internals.md.\n", HELP_WIDTH);
	return sb_steal(&b);
}

char *help_command(const command *c)
{
	sbuf b = {0};
	int indent = (int)strlen("usage: ") + (int)strlen(c->name) + 1;
	sb_printf(&b, "usage: %s", c->name);
	if (c->args[0]) {
		sb_putc(&b, ' ');
		sb_wrap(&b, c->args, indent, indent, HELP_WIDTH);
	}
	sb_puts(&b, "\n\n");
	help_format(&b, c->long_help ? c->long_help : c->help, HELP_WIDTH);
	return sb_steal(&b);
}

/* ---- topics ---- */

static const char header_text[] =
	"A kernel file says how to run its kernels in //@ lines; every __global__ function in "
	"it is a variant of that workload. Kernel parameters bind by name: a pointer to the "
	"buffer of that name, a scalar to the param of that name.\n"
	"\n"
	"  //@ define NAME = EXPR    compile time: -DNAME=VALUE; a change recompiles\n"
	"  //@ param  NAME = EXPR    run time: the kernel parameter NAME; no recompile\n"
	"  //@ buffer NAME TYPE[COUNT] FILL [output|scratch] [managed] [host [pinned]]\n"
	"                            a buffer ('help buffers'); output: written by the\n"
	"                            kernel and checked; scratch: what a sequence's steps\n"
	"                            hand on, reset before each run like an output and\n"
	"                            never checked; managed: unified memory; host:\n"
	"                            in host memory (pinned: page-locked), copied in\n"
	"                            and out by every run, which is timed whole\n"
	"  //@ global NAME TYPE[[COUNT]] FILL|{V, V, ...} [output]\n"
	"                            the file's __constant__ or __device__ variable NAME,\n"
	"                            written before each launch (cuModuleGetGlobal); a\n"
	"                            check may name it like a buffer\n"
	"  //@ grid   X[, Y[, Z]]    the blocks of a launch\n"
	"  //@ block  X[, Y[, Z]]    the threads of a block\n"
	"  //@ smem   EXPR           dynamic shared memory, bytes (over 48 KiB: opted in)\n"
	"  //@ cluster X[, Y[, Z]]   thread block clusters (sm_90, cuLaunchKernelEx)\n"
	"  //@ bytes  EXPR           the traffic counted for GB/s and the % of the roof:\n"
	"                            what the kernel must move; per kernel or per step\n"
	"                            with '//@ kernel K bytes EXPR' (a figure over 105%\n"
	"                            of the measured roof is flagged 'over roof')\n"
	"  //@ flops  EXPR           the work counted for GFLOP/s (over 105% of the\n"
	"                            measured roof of its pipe: flagged 'over roof')\n"
	"  //@ check  OUT = REF(ARG, ...) [tol X]\n"
	"                            compare OUT with a CPU reference ('help refs'); tol:\n"
	"                            the relative L2 error allowed (default: per type)\n"
	"  //@ check  OUT = KERNEL [tol X]\n"
	"                            compare OUT with what another kernel wrote\n"
	"  //@ check  none           no check\n"
	"  //@ check  at NAME=EXPR[, NAME=EXPR...]\n"
	"                            the check pass runs at these params, timing at the\n"
	"                            file's (a CPU matmul at N=4096 takes seconds)\n"
	"  //@ streams EXPR split NAME\n"
	"                            a run on host data in EXPR chunks of param NAME,\n"
	"                            a stream each: copy in, kernel, copy out\n"
	"  //@ link   cudadevrt      relocatable device code: kernels that launch kernels\n"
	"  //@ tensormap NAME = BUF[D0, D1, ...] box B0, B1, ... [swizzle 32B|64B|128B]\n"
	"             [interleave 16B|32B] [l2promo 64B|128B|256B|none] [oob zero|nan]\n"
	"                            a TMA tensor map (sm_90) of BUF seen as an array\n"
	"                            of these dimensions, outermost first (A[M, K]: M\n"
	"                            rows of K), box sides likewise; passed to the\n"
	"                            kernel parameter 'const __grid_constant__\n"
	"                            CUtensorMap NAME' (#include <cuda.h>)\n"
	"  //@ arch   TARGET[, TARGET...]\n"
	"                            the architecture compiled for, the first of the list\n"
	"                            the GPU runs: sm_90a (arch-specific: wgmma,\n"
	"                            setmaxnreg; runs on 9.0 only), sm_90 (9.0 to 9.9),\n"
	"                            sm_100f (family), native (the GPU's own, the\n"
	"                            default), native+a (its arch-specific one)\n"
	"  //@ kernel K LINE         a grid, block, cluster, smem, bytes, flops or check\n"
	"                            line for kernel K only\n"
	"  //@ kernel K skip         K is not in 'run' or 'run all' (name it to run it)\n"
	"  //@ sequence S = K1, K2, ...\n"
	"                            a variant S: K1, K2, ... launched in order on the\n"
	"                            file's buffers, each with its own '//@ kernel K'\n"
	"                            lines; checked after the last step, timed from the\n"
	"                            first step's start to the last one's end, with each\n"
	"                            step and the gaps between them ('timing graph on':\n"
	"                            also as one CUDA graph); a step is not in 'run all'\n"
	"                            unless named; '//@ kernel S bytes EXPR' (or check)\n"
	"                            is the whole sequence's, the file's lines otherwise\n"
	"\n"
	"Several check lines check several outputs. '//' inside a //@ line starts a comment. "
	"Every error names file:line:column.\n"
	"\n"
	"In a chunk of '//@ streams', the kernel is unchanged and its arguments are the "
	"chunk's: a pointer to a host buffer points at the chunk's slice, the parameter NAME "
	"is the chunk's size (of n units over K chunks, the first n % K get n / K + 1, the "
	"others n / K), a pointer to a device buffer is the whole buffer in every chunk (a "
	"sum they all add into), and every other param and define keeps its value for the "
	"run. grid, block and smem are evaluated with NAME at the chunk's size. A host "
	"buffer holds a whole number of elements per unit of NAME. 'timeline' draws the "
	"last run's copies and kernels by stream.\n"
	"\n"
	"Expressions: 64-bit integers, + - * / % ( ) << >>, cdiv(a, b) (a / b rounded up), "
	"min(a, b), max(a, b), the defines and params above the line, and the device's "
	"SM_COUNT, WARP_SIZE and L2_BYTES. A param that the kernels take as float or double "
	"is computed in floating point (5/2 is 2.5); one they take as an integer must be a "
	"whole number. A define never becomes a kernel argument and a param never becomes a "
	"macro: a define that shares a kernel parameter's name is an error.\n"
	"\n"
	"An example, from kernels_src/transpose.cu:\n"
	"\n"
	"  //@ define TILE_SIZE = 32\n"
	"  //@ define PAD = 1\n"
	"  //@ param  N = 8192\n"
	"  //@ buffer in  float[N*N] random\n"
	"  //@ buffer out float[N*N] poison output\n"
	"  //@ grid   cdiv(N, TILE_SIZE), cdiv(N, TILE_SIZE)\n"
	"  //@ block  TILE_SIZE, BLOCK_ROWS\n"
	"  //@ bytes  2 * N * N * 4\n"
	"  //@ check  out = transpose(in, N, N)\n"
	"  //@ kernel transpose_seed block TILE_SIZE, TILE_SIZE\n"
	"\n"
	"Every line with a complete example, types, fills, references and tolerances: "
	"docs/header.md.\n";

/* 1e-5, not 1e-05 nor 0.0001 */
static void fmt_tol(double t, char *buf, size_t n)
{
	char tmp[32];
	snprintf(tmp, sizeof tmp, "%.0e", t);
	if (strtod(tmp, NULL) != t)
		snprintf(tmp, sizeof tmp, "%g", t);
	char *e = strstr(tmp, "e-0");
	if (e)
		memmove(e + 2, e + 3, strlen(e + 3) + 1);
	snprintf(buf, n, "%s", tmp);
}

static char *refs_text(void)
{
	sbuf b = {0};
	char td[32];
	fmt_tol(ref_default_tol(NULL, DT_DOUBLE), td, sizeof td);
	char *intro = xasprintf("The CPU references of '//@ check OUT = REF(ARG, ...)'. Each computes in "
	                        "double precision; OUT is compared with it by the relative L2 error, "
	                        "which must not pass the line's 'tol X', else the default for OUT's type: "
	                        "the one below for float, %s for double, exact for int, unsigned and long. "
	                        "A buffer argument names a //@ buffer; a scalar is an expression (N, N*N, "
	                        "alpha).\n\n", td);
	help_format(&b, intro, HELP_WIDTH);
	free(intro);
	int n;
	const ref_fn *t = ref_table(&n);
	for (int i = 0; i < n; i++) {
		const ref_fn *f = &t[i];
		sb_printf(&b, "  %s\n", f->synopsis);
		sbuf line = {0};
		sb_puts(&line, f->what ? f->what : f->name);
		/* the scalars, by the names the synopsis gives them */
		const char *p = strchr(f->synopsis, '(');
		int ns = 0;
		for (int k = 0; p && k < f->nargs - (f->opts != NULL) && f->argkinds[k]; k++) {
			p++;
			while (*p == ' ')
				p++;
			int l = (int)strcspn(p, ",)[ ");
			if (f->argkinds[k] == 's')
				sb_printf(&line, "%s%.*s", ns++ ? ", " : "; scalars: ", l, p);
			p += l;
		}
		char tol[32];
		fmt_tol(ref_default_tol(f, DT_FLOAT), tol, sizeof tol);
		sb_printf(&line, "; float tolerance %s%s", tol, f->scalar_out ? "; out[0] alone is compared" : "");
		sb_puts(&b, "      ");
		sb_wrap(&b, line.s, 6, 6, HELP_WIDTH);
		sb_putc(&b, '\n');
		sb_free(&line);
	}
	help_format(&b, "\nmatmul's inputs may be of any type (half, bfloat16, fp8_e4m3, fp8_e5m2...), taken as "
	            "stored. Its words after K: tn, B is stored N x K (each row a column of B, as most "
	            "tensor-core kernels take it); tf32, A and B rounded to TF32 first (10 bits of mantissa, "
	            "to nearest, as cvt.rna.tf32 does) and a float tolerance of 2e-3 (a kernel that hands "
	            "raw floats to the tensor cores has them truncated).\n", HELP_WIDTH);
	char kf[32], kd[32];
	fmt_tol(plan_kernel_check_tol(DT_FLOAT), kf, sizeof kf);
	fmt_tol(plan_kernel_check_tol(DT_DOUBLE), kd, sizeof kd);
	char *k = xasprintf("\nOr compare with what another kernel of the file wrote: '//@ check out = "
	                    "KERNEL' (tolerance: float %s, double %s, integers exact). Every tolerance in "
	                    "one table: docs/header.md.\n", kf, kd);
	help_format(&b, k, HELP_WIDTH);
	free(k);
	return sb_steal(&b);
}

/* The first elements a fill gives a buffer of type t, as text. */
static void sample(sbuf *b, init_kind k, dtype t, double x)
{
	union { float f[2]; double d[2]; int i[2]; unsigned u[2]; long l[2]; } v;
	buffer_fill(&v, t, 2, k, x, buffer_seed(1, "x"));
	for (int i = 0; i < 2; i++) {
		const char *sep = i ? ", " : "";
		double d = t == DT_FLOAT ? (double)v.f[i] : v.d[i];
		switch (t) {
		case DT_FLOAT: case DT_DOUBLE:
			if (isnan(d))
				sb_printf(b, "%sNaN", sep);
			else
				sb_printf(b, "%s%.3g", sep, d);
			break;
		case DT_INT: sb_printf(b, "%s%d", sep, v.i[i]); break;
		case DT_UNSIGNED: sb_printf(b, "%s%u", sep, v.u[i]); break;
		case DT_LONG: sb_printf(b, "%s%ld", sep, v.l[i]); break;
		default: break;
		}
	}
	sb_puts(b, ", ...");
}

static char *buffers_text(void)
{
	static const struct { init_kind k; const char *what; } fills[] = {
		{ INIT_RANDOM, "the same numbers on every run (a seed from the buffer's name): float and "
		               "double uniform in [-1, 1), half and bfloat16 in [-1, 1) in steps the type "
		               "holds exactly (2^-10, 2^-7), fp8_e4m3 and fp8_e5m2 likewise (2^-4, 2^-3), int, unsigned and the 8- and 16-bit integers "
		               "over the whole type, long over the int range and uint64 over the unsigned "
		               "range" },
		{ INIT_ZERO, "0 everywhere" },
		{ INIT_ONE, "1 everywhere" },
		{ INIT_IOTA, "each element's index: 0, 1, 2, ...; 8- and 16-bit integers wrap over "
		             "their range, half at 2048, bfloat16 at 256, fp8_e4m3 at 17 and fp8_e5m2 at 9, so "
		             "every value is exact" },
		{ INIT_VALUE, "X everywhere; below, value(3)" },
		{ INIT_POISON, "every byte 0xFF: NaN in float and double, all bits set in the integer "
		               "types; for outputs, so an element the kernel never writes fails the check" },
	};
	sbuf b = {0};
	help_format(&b, "  //@ buffer NAME TYPE[COUNT] FILL [output] [managed]\n\n", HELP_WIDTH);
	sbuf types = {0};
	sb_puts(&types, "TYPE (or its C name in one word: __half, __nv_bfloat16, int8_t, uint8_t, short, "
	        "int64_t, size_t, ...), and its size in bytes:");
	for (int t = 0; t < DT__COUNT; t++)
		sb_printf(&types, "%s %s %zu", t ? "," : "", dtype_name((dtype)t), dtype_size((dtype)t));
	sb_putc(&types, '\n');
	help_format(&b, types.s, HELP_WIDTH);
	sb_free(&types);
	sb_puts(&b, "\nFILL, then what the first elements of a float and an int buffer hold:\n");
	for (size_t i = 0; i < ARRAY_LEN(fills); i++) {
		sb_printf(&b, "  %-9s ", fills[i].k == INIT_VALUE ? "value(X)" : init_name(fills[i].k));
		sb_wrap(&b, fills[i].what, 12, 12, HELP_WIDTH);
		sb_puts(&b, "\n            float: ");
		sample(&b, fills[i].k, DT_FLOAT, 3);
		sb_puts(&b, "  int: ");
		sample(&b, fills[i].k, DT_INT, 3);
		sb_putc(&b, '\n');
	}
	help_format(&b, "\nA vector type (float4, half2, ...) is filled, checked and passed to "
	            "references as its scalars: a float4[N] buffer is 4*N floats to a reference. A "
	            "kernel's float4 * binds to a float buffer and the other way round.\n", HELP_WIDTH);
	help_format(&b, "\n'output' marks what the kernel writes: it is reset to its fill before each "
	                "launch and compared by the file's check lines. 'managed' allocates the buffer "
	                "in unified memory (cudaMallocManaged), which the GPU pages in on first touch, "
	                "instead of device memory. COUNT is an expression of the defines and params; a "
	                "kernel parameter 'float *NAME' (or 'const float *NAME') gets buffer NAME, whose "
	                "type must match. More, with examples: docs/header.md.\n", HELP_WIDTH);
	return sb_steal(&b);
}

static const char *const topic_names[] = { "header", "refs", "buffers", NULL };

const char *const *help_topics(void)
{
	return topic_names;
}

char *help_topic(const char *name)
{
	if (strcmp(name, "header") == 0) {
		sbuf b = {0};
		help_format(&b, header_text, HELP_WIDTH);
		return sb_steal(&b);
	}
	if (strcmp(name, "refs") == 0)
		return refs_text();
	if (strcmp(name, "buffers") == 0)
		return buffers_text();
	return NULL;
}
