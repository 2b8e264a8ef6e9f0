/* sassprof.c: per-instruction counters, PC samples and source lines
 * through CUPTI, with dlopen. */
#include "sassprof.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cupti_sass_abi.h"
#include "cuptilib.h"
#include "util.h"

const char *const sassprof_metrics[SP_NMETRIC] = {
	"smsp__sass_inst_executed",
	"smsp__sass_thread_inst_executed",
	"smsp__sass_sectors_mem_global",
	"smsp__sass_sectors_mem_global_ideal",
	"smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared",
	"smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal",
	"smsp__sass_sectors_mem_local",
};

typedef CUptiResult (*cupti_fn)(void *params);

/* CUPTI takes a device's SASS-metric config once a process (a second
 * SetConfig, even after UnsetConfig, fails with OUT_OF_MEMORY): it is set
 * at a device's first collection, kept, and unset at shutdown. */
#define SP_MAX_DEVICES 64

static struct sp_lib {
	int tried, ok, initialized;
	unsigned char configured[SP_MAX_DEVICES]; /* SetConfig done for this device */
	char *why;
	cupti_fn Init, DeInit, DeviceSupported, ChipName, GetProperties, SetConfig, UnsetConfig, Enable, Disable,
	         GetDataProperties, FlushData, PcEnable, PcDisable, PcSetAttr, PcGetData, PcNumReasons, PcReasons,
	         Correlate;
} sl;

static const struct {
	size_t off;
	const char *name;
} sl_syms[] = {
#define S(field, name) { offsetof(struct sp_lib, field), name }
	S(Init, "cuptiProfilerInitialize"),
	S(DeInit, "cuptiProfilerDeInitialize"),
	S(DeviceSupported, "cuptiProfilerDeviceSupported"),
	S(ChipName, "cuptiDeviceGetChipName"),
	S(GetProperties, "cuptiSassMetricsGetProperties"),
	S(SetConfig, "cuptiSassMetricsSetConfig"),
	S(UnsetConfig, "cuptiSassMetricsUnsetConfig"),
	S(Enable, "cuptiSassMetricsEnable"),
	S(Disable, "cuptiSassMetricsDisable"),
	S(GetDataProperties, "cuptiSassMetricsGetDataProperties"),
	S(FlushData, "cuptiSassMetricsFlushData"),
	S(PcEnable, "cuptiPCSamplingEnable"),
	S(PcDisable, "cuptiPCSamplingDisable"),
	S(PcSetAttr, "cuptiPCSamplingSetConfigurationAttribute"),
	S(PcGetData, "cuptiPCSamplingGetData"),
	S(PcNumReasons, "cuptiPCSamplingGetNumStallReasons"),
	S(PcReasons, "cuptiPCSamplingGetStallReasons"),
	S(Correlate, "cuptiGetSassToSourceCorrelation"),
#undef S
};

static int load(void)
{
	if (sl.tried)
		return sl.ok ? 0 : -1;
	sl.tried = 1;
	if (!cuptilib_open(&sl.why))
		return -1;
	for (size_t k = 0; k < ARRAY_LEN(sl_syms); k++) {
		cupti_fn f = NULL;
		if (cuptilib_sym(sl_syms[k].name, &f) != 0) {
			sl.why = xasprintf("CUPTI too old: no '%s' in '%s' (per-line counters need CUDA 12.4 or later)",
			                   sl_syms[k].name, cuptilib_path());
			return -1;
		}
		memcpy((char *)&sl + sl_syms[k].off, &f, sizeof f);
	}
	sl.ok = 1;
	return 0;
}

/* One CUPTI call checked: PROF_OK, or the status with *err (one line). */
static prof_status check(CUptiResult r, const char *call, char *err, size_t n)
{
	if (r == CUPTI_SUCCESS)
		return PROF_OK;
	char name[300];
	const char *why = prof_explain(r);
	if (why) {
		cuptilib_result_name(r, name, sizeof name);
		snprintf(err, n, "%s (%s: %s)", why, call, name);
		return PROF_UNAVAILABLE;
	}
	cuptilib_result_text(r, name, sizeof name);
	snprintf(err, n, "%s failed: %s", call, name);
	return PROF_ERROR;
}

