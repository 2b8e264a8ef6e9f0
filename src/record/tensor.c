/* tensor.c: the precisions, the datasheet's peaks, a kernel's tensor-core
 * instructions. */
#include "tensor.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static const char *const prec_names[PIPE_N] = { "FP16", "BF16", "TF32", "INT8", "FP8", "FP32" };
static const char *const prec_keys[PIPE_N] = { "fp16", "bf16", "tf32", "int8", "fp8", "fp32" };

const char *tensor_prec_name(int p)
{
	return p >= 0 && p < PIPE_N ? prec_names[p] : "-";
}

const char *tensor_prec_key(int p)
{
	return p >= 0 && p < PIPE_N ? prec_keys[p] : "-";
}

const char *tensor_kind_name(int k)
{
	switch (k) {
	case TK_WMMA: return "wmma";
	case TK_MMA: return "mma.sync";
	case TK_WGMMA: return "wgmma";
	default: return "none";
	}
}

int tensor_prec_find(const char *name)
{
	for (int p = 0; p < PIPE_N; p++)
		if (strcasecmp(name, prec_names[p]) == 0)
			return p;
	return -1;
}

/* ------------------------------------------------------------ datasheets */

/* Dense (no structured sparsity) peaks in TFLOP/s (TOP/s for INT8), in the
 * order FP16, BF16, TF32, INT8, FP8, FP32, as NVIDIA's datasheets print
 * them (their tensor figures are "with sparsity": halved here). A device
 * matches by the words in its name and its SM count; a product the table
 * does not hold has no datasheet figure (unknown, never a guess). */
static const struct sheet {
	const char *has, *lacks; /* words the name holds and lacks (NULL: none) */
	int sms;
	double tflops[PIPE_N];
	const char *source;
} sheets[] = {
	{ "H100 PCIe", NULL, 114, { 756.5, 756.5, 378, 1513, 1513, 51.2 },
	  "NVIDIA H100 Tensor Core GPU datasheet, H100 PCIe column, dense" },
	{ "H100 NVL", NULL, 132, { 835.5, 835.5, 417.5, 1670.5, 1670.5, 60 },
	  "NVIDIA H100 Tensor Core GPU datasheet, H100 NVL column, dense" },
	{ "H100", "PCIe NVL", 132, { 989.4, 989.4, 494.7, 1978.9, 1978.9, 66.9 },
	  "NVIDIA H100 Tensor Core GPU datasheet, H100 SXM column, dense" },
	{ "H200 NVL", NULL, 132, { 835.5, 835.5, 417.5, 1670.5, 1670.5, 60 },
	  "NVIDIA H200 Tensor Core GPU datasheet, H200 NVL column, dense" },
	{ "H200", "NVL", 132, { 989.5, 989.5, 494.5, 1979, 1979, 67 },
	  "NVIDIA H200 Tensor Core GPU datasheet, H200 SXM column, dense" },
	{ "A100", NULL, 108, { 312, 312, 156, 624, 0, 19.5 },
	  "NVIDIA A100 Tensor Core GPU datasheet, dense" },
	{ "L40S", NULL, 142, { 362.05, 362.05, 183, 733, 733, 91.6 },
	  "NVIDIA L40S GPU datasheet, dense" },
};

/* 1 when every blank-separated word of words is (is not, want 0) in name. */
static int words_in(const char *name, const char *words, int want)
{
	if (!words)
		return 1;
	char w[32];
	for (const char *p = words; *p;) {
		size_t n = strcspn(p, " ");
		if (n >= sizeof w)
			n = sizeof w - 1;
		memcpy(w, p, n);
		w[n] = 0;
		if ((strstr(name, w) != NULL) != want)
			return 0;
		p += n;
		while (*p == ' ')
			p++;
	}
	return 1;
}

double tensor_datasheet(const char *device, int sm_count, int p, const char **source)
{
	if (source)
		*source = NULL;
	if (!device || p < 0 || p >= PIPE_N)
		return 0;
	for (size_t i = 0; i < sizeof sheets / sizeof *sheets; i++) {
		const struct sheet *s = &sheets[i];
		if (s->sms != sm_count || !words_in(device, s->has, 1) || !words_in(device, s->lacks, 0))
			continue;
		if (source && s->tflops[p] > 0)
			*source = s->source;
		return s->tflops[p] * 1000;
	}
	return 0;
}

/* ------------------------------------------------- a kernel's instructions */

static void use_init(tensor_use *u)
{
	memset(u, 0, sizeof *u);
	u->prec = -1;
}

static void use_finish(tensor_use *u, const int *kind_of)
{
	int best = -1;
	for (int p = 0; p < TP_N; p++)
		if (u->per_prec[p] > 0 && (best < 0 || u->per_prec[p] > u->per_prec[best]))
			best = p;
	u->prec = best;
	u->kind = best >= 0 ? kind_of[best] : TK_NONE;
}

/* The precision of a PTX tensor instruction from its type suffixes (the
 * line from the opcode on); -2 for a type no roof covers (f64, sub-byte);
 * f16 where only the accumulator types are written (wmma.mma ...f32.f32). */
