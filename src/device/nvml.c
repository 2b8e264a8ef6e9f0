/* nvml.c: clocks, temperature and throttle reasons through NVML (dlopen). */
#include "nvml.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "cudrv.h"
#include "util.h"

/* Declared here so that building needs no nvml.h; values from nvml.h. */
typedef int nvmlReturn_t;
typedef struct nvmlDevice_st *nvmlDevice_t;
typedef struct {
	unsigned long long referenceTime; /* us */
	unsigned long long violationTime; /* ns */
} nvmlViolationTime_t;
typedef struct {
	unsigned int version;
	int sensorType;
	int temperature;
} nvmlTemperature_v1_t;

enum {
	NVML_SUCCESS = 0,
	NVML_CLOCK_SM = 1,
	NVML_CLOCK_MEM = 2,
	NVML_TEMPERATURE_GPU = 0,
	NVML_PERF_POLICY_POWER = 0,
	NVML_PERF_POLICY_THERMAL = 1
};
#define NVML_TEMPERATURE_V1 ((unsigned int)(sizeof(nvmlTemperature_v1_t) | (1u << 24)))

static struct {
	void *lib;
	int tried, inited;
	char why[160];
	nvmlReturn_t (*Init)(void);
	nvmlReturn_t (*Shutdown)(void);
	const char *(*ErrorString)(nvmlReturn_t);
	nvmlReturn_t (*ByIndex)(unsigned int, nvmlDevice_t *);
	nvmlReturn_t (*ByPciBusId)(const char *, nvmlDevice_t *);
	nvmlReturn_t (*ClockInfo)(nvmlDevice_t, int, unsigned int *);
	nvmlReturn_t (*MaxClockInfo)(nvmlDevice_t, int, unsigned int *);
	nvmlReturn_t (*TemperatureV)(nvmlDevice_t, nvmlTemperature_v1_t *);
	nvmlReturn_t (*Temperature)(nvmlDevice_t, int, unsigned int *);
	nvmlReturn_t (*EventReasons)(nvmlDevice_t, unsigned long long *);
	nvmlReturn_t (*ThrottleReasons)(nvmlDevice_t, unsigned long long *);
	nvmlReturn_t (*PowerUsage)(nvmlDevice_t, unsigned int *);
	nvmlReturn_t (*Violation)(nvmlDevice_t, int, nvmlViolationTime_t *);
} nv;

static void sym(void *lib, const char *name, void *slot)
{
	void *p = dlsym(lib, name);
	memcpy(slot, &p, sizeof p); /* object pointer into a function pointer slot */
}

static const char *nv_err(nvmlReturn_t r)
{
	const char *s = nv.ErrorString ? nv.ErrorString(r) : NULL;
	return s ? s : "unknown error";
}

/* Loads and initialises NVML once; 0 or -1 (nv.why says why). */
static int load(void)
{
	if (nv.tried)
		return nv.inited ? 0 : -1;
	nv.tried = 1;
	dlerror();
	void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		const char *e = dlerror();
		snprintf(nv.why, sizeof nv.why, "NVML not found (%s)", e ? e : "libnvidia-ml.so.1");
		return -1;
	}
	nv.lib = lib;
	sym(lib, "nvmlInit_v2", &nv.Init);
	sym(lib, "nvmlShutdown", &nv.Shutdown);
	sym(lib, "nvmlErrorString", &nv.ErrorString);
	sym(lib, "nvmlDeviceGetHandleByIndex_v2", &nv.ByIndex);
	sym(lib, "nvmlDeviceGetHandleByPciBusId_v2", &nv.ByPciBusId);
	sym(lib, "nvmlDeviceGetClockInfo", &nv.ClockInfo);
	sym(lib, "nvmlDeviceGetMaxClockInfo", &nv.MaxClockInfo);
	sym(lib, "nvmlDeviceGetTemperatureV", &nv.TemperatureV);
	sym(lib, "nvmlDeviceGetTemperature", &nv.Temperature);
	sym(lib, "nvmlDeviceGetCurrentClocksEventReasons", &nv.EventReasons);
	sym(lib, "nvmlDeviceGetCurrentClocksThrottleReasons", &nv.ThrottleReasons);
	sym(lib, "nvmlDeviceGetPowerUsage", &nv.PowerUsage);
	sym(lib, "nvmlDeviceGetViolationStatus", &nv.Violation);
	if (!nv.Init || !nv.ByIndex || !nv.ClockInfo) {
		snprintf(nv.why, sizeof nv.why, "NVML too old: no '%s' in libnvidia-ml.so.1",
		         !nv.Init ? "nvmlInit_v2" : !nv.ByIndex ? "nvmlDeviceGetHandleByIndex_v2" : "nvmlDeviceGetClockInfo");
		return -1;
	}
	nvmlReturn_t r = nv.Init();
	if (r != NVML_SUCCESS) {
		snprintf(nv.why, sizeof nv.why, "nvmlInit failed: %s", nv_err(r));
		return -1;
	}
	nv.inited = 1;
	return 0;
}