/* The profiler once a process, and whether this device allows api. */
static prof_status begin(CUdevice dev, int api, char *err, size_t n)
{
	prof_status st;
	if (!sl.initialized) {
		CUpti_Profiler_Initialize_Params ip;
		memset(&ip, 0, sizeof ip);
		ip.structSize = CUpti_Profiler_Initialize_Params_STRUCT_SIZE;
		if ((st = check(sl.Init(&ip), "cuptiProfilerInitialize", err, n)) != PROF_OK)
			return st;
		sl.initialized = 1;
	}
	CUpti_Profiler_DeviceSupported_Params ds;
	memset(&ds, 0, sizeof ds);
	ds.structSize = CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE;
	ds.cuDevice = dev;
	ds.api = api;
	if ((st = check(sl.DeviceSupported(&ds), "cuptiProfilerDeviceSupported", err, n)) != PROF_OK)
		return st;
	if (ds.isSupported != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) {
		snprintf(err, n, "%s not supported on this device%s", api == CUPTI_PROFILER_SASS_METRICS
		         ? "per-instruction counters" : "PC sampling",
		         ds.vGpu != CUPTI_PROFILER_CONFIGURATION_SUPPORTED ? " (a virtual GPU)"
		         : ds.wsl != CUPTI_PROFILER_CONFIGURATION_SUPPORTED ? " (WSL)" : "");
		return PROF_UNAVAILABLE;
	}
	return PROF_OK;
}

/* ------------------------------------------------------------ records */

/* The instructions seen, found by (function, offset) through a hash. */
typedef struct pcset {
	sp_head *h;
	sp_pc *pcs;
	int n, cap;
	int *slot;          /* open addressing: index + 1, 0 empty */
	int nslot;
	uint32_t **rn;      /* per record: samples by stall reason (sampling only) */
} pcset;

/* The index of a function name (api: who named it), added when new. */
static int func_index(sp_head *h, const char *name, int api)
{
	if (!name || !*name)
		name = "?";
	for (int i = 0; i < h->nfuncs; i++)
		if (strcmp(h->funcs[i], name) == 0) {
			h->func_api[i] |= (uint8_t)api;
			return i;
		}
	if (h->nfuncs >= SP_MAX_FUNCS)
		return -1;
	snprintf(h->funcs[h->nfuncs], SP_NAME, "%s", name);
	h->func_api[h->nfuncs] = (uint8_t)api;
	return h->nfuncs++;
}

static unsigned hash(int f, uint32_t pc)
{
	return (unsigned)((pc >> 4) * 2654435761u) ^ (unsigned)f * 40503u;
}

static void rehash(pcset *s)
{
	free(s->slot);
	s->nslot = s->nslot ? s->nslot * 2 : 1024;
	s->slot = xcalloc((size_t)s->nslot, sizeof *s->slot);
	for (int i = 0; i < s->n; i++) {
		unsigned k = hash(s->pcs[i].func, s->pcs[i].pc) & (unsigned)(s->nslot - 1);
		while (s->slot[k])
			k = (k + 1) & (unsigned)(s->nslot - 1);
		s->slot[k] = i + 1;
	}
}

/* The record of (function name, pc), added when new; NULL when full. */
static sp_pc *pc_at(pcset *s, const char *fname, uint32_t pc, int api)
{
	int f = func_index(s->h, fname, api);
	if (f < 0)
		return NULL;
	if (s->n * 2 >= s->nslot)
		rehash(s);
	unsigned k = hash(f, pc) & (unsigned)(s->nslot - 1);
	for (; s->slot[k]; k = (k + 1) & (unsigned)(s->nslot - 1)) {
		sp_pc *p = &s->pcs[s->slot[k] - 1];
		if (p->func == f && p->pc == pc)
			return p;
	}
	if (s->n >= SP_MAX_PCS)
		return NULL;
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 256;
		s->pcs = xrealloc(s->pcs, (size_t)s->cap * sizeof *s->pcs);
		s->rn = xrealloc(s->rn, (size_t)s->cap * sizeof *s->rn);
	}
	s->slot[k] = s->n + 1;
	sp_pc *p = &s->pcs[s->n];
	memset(p, 0, sizeof *p);
	s->rn[s->n] = NULL;
	s->n++;
	p->func = f;
	p->pc = pc;
	return p;
}

/* The prologue of a launch (outputs reset), before the collection is
 * enabled: its own kernels are neither patched nor sampled. */
