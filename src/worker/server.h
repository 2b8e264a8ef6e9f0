/* server.h: the GPU worker's own pieces, shared by its files (not by the
 * rest of cuplay, which sees the worker through worker.h):
 *   server.c        the serve loop: start-up, one request at a time, shutdown
 *   server_time.c   the timing pass, the empty-kernel baseline, the copy
 *                   roof, the L2 flush, the counters pass
 *   server_check.c  the check pass: references, downloads, comparisons
 *   server_pipe.c   runs on host data: host buffers, streams, the chunks'
 *                   copies and launches
 *   server_pool.c   device buffers kept from run to run
 *   server_stage.c  the page-locked staging area: uploads, and downloads
 *                   compared chunk by chunk
 *   server_fill.c   random inputs written on the GPU (no upload)
 *   server_lock.c   the lock that lets one process at a time measure a GPU
 *   server_printf.c device printf, caught behind stdout
 *   server_base.c   errors, traces, progress, allocation, launches
 * Each calls only the ones listed below it. */
#ifndef CUPLAY_SERVER_H
#define CUPLAY_SERVER_H

#include <pthread.h>
#include <signal.h>
#include <stdint.h>

#include "cudrv.h"
#include "outhash.h"
#include "ref.h"
#include "util.h"
#include "wire.h"
#include "worker.h"

#define KiB ((uint64_t)1024)
#define MiB (KiB * 1024)
#define GiB (MiB * 1024)

enum { PAT_NONE, PAT_D8, PAT_D32 };

/* A device buffer kept from run to run (the pool). Its signature says what
 * its initial contents are; kernels write only outputs (the header's
 * contract), so an input left clean by the last run needs no upload. */
typedef struct pbuf {
	buffer_sig sig;
	CUdeviceptr d;         /* what the kernel sees; 0: an empty slot */
	CUdeviceptr pristine;  /* a device copy of the initial contents, or 0 */
	void *host;            /* the initial contents, or NULL until needed */
	size_t bytes;
	int pat;               /* PAT_*: the initial contents as one memset */
	unsigned int pval;
	int dirty;             /* d may differ from the initial contents */
	int verified;          /* this run wrote d (and pristine) from host or pattern */
	int module;            /* d is a variable of this run's module (`//@ global`): not ours to free */
} pbuf;

/* A host buffer of the run (`//@ buffer ... host`): what is copied in
 * (the initial contents) and where the output is copied out to, page-locked
 * or not as the header says. */
typedef struct hbuf {
	void *in, *out;
	size_t bytes;
	int pinned;
} hbuf;

/* The reference cache: at most this many results, of at most this many
 * bytes in all. */
#define REF_CACHE_ENTRIES 4
#define REF_CACHE_BYTES (2 * GiB)
/* The download buffer of checked outputs is kept between runs up to this
 * size. */
#define STAGE_KEEP_MAX (1 * GiB)

/* The random fill's kernels (server_fill.c): one a stored width and conversion. */
#define FILL_KERNELS 9

/* The context's state at start-up (wstate.ctx_state). */
enum { CTX_PENDING, CTX_READY, CTX_FAILED };