int nvml_open(nvml_dev *d, int cuda_ordinal, const char *pci_bus_id)
{
	memset(d, 0, sizeof *d);
	if (load() != 0) {
		snprintf(d->why, sizeof d->why, "%s", nv.why);
		return -1;
	}
	nvmlDevice_t h = NULL;
	nvmlReturn_t r = -1;
	if (pci_bus_id && *pci_bus_id && nv.ByPciBusId)
		r = nv.ByPciBusId(pci_bus_id, &h);
	if (r != NVML_SUCCESS) {
		if (cuda_ordinal < 0) {
			snprintf(d->why, sizeof d->why, "no NVML device for '%s'", pci_bus_id ? pci_bus_id : "?");
			return -1;
		}
		r = nv.ByIndex((unsigned int)cuda_ordinal, &h);
		if (r != NVML_SUCCESS) {
			snprintf(d->why, sizeof d->why, "no NVML device %d: %s", cuda_ordinal, nv_err(r));
			return -1;
		}
	}
	d->handle = h;
	d->ok = 1;
	return 0;
}

int nvml_pci_bus_id(int cuda_ordinal, char *buf, int n)
{
	if (n > 0)
		buf[0] = 0;
	if (!cu_loaded())
		return -1;
	CUdevice dev;
	int dom = 0, bus = 0, slot = 0;
	if (cu.DeviceGet(&dev, cuda_ordinal) != CUDA_SUCCESS ||
	    cu.DeviceGetAttribute(&dom, 50 /* CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID */, dev) != CUDA_SUCCESS ||
	    cu.DeviceGetAttribute(&bus, 33 /* CU_DEVICE_ATTRIBUTE_PCI_BUS_ID */, dev) != CUDA_SUCCESS ||
	    cu.DeviceGetAttribute(&slot, 34 /* CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID */, dev) != CUDA_SUCCESS)
		return -1;
	snprintf(buf, (size_t)n, "%04x:%02x:%02x.0", (unsigned)dom, (unsigned)bus, (unsigned)slot);
	return 0;
}

static int violation(nvmlDevice_t h, int policy, uint64_t *ns)
{
	nvmlViolationTime_t v;
	memset(&v, 0, sizeof v);
	if (!nv.Violation || nv.Violation(h, policy, &v) != NVML_SUCCESS)
		return -1;
	*ns = v.violationTime;
	return 0;
}

static int unavailable(const nvml_dev *d, nvml_cond *c)
{
	if (d && d->ok && d->handle)
		return 0;
	c->available = 0;
	snprintf(c->why, sizeof c->why, "%s", d && d->why[0] ? d->why : "NVML not opened");
	c->temp_c = -1;
	return 1;
}

void nvml_begin(const nvml_dev *d, nvml_cond *c)
{
	memset(c, 0, sizeof *c);
	c->temp_c = -1;
	if (unavailable(d, c))
		return;
	nvmlDevice_t h = d->handle;
	c->t0_ns = now_ns();
	c->have_viol = violation(h, NVML_PERF_POLICY_POWER, &c->v0_power) == 0 &&
	               violation(h, NVML_PERF_POLICY_THERMAL, &c->v0_thermal) == 0;
}