static prof_status prologue(const sp_launch *l, char *err, size_t n)
{
	if (l->prologue && l->prologue(l->arg) != 0) {
		snprintf(err, n, "the launch failed before the per-line run");
		return PROF_LAUNCH;
	}
	return PROF_OK;
}

/* Host wall time of one launch to its end. */
static prof_status timed_launch(const sp_launch *l, double *ms, char *err, size_t n)
{
	uint64_t t0 = now_ns();
	if (l->launch(l->arg) != 0) {
		snprintf(err, n, "the kernel launch failed in the per-line run");
		return PROF_LAUNCH;
	}
	CUresult e = cu.CtxSynchronize();
	*ms = ms_since(t0);
	if (e != CUDA_SUCCESS) {
		snprintf(err, n, "the kernel failed in the per-line run: %s", cu_errstr(e));
		return PROF_LAUNCH;
	}
	return PROF_OK;
}

/* ------------------------------------------------------------ SASS metrics */

/* The records CUPTI holds, flushed into the set: each record is one
 * instruction's value of one metric (an instance each, added up). */
static prof_status flush_metrics(pcset *s, CUcontext ctx, const uint64_t *ids, char *err, size_t n)
{
	prof_status st;
	CUpti_SassMetricsGetDataProperties_Params gp;
	memset(&gp, 0, sizeof gp);
	gp.structSize = CUpti_SassMetricsGetDataProperties_Params_STRUCT_SIZE;
	gp.ctx = ctx;
	if ((st = check(sl.GetDataProperties(&gp), "cuptiSassMetricsGetDataProperties", err, n)) != PROF_OK)
		return st;
	size_t nrec = gp.numOfPatchedInstructionRecords, ninst = gp.numOfInstances;
	if (nrec == 0 || ninst == 0) {
		snprintf(err, n, "no instruction was counted (the kernel ran no patched code)");
		return PROF_ERROR;
	}
	CUpti_SassMetrics_Data *d = xcalloc(nrec, sizeof *d);
	CUpti_SassMetrics_InstanceValue *v = xcalloc(nrec * ninst, sizeof *v);
	for (size_t i = 0; i < nrec; i++) {
		d[i].structSize = sizeof d[i];
		d[i].pInstanceValues = v + i * ninst;
	}
	CUpti_SassMetricsFlushData_Params fp;
	memset(&fp, 0, sizeof fp);
	fp.structSize = CUpti_SassMetricsFlushData_Params_STRUCT_SIZE;
	fp.ctx = ctx;
	fp.numOfPatchedInstructionRecords = nrec;
	fp.numOfInstances = ninst;
	fp.pMetricsData = d;
	st = check(sl.FlushData(&fp), "cuptiSassMetricsFlushData", err, n);
	for (size_t i = 0; i < nrec; i++) {
		if (st == PROF_OK) {
			sp_pc *p = pc_at(s, d[i].functionName, d[i].pcOffset, SP_BY_COUNTERS);
			for (size_t j = 0; p && j < ninst; j++)
				for (int m = 0; m < SP_NMETRIC; m++)
					if (d[i].pInstanceValues[j].metricId == ids[m])
						p->m[m] += d[i].pInstanceValues[j].value;
		}
		free((void *)d[i].functionName); /* CUPTI's copy */
	}
	free(d);
	free(v);
	return st;
}

/* Patched: the config set (a device's first time), enabled, one launch,
 * flushed; then disabled whatever happened. */
