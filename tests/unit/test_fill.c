/* test_fill.c: the GPU fill's kernels (server_fill.c) without a GPU: the
 * PTX assembles with the toolkit's ptxas for the oldest and a new target
 * (skipped, said so, where ptxas is absent); every type the kernels fill
 * has its kernel; and the kernels' arithmetic, done here step by step as
 * the PTX does it (float operations where the PTX has them, the bfloat16
 * as the top half of its float), gives the very bits buffer_fill writes. */
#include "test.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buffer.h"
#include "gpufill.h"

static const char *ptxas_path(void)
{
	const char *env = getenv("PTXAS");
	if (env && env[0])
		return env;
	return "/usr/local/cuda/bin/ptxas";
}

TEST(ptx_assembles)
{
	const char *ptxas = ptxas_path();
	if (access(ptxas, X_OK) != 0) {
		printf("test_fill: skipped: no ptxas at %s (PTXAS=path to name one)\n", ptxas);
		return;
	}
	char dir[] = "/tmp/cuplay-fill-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	char src[128];
	snprintf(src, sizeof src, "%s/fill.ptx", dir);
	FILE *f = fopen(src, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fputs(fill_ptx, f);
	fclose(f);
	/* the PTX's own target, where this ptxas still knows it (CUDA 13
	 * dropped sm_50), and newer ones; at least one must assemble */
	const char *archs[] = { "sm_50", "sm_75", "sm_90" };
	int assembled = 0;
	for (size_t i = 0; i < ARRAY_LEN(archs); i++) {
		char cmd[768], out[160], err[160];
		snprintf(out, sizeof out, "%s/fill_%s.cubin", dir, archs[i]);
		snprintf(err, sizeof err, "%s/err", dir);
		snprintf(cmd, sizeof cmd, "'%s' -arch=%s -o '%s' '%s' 2>'%s'", ptxas, archs[i], out, src, err);
		int st = system(cmd);
		char *msg = NULL;
		size_t len = 0;
		if (read_file(err, &msg, &len) != 0)
			msg = NULL;
		if (st != 0 && msg && strstr(msg, "is not defined for option")) {
			printf("test_fill: skipped %s: this ptxas does not know it\n", archs[i]);
		} else {
			if (st != 0)
				fprintf(stderr, "test_fill: '%s' failed (status %d):\n%s\n", cmd, st, msg ? msg : "");
			CHECK(st == 0);
			CHECK(access(out, R_OK) == 0);
			assembled += st == 0;
		}
		free(msg);
		unlink(out);
		unlink(err);
	}
	CHECK(assembled >= 1);
	unlink(src);
	rmdir(dir);
}

TEST(kernels)
{
	/* every scalar and vector type has a kernel, and the PTX has it */
	for (int t = 0; t < DT__COUNT; t++) {
		int k = fill_kernel_of((dtype)t);
		CHECK(k >= 0 && k < FILL_KERNELS);
		const char *name = fill_kernel_name(k);
		CHECK(name != NULL);
		if (!name)
			continue;
		char entry[96];
		snprintf(entry, sizeof entry, ".entry %s(", name);
		CHECK(strstr(fill_ptx, entry) != NULL);
	}
	CHECK(fill_kernel_name(-1) == NULL);
	CHECK(fill_kernel_name(FILL_KERNELS) == NULL);
	CHECK(fill_kernel_of(DT__COUNT) == -1);
	/* the same store width and conversion share a kernel */
	CHECK(fill_kernel_of(DT_INT) == fill_kernel_of(DT_UNSIGNED));
	CHECK(fill_kernel_of(DT_FLOAT4) == fill_kernel_of(DT_FLOAT));
	CHECK(fill_kernel_of(DT_LONG) != fill_kernel_of(DT_U64));
	CHECK(strstr(fill_ptx, ".version 6.0\n.target sm_50\n") == fill_ptx);
}

static uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Element i as the kernel of type t computes and stores it, into dst. */
static void kernel_elem(dtype t, uint64_t seed, uint64_t i, void *dst)
{
	uint64_t r = mix64(seed + (i + 1) * 0x9e3779b97f4a7c15ull);
	volatile float f; /* each float operation rounded on its own, as .rn */
	switch (t) {
	case DT_FLOAT:
		f = (float)(r >> 40);
		f = f * 0x1p-23f;
		f = f - 1.0f;
		memcpy(dst, (const void *)&f, 4);
		break;
	case DT_DOUBLE: {
		volatile double d = (double)(r >> 11);
		d = d * 0x1p-52;
		d = d - 1.0;
		memcpy(dst, (const void *)&d, 8);
		break;
	}
	case DT_INT: case DT_UNSIGNED: {
		uint32_t v = (uint32_t)(r >> 32);
		memcpy(dst, &v, 4);
		break;
	}
	case DT_LONG: {
		int64_t v = (int32_t)(uint32_t)(r >> 32);
		memcpy(dst, &v, 8);
		break;
	}
	case DT_U64: {
		uint64_t v = r >> 32;
		memcpy(dst, &v, 8);
		break;
	}
	case DT_I16: case DT_U16: {
		uint16_t v = (uint16_t)(r >> 48);
		memcpy(dst, &v, 2);
		break;
	}
	case DT_I8: case DT_U8: {
		uint8_t v = (uint8_t)(r >> 56);
		memcpy(dst, &v, 1);
		break;
	}
	case DT_HALF: {
		f = (float)(r >> 53);
		f = f * 0x1p-10f;
		f = f - 1.0f;
		/* cvt.rn.f16.f32 of a value half holds: exactly that value */
		float g = f;
		uint16_t h = float_to_half(g);
		CHECK(half_to_float(h) == g);
		memcpy(dst, &h, 2);
		break;
	}
	case DT_BF16: {
		f = (float)(r >> 56);
		f = f * 0x1p-7f;
		f = f - 1.0f;
		uint32_t u;
		memcpy(&u, (const void *)&f, 4);
		CHECK((u & 0xffff) == 0); /* exact in bfloat16: the top half is the value */
		uint16_t h = (uint16_t)(u >> 16);
		memcpy(dst, &h, 2);
		break;
	}
	case DT_E4M3: case DT_E5M2: {
		/* the kernel's table: the format's bytes of k / 16 - 1 (k / 8 - 1) */
		int e4 = t == DT_E4M3;
		unsigned k = (unsigned)(r >> (e4 ? 59 : 60));
		float v = (float)k * (e4 ? 0.0625f : 0.125f) - 1.0f;
		uint8_t b = e4 ? float_to_e4m3(v) : float_to_e5m2(v);
		CHECK((e4 ? e4m3_to_float(b) : e5m2_to_float(b)) == v); /* exact in the format */
		const char *tab = strstr(fill_ptx, e4 ? "cuplay_e4m3[32] = {" : "cuplay_e5m2[16] = {");
		CHECK(tab != NULL);
		if (tab) {
			tab = strchr(tab, '{') + 1;
			for (unsigned j = 0; j < k; j++)
				tab = strchr(tab, ',') + 1;
			CHECK(strtol(tab, NULL, 10) == b);
		}
		memcpy(dst, &b, 1);
		break;
	}
	default:
		break;
	}
}

TEST(same_bits)
{
	static const dtype types[] = { DT_FLOAT, DT_DOUBLE, DT_INT, DT_UNSIGNED, DT_LONG, DT_U64,
	                               DT_I16, DT_U16, DT_I8, DT_U8, DT_HALF, DT_BF16, DT_E4M3, DT_E5M2 };
	const uint64_t n = 100003;
	for (size_t k = 0; k < ARRAY_LEN(types); k++) {
		dtype t = types[k];
		size_t es = dtype_size(t);
		for (uint64_t s = 0; s < 3; s++) {
			uint64_t seed = buffer_seed(s * 977, k % 2 ? "in" : "a");
			unsigned char *host = malloc(n * es), *dev = malloc(n * es);
			buffer_fill(host, t, n, INIT_RANDOM, 0, seed);
			for (uint64_t i = 0; i < n; i++)
				kernel_elem(t, seed, i, dev + i * es);
			int same = memcmp(host, dev, n * es) == 0;
			if (!same)
				fprintf(stderr, "test_fill: type %s, seed %llu: the kernel's arithmetic differs\n",
				        dtype_name(t), (unsigned long long)seed);
			CHECK(same);
			free(host);
			free(dev);
		}
	}
}

int main(void)
{
	RUN(ptx_assembles);
	RUN(kernels);
	RUN(same_bits);
	return test_report("fill");
}