void nvml_end(const nvml_dev *d, nvml_cond *c)
{
	if (unavailable(d, c))
		return;
	nvmlDevice_t h = d->handle;
	unsigned int v = 0;
	c->available = 1;
	c->why[0] = 0;
	if (c->t0_ns)
		c->window_ns = now_ns() - c->t0_ns;
	if (nv.ClockInfo(h, NVML_CLOCK_SM, &v) == NVML_SUCCESS)
		c->sm_mhz = v;
	if (nv.ClockInfo(h, NVML_CLOCK_MEM, &v) == NVML_SUCCESS)
		c->mem_mhz = v;
	if (nv.MaxClockInfo && nv.MaxClockInfo(h, NVML_CLOCK_SM, &v) == NVML_SUCCESS)
		c->sm_max_mhz = v;
	nvmlTemperature_v1_t t;
	memset(&t, 0, sizeof t);
	t.version = NVML_TEMPERATURE_V1;
	t.sensorType = NVML_TEMPERATURE_GPU;
	if (nv.TemperatureV && nv.TemperatureV(h, &t) == NVML_SUCCESS)
		c->temp_c = t.temperature;
	else if (nv.Temperature && nv.Temperature(h, NVML_TEMPERATURE_GPU, &v) == NVML_SUCCESS)
		c->temp_c = (int32_t)v;
	if (nv.PowerUsage && nv.PowerUsage(h, &v) == NVML_SUCCESS)
		c->power_mw = v;
	unsigned long long r = 0;
	if ((nv.EventReasons && nv.EventReasons(h, &r) == NVML_SUCCESS) ||
	    (nv.ThrottleReasons && nv.ThrottleReasons(h, &r) == NVML_SUCCESS))
		c->reasons = r;
	uint64_t p = 0, th = 0;
	if (c->have_viol && violation(h, NVML_PERF_POLICY_POWER, &p) == 0 &&
	    violation(h, NVML_PERF_POLICY_THERMAL, &th) == 0) {
		c->viol_power_ns = p >= c->v0_power ? p - c->v0_power : 0;
		c->viol_thermal_ns = th >= c->v0_thermal ? th - c->v0_thermal : 0;
	} else {
		c->have_viol = 0;
	}
}

void nvml_now(const nvml_dev *d, nvml_cond *c)
{
	nvml_begin(d, c);
	nvml_end(d, c);
	c->have_viol = 0;
	c->viol_power_ns = c->viol_thermal_ns = 0;
}

uint64_t nvml_slow_reasons(const nvml_cond *c)
{
	if (!c->available)
		return 0;
	uint64_t r = c->reasons & NVML_REASONS_SLOW;
	if (c->have_viol && c->viol_power_ns > 0)
		r |= NVML_REASON_SW_POWER_CAP;
	if (c->have_viol && c->viol_thermal_ns > 0)
		r |= NVML_REASON_SW_THERMAL;
	return r;
}

static const struct {
	uint64_t bit;
	const char *name;
} reason_names[] = {
	{ NVML_REASON_SW_POWER_CAP, "power cap" },
	{ NVML_REASON_SW_THERMAL, "thermal slowdown" },
	{ NVML_REASON_HW_THERMAL, "hardware thermal slowdown" },
	{ NVML_REASON_HW_SLOWDOWN, "hardware slowdown" },
	{ NVML_REASON_HW_POWER_BRAKE, "power brake" },
	{ NVML_REASON_BOARD_LIMIT, "board limit" },
	{ NVML_REASON_RELIABILITY, "reliability limit" },
	{ NVML_REASON_SYNC_BOOST, "sync boost" },
	{ NVML_REASON_IDLE, "idle" },
	{ NVML_REASON_APP_CLOCKS, "application clocks" },
	{ NVML_REASON_DISPLAY_CLOCK, "display clock" },
};