static prof_status collect_metrics(pcset *s, CUcontext ctx, CUdevice dev, const sp_launch *l)
{
	sp_head *h = s->h;
	char *err = h->error;
	size_t n = sizeof h->error;
	prof_status st = begin(dev, CUPTI_PROFILER_SASS_METRICS, err, n);
	if (st != PROF_OK)
		return st;
	CUpti_Device_GetChipName_Params cn;
	memset(&cn, 0, sizeof cn);
	cn.structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE;
	cn.deviceIndex = (size_t)dev;
	if ((st = check(sl.ChipName(&cn), "cuptiDeviceGetChipName", err, n)) != PROF_OK)
		return st;
	CUpti_SassMetrics_Config cfg[SP_NMETRIC];
	uint64_t ids[SP_NMETRIC];
	for (int m = 0; m < SP_NMETRIC; m++) {
		CUpti_SassMetrics_GetProperties_Params gp;
		memset(&gp, 0, sizeof gp);
		gp.structSize = CUpti_SassMetrics_GetProperties_Params_STRUCT_SIZE;
		gp.pChipName = cn.pChipName;
		gp.pMetricName = sassprof_metrics[m];
		if (sl.GetProperties(&gp) != CUPTI_SUCCESS) {
			snprintf(err, n, "per-instruction metric '%s' does not exist on this GPU (%s)", sassprof_metrics[m],
			         cn.pChipName ? cn.pChipName : "?");
			return PROF_UNAVAILABLE;
		}
		ids[m] = gp.metric.metricId;
		memset(&cfg[m], 0, sizeof cfg[m]);
		cfg[m].metricId = ids[m];
		cfg[m].outputGranularity = CUPTI_SASS_METRICS_OUTPUT_GRANULARITY_GPU;
	}
	if (dev < 0 || dev >= SP_MAX_DEVICES) {
		snprintf(err, n, "per-instruction counters on device %d: only the first %d devices", (int)dev, SP_MAX_DEVICES);
		return PROF_UNAVAILABLE;
	}
	if ((st = prologue(l, err, n)) != PROF_OK)
		return st;
	if (!sl.configured[dev]) {
		CUpti_SassMetricsSetConfig_Params sc;
		memset(&sc, 0, sizeof sc);
		sc.structSize = CUpti_SassMetricsSetConfig_Params_STRUCT_SIZE;
		sc.numOfMetricConfig = SP_NMETRIC;
		sc.pConfigs = cfg;
		sc.deviceIndex = (uint32_t)dev;
		if ((st = check(sl.SetConfig(&sc), "cuptiSassMetricsSetConfig", err, n)) != PROF_OK)
			return st;
		sl.configured[dev] = 1;
	}
	CUpti_SassMetricsEnable_Params en;
	memset(&en, 0, sizeof en);
	en.structSize = CUpti_SassMetricsEnable_Params_STRUCT_SIZE;
	en.ctx = ctx;
	en.enableLazyPatching = 1; /* only what this launch runs */
	char scratch[512]; /* a teardown's error after the first: not reported */
	st = check(sl.Enable(&en), "cuptiSassMetricsEnable", err, n);
	if (st == PROF_OK) {
		uint64_t t0 = now_ns();
		double ms = 0;
		st = timed_launch(l, &ms, err, n);
		if (st == PROF_OK)
			st = flush_metrics(s, ctx, ids, err, n);
		h->metrics_ms = ms_since(t0);
		CUpti_SassMetricsDisable_Params dp;
		memset(&dp, 0, sizeof dp);
		dp.structSize = CUpti_SassMetricsDisable_Params_STRUCT_SIZE;
		dp.ctx = ctx;
		prof_status st1 = check(sl.Disable(&dp), "cuptiSassMetricsDisable", st == PROF_OK ? err : scratch, n);
		h->dropped_records = dp.numOfDroppedRecords;
		if (st == PROF_OK)
			st = st1;
	}
	return st;
}

/* ------------------------------------------------------------ PC sampling */

/* A parsed-data buffer for up to npcs instructions of nr reasons each. */
static CUpti_PCSamplingData *pcs_buffer(size_t npcs, size_t nr)
{
	CUpti_PCSamplingData *b = xcalloc(1, sizeof *b);
	b->size = sizeof *b;
	b->collectNumPcs = npcs;
	b->pPcData = xcalloc(npcs, sizeof *b->pPcData);
	for (size_t i = 0; i < npcs; i++) {
		b->pPcData[i].size = sizeof b->pPcData[i];
		b->pPcData[i].stallReason = xcalloc(nr ? nr : 1, sizeof *b->pPcData[i].stallReason);
	}
	return b;
}

static void pcs_buffer_free(CUpti_PCSamplingData *b, size_t npcs)
{
	if (!b)
		return;
	for (size_t i = 0; i < npcs; i++)
		free(b->pPcData[i].stallReason);
	free(b->pPcData);
	free(b);
}

/* A buffer's instructions added to the set: samples by reason (idx:
 * CUPTI's index of each reason in h->reasons; a reason not among them
 * still counts in the instruction's samples). The records' function
 * names are CUPTI's: not freed here (shared with its other records). */