typedef struct wstate {
	int rfd, wfd;
	int ordinal;
	CUdevice dev;
	CUcontext ctx;
	int have_ctx;
	devinfo info;
	/* Start-up: the HELLO goes once the device is known; the context and
	 * CUPTI's set-up, then NVML, are made on a thread of their own
	 * (server.c) while the first request's host work goes on. */
	pthread_t start_thread;
	int start_running;     /* the thread was started and is not joined yet */
	pthread_mutex_t start_mu;
	pthread_cond_t start_cv;
	int ctx_state;         /* CTX_*: written under start_mu, final once not pending */
	char start_err[512];   /* why there is no context (CTX_FAILED) */
	int wrapped;           /* started under a wrapper (compute-sanitizer): no CUPTI set-up */
	int ctx_waited;        /* w_ctx_wait has returned once: the context is current here */
	double ctx_wait_ms;    /* how long that first wait took */
	void *early[PLAN_MAX_BUFS]; /* host copies filled before the context (w_early_fill) */
	size_t early_bytes[PLAN_MAX_BUFS];
	CUevent ev0, ev1;
	CUdeviceptr flush;     /* L2 flush scratch, allocated on first need */
	size_t flush_bytes;
	CUmodule flush_mod;    /* the read-only flush kernel (flush_l2) */
	CUfunction flush_fn;
	int have_flush_fn;
	int roof_done;
	double roof_gbps;
	int empty_done;        /* an empty kernel, timed once: single and batched */
	double empty_ms, empty_batch_ms;
	int empty_kernel_done; /* ... and on the kernel clock */
	double empty_kernel_ms;
	char kclock_why[256];  /* why the kernel clock cannot be had in this worker; "" */
	int stop, quit;        /* STOP / QUIT (or the front end gone) seen */
	int trace_loop;        /* CUPLAY_TRACE: time the parts of a sample's prologue for its line */
	/* pool[i]: buffer i of the last plan. Only the last plan's buffers are
	 * kept, so device memory never holds more than one plan's buffers and
	 * their pristine copies. */
	pbuf pool[PLAN_MAX_BUFS];
	ref_cache refs;        /* reference results of recent checks */
	void *stage;           /* download buffer for checked outputs (no staging area) */
	size_t stage_bytes;
	void *pin;             /* the staging area (server_stage.c), made on first need */
	CUstream pin_stream;   /* its copies */
	CUevent pin_ev[2];     /* each half's last copy up */
	int pin_state;         /* 0 not tried yet, 1 ready, -1 not to be had */
	verdict_cache verdicts; /* results of comparisons, by the hash of the output compared */
	CUmodule fill_mod;     /* the random fill kernels (server_fill.c), loaded at start-up */
	CUfunction fill_fn[FILL_KERNELS];
	int fill_state;        /* 0 not loaded yet, 1 loaded, -1 not to be had: under start_mu */
	char fill_why[160];    /* why not */
	CUmodule hash_mod;     /* the output hash kernel (server_hash.c), loaded on first need */
	CUfunction hash_fn;
	CUdeviceptr hash_out;
	int hash_failed;       /* it could not be loaded: compare on the host */
	nvml_dev nvml;         /* clocks and throttling around the samples */
	hbuf host[PLAN_MAX_BUFS]; /* the run's host buffers (server_pipe.c) */
	CUstream streams[PLAN_MAX_CHUNKS]; /* made on first need, kept */
	int nstreams;
	int link_done;         /* the host link measured (link_gbps) */
	double link_gbps[LINK_N];
	int pf_fd;             /* where device printf goes (this process's stdout): a memfd, or -1 */
	int pf_err;            /* the worker's own stderr, while a run points fd 2 at pf_fd: assertion
	                          messages go to stderr */
	uint64_t launches;     /* of the user's kernels in this run */
	uint64_t pf_first_end; /* the output shown ends here (0: none yet) */
	uint64_t pf_first_launches;
} wstate;

typedef union argval {
	CUdeviceptr p;
	int32_t i32;
	uint32_t u32;
	int64_t i64;
	uint64_t u64;
	float f32;
	double f64;
} argval;

/* Kernel arguments; params[i] points into v[i], so never copy one. */
typedef struct kargs {
	argval v[PLAN_MAX_ARGS];
	void *params[PLAN_MAX_ARGS + 1];
} kargs;

typedef struct wrun {
	wstate *ws;
	const plan *p;
	result *res;
	CUmodule mod;
	int have_mod;
	CUfunction fn;
	CUfunction other[PLAN_MAX_CHECKS];
	kargs ka;
	uint64_t t0;           /* the request's start, for traces */
	struct ref_ahead *ahead; /* references computed beside the GPU work (server_check.c) */
	uint64_t filled;       /* bytes the GPU fill wrote in this run */
	uint64_t uploaded;     /* bytes uploaded from host copies in this run */
} wrun;

_Static_assert(SPEC_MAX_CHECK_ARGS <= REF_MAX_ARGS, "a reference key holds every check argument");

/* Buffer i of the run's plan. */
static inline pbuf *B(wrun *r, int i)
{
	return &r->ws->pool[i];
}

/* Page-locked host memory for downloads: cuMemHostAlloc and cuMemFreeHost,
 * looked up in the libcuda that cu_load opened (cudrv.h does not list
 * them). A download into pageable memory is several times slower.
 * CUPLAY_PAGEABLE=1 keeps to malloc (to compare). */
typedef CUresult (*host_alloc_fn)(void **p, size_t bytes, unsigned int flags);
typedef CUresult (*host_free_fn)(void *p);
extern host_alloc_fn w_host_alloc;
extern host_free_fn w_host_free;
/* cuMemPrefetchAsync_v2 (CUDA 12.2+): sends managed pages back to the host
 * before each timed launch, so every sample pays the first-touch migration
 * that unified memory costs (lecture 002). */
typedef struct cu_mem_location { int type, id; } cu_mem_location;
enum { CU_MEM_LOCATION_TYPE_DEVICE_ = 1, CU_MEM_LOCATION_TYPE_HOST_ = 2 };
typedef CUresult (*prefetch_fn)(CUdeviceptr p, size_t bytes, cu_mem_location loc, unsigned int flags, CUstream s);
extern prefetch_fn w_prefetch;

/* A launch's kernel as the cubin names it (mangled, unless extern "C"). */
static inline const char *kernel_symbol(const plan_launch *l)
{
	return l->lowered[0] ? l->lowered : l->name;
}