void nvml_reasons_text(uint64_t reasons, char *buf, int n)
{
	sbuf b = {0};
	for (size_t i = 0; i < ARRAY_LEN(reason_names); i++)
		if (reasons & reason_names[i].bit)
			sb_printf(&b, "%s%s", b.len ? ", " : "", reason_names[i].name);
	uint64_t known = 0;
	for (size_t i = 0; i < ARRAY_LEN(reason_names); i++)
		known |= reason_names[i].bit;
	if (reasons & ~known)
		sb_printf(&b, "%sother (0x%llx)", b.len ? ", " : "", (unsigned long long)(reasons & ~known));
	snprintf(buf, (size_t)n, "%s", b.len ? b.s : "none");
	sb_free(&b);
}

/* " (SM 1410 of 1980 MHz, 84 C)" */
static void clocks_temp(sbuf *b, const nvml_cond *c)
{
	int any = 0;
	sb_puts(b, " (");
	if (c->sm_mhz) {
		if (c->sm_max_mhz && c->sm_max_mhz != c->sm_mhz)
			sb_printf(b, "SM %u of %u MHz", c->sm_mhz, c->sm_max_mhz);
		else
			sb_printf(b, "SM %u MHz", c->sm_mhz);
		any = 1;
	}
	if (c->temp_c >= 0) {
		sb_printf(b, "%s%d C", any ? ", " : "", c->temp_c);
		any = 1;
	}
	if (!any)
		b->len -= 2, b->s[b->len] = 0;
	else
		sb_putc(b, ')');
}

int nvml_warning(const nvml_cond *c, char *buf, int n)
{
	uint64_t slow = nvml_slow_reasons(c);
	if (n > 0)
		buf[0] = 0;
	if (!slow)
		return 0;
	sbuf b = {0};
	char names[256];
	nvml_reasons_text(slow, names, sizeof names);
	sb_printf(&b, "throttled: %s", names);
	/* how much of the window, when the counters say */
	uint64_t held = c->viol_power_ns > c->viol_thermal_ns ? c->viol_power_ns : c->viol_thermal_ns;
	if (c->have_viol && held > 0 && c->window_ns > 0) {
		double frac = (double)held / (double)c->window_ns;
		if (frac > 1)
			frac = 1;
		sb_printf(&b, " for %.0f%% of the run", frac * 100);
	}
	clocks_temp(&b, c);
	snprintf(buf, (size_t)n, "%s", b.s);
	sb_free(&b);
	return 1;
}

void nvml_describe(const nvml_cond *c, char *buf, int n)
{
	if (!c->available) {
		snprintf(buf, (size_t)n, "conditions unknown: %s", c->why[0] ? c->why : "no NVML reading");
		return;
	}
	sbuf b = {0};
	if (c->sm_mhz) {
		sb_printf(&b, "SM %u MHz", c->sm_mhz);
		if (c->sm_max_mhz)
			sb_printf(&b, " (max %u)", c->sm_max_mhz);
	}
	if (c->mem_mhz)
		sb_printf(&b, "%smemory %u MHz", b.len ? ", " : "", c->mem_mhz);
	if (c->temp_c >= 0)
		sb_printf(&b, "%s%d C", b.len ? ", " : "", c->temp_c);
	if (c->power_mw)
		sb_printf(&b, "%s%.0f W", b.len ? ", " : "", c->power_mw / 1000.0);
	uint64_t slow = nvml_slow_reasons(c);
	if (slow) {
		char names[256];
		nvml_reasons_text(slow, names, sizeof names);
		sb_printf(&b, "%sslowed by %s", b.len ? ", " : "", names);
	}
	snprintf(buf, (size_t)n, "%s", b.len ? b.s : "no figures");
	sb_free(&b);
}

void nvml_close(void)
{
	if (nv.inited && nv.Shutdown)
		nv.Shutdown();
	nv.inited = 0;
	/* the library stays mapped: handles may still be held by callers */
}