static void pcs_merge(pcset *s, const CUpti_PCSamplingData *b, const uint32_t *idx, size_t nr)
{
	sp_head *h = s->h;
	h->total_samples += b->totalSamples;
	h->dropped_samples += b->droppedSamples;
	h->nonuser_samples += b->nonUsrKernelsTotalSamples;
	for (size_t i = 0; i < b->totalNumPcs && i < b->collectNumPcs; i++) {
		const CUpti_PCSamplingPCData *d = &b->pPcData[i];
		h->pc_records++;
		if (d->pcOffset > h->samp_pc_max)
			h->samp_pc_max = d->pcOffset;
		for (size_t j = 0; j < d->stallReasonCount && j < nr; j++)
			h->record_samples += d->stallReason[j].samples;
		sp_pc *p = pc_at(s, d->functionName, (uint32_t)d->pcOffset, SP_BY_SAMPLES);
		if (!p)
			continue;
		int k = (int)(p - s->pcs);
		if (!s->rn[k])
			s->rn[k] = xcalloc(nr ? nr : 1, sizeof *s->rn[k]);
		for (size_t j = 0; j < d->stallReasonCount && j < nr; j++) {
			size_t r = 0;
			while (r < nr && idx[r] != d->stallReason[j].pcSamplingStallReasonIndex)
				r++;
			if (r < nr)
				s->rn[k][r] += d->stallReason[j].samples;
			p->samples += d->stallReason[j].samples;
		}
	}
}

/* Each instruction's top reasons from its counts by reason. */
static void top_reasons(pcset *s, size_t nr)
{
	for (int k = 0; k < s->n; k++) {
		uint32_t *c = s->rn[k];
		sp_pc *p = &s->pcs[k];
		p->nreason = 0;
		for (int t = 0; c && t < SP_TOP; t++) {
			size_t best = nr;
			for (size_t r = 0; r < nr && r < SP_MAX_REASONS; r++)
				if (c[r] && (best == nr || c[r] > c[best]))
					best = r;
			if (best == nr)
				break;
			p->reason[t] = (uint16_t)best;
			p->reason_n[t] = c[best];
			p->nreason++;
			c[best] = 0;
		}
	}
}

/* The stall reasons' names and indices (*idx, caller frees). */
static prof_status stall_reasons(sp_head *h, CUcontext ctx, uint32_t **idx, size_t *nr, char *err, size_t n)
{
	prof_status st;
	size_t num = 0;
	CUpti_PCSamplingGetNumStallReasonsParams np;
	memset(&np, 0, sizeof np);
	np.size = CUpti_PCSamplingGetNumStallReasonsParamsSize;
	np.ctx = ctx;
	np.numStallReasons = &num;
	if ((st = check(sl.PcNumReasons(&np), "cuptiPCSamplingGetNumStallReasons", err, n)) != PROF_OK)
		return st;
	*idx = xcalloc(num ? num : 1, sizeof **idx);
	char **names = xcalloc(num ? num : 1, sizeof *names);
	for (size_t i = 0; i < num; i++)
		names[i] = xcalloc(1, CUPTI_STALL_REASON_STRING_SIZE);
	CUpti_PCSamplingGetStallReasonsParams rp;
	memset(&rp, 0, sizeof rp);
	rp.size = CUpti_PCSamplingGetStallReasonsParamsSize;
	rp.ctx = ctx;
	rp.numStallReasons = num;
	rp.stallReasonIndex = *idx;
	rp.stallReasons = names;
	st = check(sl.PcReasons(&rp), "cuptiPCSamplingGetStallReasons", err, n);
	if (num > SP_MAX_REASONS)
		num = SP_MAX_REASONS;
	for (size_t i = 0; i < num; i++) {
		names[i][CUPTI_STALL_REASON_STRING_SIZE - 1] = 0;
		snprintf(h->reasons[i], SP_REASON_NAME, "%s", st == PROF_OK ? names[i] : "");
	}
	for (size_t i = 0; i < rp.numStallReasons; i++)
		free(names[i]);
	free(names);
	h->nreasons = st == PROF_OK ? (int)num : 0;
	*nr = num;
	return st;
}

/* PC sampling's attributes: the period, every reason, one kernel at a
 * time, parsed records into buf. */