static int ptx_prec(const char *op, size_t n)
{
	char t[256];
	if (n >= sizeof t)
		n = sizeof t - 1;
	memcpy(t, op, n);
	t[n] = 0;
	if (strstr(t, ".bf16"))
		return TP_BF16;
	if (strstr(t, ".tf32"))
		return TP_TF32;
	if (strstr(t, ".e4m3") || strstr(t, ".e5m2"))
		return TP_FP8;
	if (strstr(t, ".s8") || strstr(t, ".u8"))
		return TP_INT8;
	if (strstr(t, ".f64") || strstr(t, ".s4") || strstr(t, ".u4") || strstr(t, ".b1"))
		return -2;
	return TP_FP16;
}

void tensor_use_ptx(const char *ptx, tensor_use *u)
{
	use_init(u);
	int kind_of[TP_N] = { 0 };
	static const struct { const char *op; int kind; } ops[] = {
		{ "wgmma.mma_async", TK_WGMMA }, { "wmma.mma", TK_WMMA }, { "mma.sync", TK_MMA },
	};
	for (const char *l = ptx; l && *l;) {
		const char *e = strchr(l, '\n');
		size_t n = e ? (size_t)(e - l) : strlen(l);
		const char *s = l;
		while (s < l + n && (*s == ' ' || *s == '\t'))
			s++;
		if (*s == '@') /* a predicate */
			s += strcspn(s, " \t");
		while (s < l + n && (*s == ' ' || *s == '\t'))
			s++;
		size_t opn0 = strcspn(s, " \t");
		if (opn0 < (size_t)(l + n - s) && (memmem(s, opn0, ".f16x2", 6) || memmem(s, opn0, ".bf16x2", 7)) &&
		    (!strncmp(s, "fma", 3) || !strncmp(s, "add", 3) || !strncmp(s, "mul", 3) || !strncmp(s, "sub", 3)))
			u->packed_half = 1;
		for (size_t i = 0; i < sizeof ops / sizeof *ops; i++) {
			size_t ol = strlen(ops[i].op);
			if (strncmp(s, ops[i].op, ol) != 0 || (s[ol] != '.' && s[ol] != ' '))
				continue;
			size_t rest = (size_t)(l + n - s);
			size_t opn = strcspn(s, " \t");
			int p = ptx_prec(s, opn < rest ? opn : rest);
			u->count++;
			if (p == -2) {
				u->other++;
			} else {
				u->per_prec[p]++;
				kind_of[p] = ops[i].kind;
			}
			break;
		}
		l = e ? e + 1 : NULL;
	}
	use_finish(u, kind_of);
	if (u->prec >= 0) {
		int gm = u->kind == TK_WGMMA;
		const char *m = u->prec == TP_INT8 ? (gm ? "IGMMA" : "IMMA")
		              : u->prec == TP_FP8 ? (gm ? "QGMMA" : "QMMA")
		                                  : (gm ? "HGMMA" : "HMMA");
		snprintf(u->sass, sizeof u->sass, "%s", m);
	}
}

void tensor_use_sass(const char *sass, tensor_use *u)
{
	use_init(u);
	u->from_sass = 1;
	int kind_of[TP_N] = { 0 };
	char first[TP_N][8] = { { 0 } };
	static const char *const ops[] = { "HGMMA", "IGMMA", "QGMMA", "HMMA", "IMMA", "QMMA", "DMMA", "BMMA" };
	for (const char *l = sass; l && *l;) {
		const char *e = strchr(l, '\n');
		size_t n = e ? (size_t)(e - l) : strlen(l);
		for (size_t i = 0; i < sizeof ops / sizeof *ops; i++) {
			const char *hit = NULL;
			size_t ol = strlen(ops[i]);
			for (const char *q = l; q + ol <= l + n; q++)
				if (strncmp(q, ops[i], ol) == 0 && (q == l || !isalnum((unsigned char)q[-1])) &&
				    (q[ol] == '.' || q[ol] == ' ')) {
					hit = q;
					break;
				}
			if (!hit)
				continue;
			u->count++;
			if (ops[i][0] == 'D' || ops[i][0] == 'B') {
				u->other++;
				break;
			}
			size_t w = strcspn(hit, " \t;");
			char t[96];
			if (w >= sizeof t)
				w = sizeof t - 1;
			memcpy(t, hit, w);
			t[w] = 0;
			int p = ops[i][0] == 'I' ? TP_INT8 : ops[i][0] == 'Q' ? TP_FP8
			      : strstr(t, ".BF16") ? TP_BF16 : strstr(t, ".TF32") ? TP_TF32 : TP_FP16;
			u->per_prec[p]++;
			kind_of[p] = strstr(ops[i], "GMMA") ? TK_WGMMA : TK_MMA;
			if (!first[p][0])
				snprintf(first[p], sizeof first[p], "%s", ops[i]);
			break;
		}
		l = e ? e + 1 : NULL;
	}
	use_finish(u, kind_of);
	if (u->prec >= 0)
		snprintf(u->sass, sizeof u->sass, "%s", first[u->prec]);
}
