/* test_nvml.c: GPU conditions: the warning and description lines from
 * readings, and NVML itself where it exists (never an error without it). */
#include "test.h"

#include <string.h>

#include "nvml.h"

static nvml_cond reading(uint32_t sm, uint32_t sm_max, int temp, uint64_t reasons)
{
	nvml_cond c;
	memset(&c, 0, sizeof c);
	c.available = 1;
	c.sm_mhz = sm;
	c.sm_max_mhz = sm_max;
	c.mem_mhz = 2619;
	c.temp_c = temp;
	c.power_mw = 312400;
	c.reasons = reasons;
	return c;
}

TEST(reasons)
{
	char buf[256];
	nvml_reasons_text(0, buf, sizeof buf);
	CHECK_STREQ(buf, "none");
	nvml_reasons_text(NVML_REASON_SW_THERMAL, buf, sizeof buf);
	CHECK_STREQ(buf, "thermal slowdown");
	nvml_reasons_text(NVML_REASON_SW_POWER_CAP | NVML_REASON_HW_THERMAL | NVML_REASON_IDLE, buf, sizeof buf);
	CHECK_STREQ(buf, "power cap, hardware thermal slowdown, idle");
	nvml_reasons_text(0x10000 | NVML_REASON_BOARD_LIMIT, buf, sizeof buf);
	CHECK_STREQ(buf, "board limit, other (0x10000)");

	/* idle, application clocks and the display clock do not slow a kernel */
	nvml_cond c = reading(1980, 1980, 40, NVML_REASON_IDLE | NVML_REASON_APP_CLOCKS | NVML_REASON_DISPLAY_CLOCK);
	CHECK(nvml_slow_reasons(&c) == 0);
	c.reasons |= NVML_REASON_HW_SLOWDOWN;
	CHECK(nvml_slow_reasons(&c) == NVML_REASON_HW_SLOWDOWN);
	c.available = 0;
	CHECK(nvml_slow_reasons(&c) == 0);
}

TEST(warning)
{
	char buf[256];
	nvml_cond c = reading(1980, 1980, 45, 0);
	CHECK(nvml_warning(&c, buf, sizeof buf) == 0);
	CHECK_STREQ(buf, "");

	c = reading(1410, 1980, 84, NVML_REASON_SW_THERMAL);
	CHECK(nvml_warning(&c, buf, sizeof buf) == 1);
	CHECK_STREQ(buf, "throttled: thermal slowdown (SM 1410 of 1980 MHz, 84 C)");

	/* throttle time inside the window counts though the reason is gone at the end */
	c = reading(1755, 1755, 71, 0);
	c.have_viol = 1;
	c.window_ns = 200000000;
	c.viol_power_ns = 70000000;
	CHECK(nvml_warning(&c, buf, sizeof buf) == 1);
	CHECK_STREQ(buf, "throttled: power cap for 35% of the run (SM 1755 MHz, 71 C)");

	/* nothing known but the reason */
	c = reading(0, 0, -1, NVML_REASON_HW_POWER_BRAKE);
	CHECK(nvml_warning(&c, buf, sizeof buf) == 1);
	CHECK_STREQ(buf, "throttled: power brake");

	/* unavailable: never a warning */
	memset(&c, 0, sizeof c);
	CHECK(nvml_warning(&c, buf, sizeof buf) == 0);
}

TEST(describe)
{
	char buf[256];
	nvml_cond c = reading(1980, 1980, 45, 0);
	nvml_describe(&c, buf, sizeof buf);
	CHECK_STREQ(buf, "SM 1980 MHz (max 1980), memory 2619 MHz, 45 C, 312 W");
	c = reading(1410, 1980, 84, NVML_REASON_SW_THERMAL | NVML_REASON_IDLE);
	nvml_describe(&c, buf, sizeof buf);
	CHECK_STREQ(buf, "SM 1410 MHz (max 1980), memory 2619 MHz, 84 C, 312 W, slowed by thermal slowdown");
	memset(&c, 0, sizeof c);
	snprintf(c.why, sizeof c.why, "NVML not found (x)");
	nvml_describe(&c, buf, sizeof buf);
	CHECK_STREQ(buf, "conditions unknown: NVML not found (x)");
}

/* The real library, where there is one; a clear reason where not. */
TEST(library)
{
	nvml_dev d;
	int rc = nvml_open(&d, 0, NULL);
	nvml_cond c;
	if (rc != 0) {
		CHECK(!d.ok && d.why[0]);
		nvml_begin(&d, &c);
		nvml_end(&d, &c);
		CHECK(!c.available && strcmp(c.why, d.why) == 0);
		printf("nvml: not here (%s)\n", d.why);
		/* a second open says the same, without retrying dlopen */
		nvml_dev d2;
		CHECK(nvml_open(&d2, 0, NULL) == -1 && strcmp(d2.why, d.why) == 0);
		char bus[32];
		CHECK(nvml_pci_bus_id(0, bus, sizeof bus) == -1 && bus[0] == 0);
		return;
	}
	CHECK(d.ok && d.handle);
	nvml_now(&d, &c);
	CHECK(c.available && c.sm_mhz > 0 && c.temp_c >= 0);
	char buf[256];
	nvml_describe(&c, buf, sizeof buf);
	printf("nvml: %s\n", buf);
	/* a bus id that is not there falls back to the index */
	nvml_dev d2;
	CHECK(nvml_open(&d2, 0, "ffff:ff:1f.0") == 0);
	nvml_close();
}

int main(void)
{
	RUN(reasons);
	RUN(warning);
	RUN(describe);
	RUN(library);
	return test_report("nvml");
}