static prof_status pcs_configure(CUcontext ctx, int period, uint32_t *idx, size_t nr, CUpti_PCSamplingData *buf,
                                 char *err, size_t n)
{
	CUpti_PCSamplingConfigurationInfo a[5];
	memset(a, 0, sizeof a);
	a[0].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_PERIOD;
	a[0].attributeData.samplingPeriodData.samplingPeriod = (uint32_t)period;
	a[1].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_STALL_REASON;
	a[1].attributeData.stallReasonData.stallReasonCount = nr;
	a[1].attributeData.stallReasonData.pStallReasonIndex = idx;
	a[2].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_COLLECTION_MODE;
	a[2].attributeData.collectionModeData.collectionMode = CUPTI_PC_SAMPLING_COLLECTION_MODE_KERNEL_SERIALIZED;
	a[3].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_OUTPUT_DATA_FORMAT;
	a[3].attributeData.outputDataFormatData.outputDataFormat = CUPTI_PC_SAMPLING_OUTPUT_DATA_FORMAT_PARSED;
	a[4].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_DATA_BUFFER;
	a[4].attributeData.samplingDataBufferData.samplingDataBuffer = buf;
	CUpti_PCSamplingConfigurationInfoParams cp;
	memset(&cp, 0, sizeof cp);
	cp.size = CUpti_PCSamplingConfigurationInfoParamsSize;
	cp.ctx = ctx;
	cp.numAttributes = ARRAY_LEN(a);
	cp.pPCSamplingConfigurationInfo = a;
	return check(sl.PcSetAttr(&cp), "cuptiPCSamplingSetConfigurationAttribute", err, n);
}

#define PCS_BUF_PCS 8192

/* Sampled: enabled, configured, one launch, its records taken, disabled
 * (which flushes the rest into the configured buffer) whatever happened. */
static prof_status collect_samples(pcset *s, CUcontext ctx, CUdevice dev, const sp_launch *l, int period)
{
	sp_head *h = s->h;
	char *err = h->samp_error, scratch[512];
	size_t n = sizeof h->samp_error;
	prof_status st = begin(dev, CUPTI_PROFILER_PC_SAMPLING, err, n);
	if (st == PROF_OK)
		st = prologue(l, err, n);
	if (st != PROF_OK)
		return st;
	CUpti_PCSamplingEnableParams ep;
	memset(&ep, 0, sizeof ep);
	ep.size = CUpti_PCSamplingEnableParamsSize;
	ep.ctx = ctx;
	if ((st = check(sl.PcEnable(&ep), "cuptiPCSamplingEnable", err, n)) != PROF_OK)
		return st;
	uint32_t *idx = NULL;
	size_t nr = 0;
	CUpti_PCSamplingData *conf = NULL, *got = NULL;
	st = stall_reasons(h, ctx, &idx, &nr, err, n);
	if (st == PROF_OK) {
		conf = pcs_buffer(PCS_BUF_PCS, nr);
		got = pcs_buffer(PCS_BUF_PCS, nr);
		st = pcs_configure(ctx, period, idx, nr, conf, err, n);
	}
	if (st == PROF_OK && l->reload && l->reload(l->arg, err, n) != 0)
		st = PROF_ERROR;
	if (st == PROF_OK)
		st = timed_launch(l, &h->sampling_ms, err, n);
	/* the records of the kernel, a buffer at a time while more remain */
	for (int round = 0; st == PROF_OK && round < 64; round++) {
		CUpti_PCSamplingGetDataParams gd;
		memset(&gd, 0, sizeof gd);
		gd.size = CUpti_PCSamplingGetDataParamsSize;
		gd.ctx = ctx;
		gd.pcSamplingData = got;
		got->totalNumPcs = got->remainingNumPcs = 0;
		got->totalSamples = got->droppedSamples = got->nonUsrKernelsTotalSamples = 0;
		if ((st = check(sl.PcGetData(&gd), "cuptiPCSamplingGetData", err, n)) != PROF_OK)
			break;
		pcs_merge(s, got, idx, nr);
		if (got->remainingNumPcs == 0)
			break;
	}
	CUpti_PCSamplingDisableParams dp;
	memset(&dp, 0, sizeof dp);
	dp.size = CUpti_PCSamplingDisableParamsSize;
	dp.ctx = ctx;
	prof_status st1 = check(sl.PcDisable(&dp), "cuptiPCSamplingDisable", st == PROF_OK ? err : scratch, n);
	if (st == PROF_OK && (st = st1) == PROF_OK)
		pcs_merge(s, conf, idx, nr);
	if (st == PROF_OK)
		top_reasons(s, nr);
	pcs_buffer_free(conf, PCS_BUF_PCS);
	pcs_buffer_free(got, PCS_BUF_PCS);
	free(idx);
	return st;
}

