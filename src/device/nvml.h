/* nvml.h: the GPU's conditions around a measurement, from NVML
 * (libnvidia-ml.so.1, loaded with dlopen): SM and memory clocks,
 * temperature, power, and why the clocks are below their maximum
 * (power cap, thermal slowdown, ...), so a slow result can be explained.
 *
 * Nothing here stops anything: without NVML (no driver, a container
 * without the library, no permission) every call leaves `available` 0 and a
 * reason, and the caller carries on.
 *
 * Use, in the process that times kernels (the worker):
 *   nvml_dev d;  nvml_open(&d, ordinal, pci_bus_id);      once
 *   nvml_cond c; nvml_begin(&d, &c);  ...timed launches...  nvml_end(&d, &c);
 *   char w[200]; if (nvml_warning(&c, w, sizeof w)) print w;
 * nvml_cond is fixed-size with no pointers: it may travel in a result. */
#ifndef CUPLAY_NVML_H
#define CUPLAY_NVML_H

#include <stdint.h>

/* Clocks-event ("throttle") reason bits, as nvml.h numbers them. */
#define NVML_REASON_IDLE            0x1ULL
#define NVML_REASON_APP_CLOCKS      0x2ULL
#define NVML_REASON_SW_POWER_CAP    0x4ULL
#define NVML_REASON_HW_SLOWDOWN     0x8ULL
#define NVML_REASON_SYNC_BOOST      0x10ULL
#define NVML_REASON_SW_THERMAL      0x20ULL
#define NVML_REASON_HW_THERMAL      0x40ULL
#define NVML_REASON_HW_POWER_BRAKE  0x80ULL
#define NVML_REASON_DISPLAY_CLOCK   0x100ULL
#define NVML_REASON_BOARD_LIMIT     0x200ULL
#define NVML_REASON_RELIABILITY     0x400ULL
/* The reasons that slow a kernel down (idle, application clocks and the
 * display clock do not). */
#define NVML_REASONS_SLOW (NVML_REASON_SW_POWER_CAP | NVML_REASON_HW_SLOWDOWN | NVML_REASON_SYNC_BOOST | \
                           NVML_REASON_SW_THERMAL | NVML_REASON_HW_THERMAL | NVML_REASON_HW_POWER_BRAKE | \
                           NVML_REASON_BOARD_LIMIT | NVML_REASON_RELIABILITY)

typedef struct nvml_dev {
	void *handle;     /* nvmlDevice_t; NULL when unavailable */
	int ok;
	char why[160];    /* when !ok: "NVML not found (libnvidia-ml.so.1: ...)" */
} nvml_dev;

typedef struct nvml_cond {
	int32_t available;          /* 0: no figures; why says */
	char why[160];
	uint32_t sm_mhz, mem_mhz;   /* at the end of the window; 0 unknown */
	uint32_t sm_max_mhz;        /* the SM clock's maximum; 0 unknown */
	int32_t temp_c;             /* GPU temperature; -1 unknown */
	uint32_t power_mw;          /* board power draw; 0 unknown */
	uint64_t reasons;           /* clocks-event reasons at the end (NVML_REASON_*) */
	int32_t have_viol;          /* the throttle-time counters below are known */
	uint64_t viol_power_ns;     /* time held below its clocks by power, inside the window */
	uint64_t viol_thermal_ns;   /* ... by temperature */
	uint64_t window_ns;         /* nvml_begin .. nvml_end */
	/* nvml_begin's readings, for nvml_end */
	uint64_t t0_ns, v0_power, v0_thermal;
} nvml_cond;

/* Loads NVML once (nvmlInit) and finds the device: by PCI bus id when
 * pci_bus_id is given ("0000:1b:00.0", as nvml_pci_bus_id makes; it is the
 * right one under CUDA_VISIBLE_DEVICES), else by cuda_ordinal as an NVML
 * index. 0, or -1 with d->why; d is usable either way. */
int nvml_open(nvml_dev *d, int cuda_ordinal, const char *pci_bus_id);

/* "0000:1b:00.0" of a CUDA device from the driver's PCI attributes; 0, or
 * -1 when the driver (cudrv) is not loaded or does not say. */
int nvml_pci_bus_id(int cuda_ordinal, char *buf, int n);

/* Readings at the start and at the end of a measurement. nvml_end fills
 * clocks, temperature, power, reasons and the throttle time in between. */
void nvml_begin(const nvml_dev *d, nvml_cond *c);
void nvml_end(const nvml_dev *d, nvml_cond *c);
/* Begin and end at once: the conditions now (for `info` or `device`). */
void nvml_now(const nvml_dev *d, nvml_cond *c);

/* The slowing reasons seen: those set at the end, plus power or thermal
 * when their throttle time grew inside the window. */
uint64_t nvml_slow_reasons(const nvml_cond *c);

/* "power cap, thermal slowdown" for reason bits (all of them, slowing or
 * not); "none" for 0. */
void nvml_reasons_text(uint64_t reasons, char *buf, int n);

/* When the measurement was slowed: writes a line like
 * "throttled: thermal slowdown (SM 1410 of 1980 MHz, 84 C)" or
 * "throttled: power cap for 35% of the run (SM 1755 of 1980 MHz, 71 C)"
 * and returns 1; else writes "" and returns 0. */
int nvml_warning(const nvml_cond *c, char *buf, int n);

/* "SM 1980 MHz (max 1980), memory 2619 MHz, 45 C, 120 W", or
 * "conditions unknown: <why>". */
void nvml_describe(const nvml_cond *c, char *buf, int n);

/* nvmlShutdown, once the process is done with NVML. */
void nvml_close(void);

#endif