/* ---- server_base.c */
extern volatile sig_atomic_t w_interrupted; /* SIGINT seen (w_on_sigint) */
extern int w_tracing;                       /* CUPLAY_TRACE_WORKER */
extern uint64_t w_started_ns;               /* when the worker started (w_trace(NULL, ...)) */
void w_on_sigint(int sig);
/* CUPLAY_TRACE_WORKER=1: one line to stderr a phase of every run. */
void w_trace(wrun *r, const char *fmt, ...) PRINTF_LIKE(2, 3);
/* "1.5 GiB", "12 bytes": sizes in messages. */
const char *w_bytes(uint64_t n, char *buf, size_t len);
/* Records the run's error (a FATAL one replaces an earlier plain one);
 * returns -1. */
int w_fail(wrun *r, int fatal, const char *fmt, ...) PRINTF_LIKE(3, 4);
/* A CUDA call's status: "CALL failed: CUDA_ERROR_X (text)". */
int w_ck(wrun *r, CUresult e, const char *call);
/* The status of waiting for a kernel: "kernel 'NAME' failed: ...". */
int w_ck_kernel(wrun *r, CUresult e, const char *name);
void *w_hmalloc(wrun *r, size_t n, const char *what);
void w_progress(wstate *ws, int n, int phase, double ms);
/* Reads STOP / QUIT without blocking: 1 when the run should stop. */
int w_stop_now(wstate *ws);
/* Device memory: out of memory is only returned by w_dalloc_try (the
 * caller may make room and try again); w_dalloc reports every failure. */
CUresult w_dalloc_try(wrun *r, CUdeviceptr *d, size_t bytes, int managed, const char *what);
int w_dalloc(wrun *r, CUdeviceptr *d, size_t bytes, int managed, const char *what);
void w_load_host_alloc(void);
/* Before the first device call of any request: waits for the start-up
 * thread's context and makes it current on the calling thread. NULL when
 * it is there, else why not (the start-up's error, which the request then
 * reports). Cheap after the first call. Only the worker's main thread calls
 * it; a thread of its own that makes CUDA calls sets the context itself. */
const char *w_ctx_wait(wstate *ws);
/* Waits for the rest of the start-up thread's work (NVML) before its
 * first use; idempotent. */
void w_start_join(wstate *ws);
/* While the context is being made: fills the host copies of the plan's
 * random and iota buffers, as pool_host_of would after the allocations,
 * so that this host work overlaps with the context's creation. Quiet: a
 * copy that cannot be had is left to pool_host_of. */
void w_early_fill(wrun *r);
/* pool_host_of's hook: the early copy of buffer i when it is bytes long,
 * handed over (the caller owns it), or NULL. */
void *w_early_take(wrun *r, int i, size_t bytes);
/* The early copies no request took. */
void w_early_free(wstate *ws);
/* A plan from the wire, checked before anything is done with it. */
int w_validate_plan(wrun *r);
/* The function of a launch in the module, with its dynamic shared memory
 * allowed. */
int w_get_function(wrun *r, const plan_launch *l, CUfunction *fn);
void w_build_args(kargs *ka, const plan_launch *l, const CUdeviceptr *ptrs);
/* Launches on the default stream (or st); every output counts as written. */
int w_launch(wrun *r, CUfunction fn, const plan_launch *l, kargs *ka);
int w_launch_on(wrun *r, CUfunction fn, const plan_launch *l, kargs *ka, CUstream st);

/* ---- server_printf.c: device printf, caught in a memory file behind
 * stdout so that it never reaches the front end's output raw */
/* At start-up: stdout becomes a memory file (before the driver starts). */
void pf_open(wstate *ws);
/* At the start of a run: empties it. */
void pf_reset(wstate *ws);
/* After a synchronised launch: when nothing was shown yet, what the launches
 * so far wrote becomes the text shown. */
void pf_first(wrun *r);
/* At the end of a run: the rest, counted; after a failure, the end of the
 * output is what is shown (an assertion's message is there). */
void pf_finish(wrun *r);

/* ---- server_pool.c */
int pool_release(wrun *r, pbuf *e);
void *pool_host_of(wrun *r, int i);
/* pool_init_dev's how: from the pristine device copy when there is one;
 * from the host copy rather than the GPU fill */
enum { POOL_PRISTINE = 1, POOL_FROM_HOST = 2 };
int pool_init_dev(wrun *r, int i, CUdeviceptr dst, int how);
int pool_reset_dirty(wrun *r);
/* The run's buffers: reused from the pool where their contents allow,
 * else allocated and written; before_write (may be NULL) is called once
 * they are allocated, before any is written. */