/* ------------------------------------------------------------ entries */

prof_status sassprof_collect(CUcontext ctx, CUdevice dev, const sp_launch *l, int period, sp_head *h, sp_pc **pcs)
{
	memset(h, 0, sizeof *h);
	*pcs = NULL;
	if (load() != 0) {
		snprintf(h->error, sizeof h->error, "%s", sl.why ? sl.why : "CUPTI not loaded");
		snprintf(h->samp_error, sizeof h->samp_error, "%s", h->error);
		h->status = h->samp_status = PROF_UNAVAILABLE;
		return PROF_UNAVAILABLE;
	}
	pcset s = { h, NULL, 0, 0, NULL, 0, NULL };
	prof_status st = prologue(l, h->error, sizeof h->error);
	if (st == PROF_OK)
		st = timed_launch(l, &h->plain_ms, h->error, sizeof h->error);
	if (period < 5 || period > 31)
		period = sassprof_period(h->plain_ms);
	h->period = period;
	if (st == PROF_OK)
		st = h->status = collect_metrics(&s, ctx, dev, l);
	if (st != PROF_LAUNCH)
		st = h->samp_status = collect_samples(&s, ctx, dev, l, period);
	if (st == PROF_LAUNCH)
		h->status = h->samp_status = PROF_LAUNCH;
	for (int i = 0; i < s.n; i++)
		free(s.rn[i]);
	free(s.rn);
	free(s.slot);
	h->npc = s.n;
	*pcs = s.pcs;
	if (h->status == PROF_LAUNCH)
		return PROF_LAUNCH;
	return h->status == PROF_OK || h->samp_status == PROF_OK ? PROF_OK : (prof_status)h->status;
}

int sassprof_period(double ms)
{
	/* a sample every 2^p cycles of each of ~132 SMs at ~2 GHz: about two
	 * million samples in ms milliseconds at 2^p = 125 ms */
	int p = 5;
	while (p < 20 && (double)(1u << p) < ms * 125)
		p++;
	return p;
}

int sassprof_line(const void *cubin, size_t len, const char *func, uint32_t pc, char *file, int nfile, char *dir,
                  int ndir, int *line, char **err)
{
	if (load() != 0)
		return fail(err, "%s", sl.why ? sl.why : "CUPTI not loaded");
	CUpti_GetSassToSourceCorrelationParams p;
	memset(&p, 0, sizeof p);
	p.size = CUpti_GetSassToSourceCorrelationParamsSize;
	p.cubin = cubin;
	p.cubinSize = len;
	p.functionName = func;
	p.pcOffset = pc;
	CUptiResult r = sl.Correlate(&p);
	int found = r == CUPTI_SUCCESS && p.lineNumber > 0 && p.fileName;
	if (found) {
		snprintf(file, (size_t)nfile, "%s", p.fileName);
		snprintf(dir, (size_t)ndir, "%s", p.dirName ? p.dirName : "");
		*line = (int)p.lineNumber;
	}
	free(p.fileName); /* CUPTI's copies */
	free(p.dirName);
	return found;
}

void sassprof_shutdown(void)
{
	if (!sl.ok || !sl.initialized)
		return;
	for (int d = 0; d < SP_MAX_DEVICES; d++)
		if (sl.configured[d]) {
			CUpti_SassMetricsUnsetConfig_Params up;
			memset(&up, 0, sizeof up);
			up.structSize = CUpti_SassMetricsUnsetConfig_Params_STRUCT_SIZE;
			up.deviceIndex = (uint32_t)d;
			sl.UnsetConfig(&up); /* at exit: nothing to tell */
			sl.configured[d] = 0;
		}
	CUpti_Profiler_DeInitialize_Params dp;
	memset(&dp, 0, sizeof dp);
	dp.structSize = CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE;
	sl.DeInit(&dp);
	sl.initialized = 0;
}
