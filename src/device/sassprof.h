/* sassprof.h: what each instruction of a kernel cost, through CUPTI: the
 * SASS metrics API (counters per instruction, by patching the kernel's
 * SASS: warp and thread instructions, global sectors and their ideal,
 * shared wavefronts and their ideal, local sectors), PC sampling (where the
 * warps stalled, and why), and the map from an instruction to its source
 * line (cuptiGetSassToSourceCorrelation, a pure function of a cubin built
 * with -lineinfo: it needs no GPU).
 *
 * Patching and sampling slow the kernel: these launches are a replay of
 * their own, never timed samples. What cannot be had here (no CUPTI, no
 * permission, a device that refuses) is PROF_UNAVAILABLE with one line,
 * and nothing stays enabled. Runs in the process that owns the context. */
#ifndef CUPLAY_SASSPROF_H
#define CUPLAY_SASSPROF_H

#include <stdint.h>

#include "cudrv.h"
#include "prof.h"

/* The per-instruction counters, in this order on the wire. */
enum { SP_INST, SP_THREAD_INST, SP_GSEC, SP_GSEC_IDEAL, SP_SHWF, SP_SHWF_IDEAL, SP_LOCAL, SP_NMETRIC };
extern const char *const sassprof_metrics[SP_NMETRIC];

#define SP_TOP 3            /* stall reasons kept per instruction */
#define SP_MAX_FUNCS 16     /* functions seen in one collection */
#define SP_NAME 256
#define SP_MAX_REASONS 64
#define SP_REASON_NAME 80
#define SP_MAX_PCS 65536

/* One instruction: the wire's record (fixed size, no pointers). */
typedef struct sp_pc {
	uint32_t pc;                  /* byte offset in its function */
	int32_t func;                 /* index into sp_head.funcs */
	uint64_t m[SP_NMETRIC];       /* the counters (0 where not collected) */
	uint32_t samples;             /* PC samples here, every reason */
	uint16_t reason[SP_TOP];      /* the top reasons: indices into sp_head.reasons */
	uint16_t nreason;
	uint32_t reason_n[SP_TOP];    /* ... and their samples */
} sp_pc;

/* What a collection says of itself; its npc records follow on the wire. */
typedef struct sp_head {
	int32_t status;               /* prof_status of the SASS metrics */
	int32_t samp_status;          /* prof_status of PC sampling */
	char error[512];              /* why status is not PROF_OK; else "" */
	char samp_error[512];
	int32_t npc, nfuncs, nreasons;
	char funcs[SP_MAX_FUNCS][SP_NAME];          /* the kernels' symbols */
	char reasons[SP_MAX_REASONS][SP_REASON_NAME]; /* "smsp__pcsamp_warps_issue_stalled_barrier" */
	double plain_ms;              /* one launch as the user's, host wall time to its end */
	double metrics_ms;            /* the patched launch, the same way, setup and data included */
	double sampling_ms;           /* the sampled launch, the same way */
	uint64_t total_samples, dropped_samples;
	uint64_t dropped_records;     /* SASS records CUPTI dropped */
	int32_t period;               /* PC sampling's: a sample every 2^period cycles */
	int32_t pc_records;           /* PC-sampling records CUPTI gave (an instruction each) */
	uint64_t record_samples;      /* the samples in them, every reason */
	uint64_t nonuser_samples;     /* samples CUPTI gave no record for (code it does not know) */
	uint64_t samp_pc_max;         /* the largest pcOffset of the PC records */
	uint8_t func_api[SP_MAX_FUNCS]; /* who named funcs[i]: SP_BY_COUNTERS | SP_BY_SAMPLES */
} sp_head;

enum { SP_BY_COUNTERS = 1, SP_BY_SAMPLES = 2 };

/* The launch the collections replay: launch(arg) launches the kernel (or a
 * sequence's kernels) once and returns 0, or non-zero when it failed (its
 * own arg says why); prologue(arg), may be NULL, runs before each, outside
 * what is measured (outputs reset). */
typedef struct sp_launch {
	int (*prologue)(void *arg);
	int (*launch)(void *arg);
	void *arg;
	/* with PC sampling enabled, before its launch: the kernel's module
	 * loaded again (PC sampling sees only code loaded after it was
	 * enabled); NULL: none. 0, or -1 with why in err. */
	int (*reload)(void *arg, char *err, size_t n);
} sp_launch;

/* The SASS metrics of one launch into h and *pcs (h->npc records, caller
 * frees), then the PC samples of one more, merged into them. A collection
 * that cannot be had leaves its status and error in h and the other goes
 * on; PROF_LAUNCH when a launch failed (stop: the context may be broken).
 * period: PC sampling's period, 2^period cycles (5..31); else the
 * launch's own (sassprof_period of the plain launch's time). */
prof_status sassprof_collect(CUcontext ctx, CUdevice dev, const sp_launch *l, int period, sp_head *h, sp_pc **pcs);

/* The sampling period for a kernel of ms milliseconds: about two million
 * samples on a large GPU, at least 2^5 cycles apart, at most 2^20. */
int sassprof_period(double ms);

/* The source line of instruction pc of function func in cubin: 1 with
 * file (its name as compiled), dir and *line set; 0 when the cubin has no
 * line for it (no -lineinfo, or past the function's end); -1 with *err
 * when CUPTI cannot be loaded or fails otherwise. */
int sassprof_line(const void *cubin, size_t len, const char *func, uint32_t pc, char *file, int nfile, char *dir,
                  int ndir, int *line, char **err);

/* cuptiProfilerDeInitialize, when sassprof initialised it. */
void sassprof_shutdown(void);

#endif