int pool_setup(wrun *r, void (*before_write)(wrun *r));
int pool_all_verified(wrun *r);
int pool_reverify(wrun *r);
int pool_restore_outputs(wrun *r);

/* ---- server_stage.c: the staging area; 1 from these: it cannot be had
 * (or is of no use here), go the way without it */
/* Output d (n scalars of gt, called name) compared with want (n of wt)
 * as it comes down in chunks: ref_compare_typed's result in *cr. */
int stage_compare(wrun *r, CUdeviceptr d, const char *name, dtype gt, const void *want, dtype wt,
                  uint64_t n, double tol, cmp_result *cr);
/* The staging area made now, if it is not yet (a worker's first check
 * makes it while its reference is still being computed): 0, or -1 on a
 * sticky error, reported (without the area, the callers go without it). */
int stage_prepare(wrun *r);
/* bytes from host src up to d, chunk by chunk through the area; done when
 * it returns. */
int stage_upload(wrun *r, CUdeviceptr dst, const void *src, size_t bytes, const char *name);
/* The pageable download buffer (stage_get) and the staging area go;
 * stage_trim: the buffer only, when over STAGE_KEEP_MAX. */
void stage_free(wstate *ws);
void stage_trim(wstate *ws);
void *stage_get(wrun *r, size_t bytes, const char *what);
/* A host array for a whole copy from the GPU, its pages faulted in first
 * on every core (w_hmalloc's failure otherwise). */
void *stage_host_array(wrun *r, size_t bytes, const char *what);

/* ---- server_fill.c: random inputs written on the GPU, bit for bit what
 * buffer_fill writes on the host */
/* The PTX of the fill kernels (one entry a kernel, fill_kernel_name). */
extern const char fill_ptx[];
/* The kernel that fills random buffers of type t (vectors as their
 * scalars), or -1 when there is none. */
int fill_kernel_of(dtype t);
const char *fill_kernel_name(int k);
/* On the start-up thread once the context is there: loads the kernels
 * (unless CUPLAY_FILL_HOST=1 or CUPLAY_PAGEABLE=1), with a trace line
 * either way, and announces it on start_cv. */
void fill_load(wstate *ws);
void fill_free(wstate *ws);
/* Writes buffer i's initial contents into dst on the GPU when they are a
 * random stream the kernels make (not managed, not a global), waiting for
 * fill_load first: 0 done; 1 not to be had here (upload the host copy);
 * -1 an error, reported. */
int fill_random(wrun *r, int i, CUdeviceptr dst);

/* ---- server_pipe.c: runs on host data */
/* The run's host buffers (the initial contents copied into the inputs,
 * the outputs poisoned) and one stream a chunk; nothing without host
 * buffers. After pool_setup. */
int pipe_setup(wrun *r);
/* The host buffers go (the streams stay for the next run); r NULL: quietly. */
int pipe_release(wrun *r, wstate *ws);
void pipe_fini(wstate *ws);
/* The run: on host data, each chunk on its stream (copy in, the kernel on
 * its slice, copy out), the legacy stream's work before and after it
 * ordered with them; else the launch alone. Not waited for. */
int w_run_main(wrun *r);
/* The host link's bandwidths, once per worker: 64 MiB each way, from
 * pageable and from page-locked memory. A failure that is not sticky
 * leaves a figure at 0. */
void measure_link(wrun *r);
/* Where output i was copied out to, or NULL when it is not copied out. */
const void *pipe_out(wrun *r, int i);
/* The outputs' host copies poisoned again: a copy out that did not happen shows. */
int pipe_poison(wrun *r);

/* ---- server_check.c */
/* server_hash.c: the output hash (outhash.h) of bytes at d, on the GPU. 0
 * with h; 1 when the hash kernel cannot be had here; -1 on an error. */
int gpu_outhash(wrun *r, CUdeviceptr d, uint64_t bytes, uint64_t h[2]);
void hash_free(wstate *ws);
int check_pass(wrun *r);
/* pool_setup's before_write: a new configuration's references start on a
 * thread before the upload; check_end waits for it (at the end of every run). */
void check_early(wrun *r);
void check_end(wrun *r);

/* ---- server_lock.c: one measurer at a time per GPU, across processes */
/* Takes the GPU's lock (waiting, with one note, while another process
 * holds it): 0 held, or no lock to be had; 1 stopped while waiting
 * (res->status is RES_INTERRUPTED). Held until w_gpu_unlock. */
int w_gpu_lock(wrun *r);
void w_gpu_unlock(wstate *ws);

/* ---- server_time.c */
void measure_roof(wrun *r);
int ensure_flush(wrun *r);
CUresult flush_l2(wstate *ws, int n);
int time_pass(wrun *r);
int trace_pass(wrun *r);
void metrics_pass(wrun *r);

#endif
