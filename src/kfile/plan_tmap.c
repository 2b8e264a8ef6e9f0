/* plan_tmap.c: a file's `//@ tensormap` lines evaluated and checked
 * against cuTensorMapEncodeTiled's rules, so that a mistake is an error at
 * its line before anything runs (and in compile-only mode too). */
#include "plan_tmap.h"
#include "spec_find.h"
#include "util.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* CUtensorMapDataType (cuda.h) of a buffer's element type; -1 when TMA has
 * none for it. Integers of 8 and 16 bits move as unsigned: a copy. */
static int tmap_dtype(dtype t)
{
	switch (t) {
	case DT_U8: case DT_I8: return 0;       /* UINT8 */
	case DT_E4M3: case DT_E5M2: return 0;   /* UINT8: TMA copies the bytes */
	case DT_U16: case DT_I16: return 1;     /* UINT16 */
	case DT_UNSIGNED: return 2;             /* UINT32 */
	case DT_INT: return 3;                  /* INT32 */
	case DT_U64: return 4;                  /* UINT64 */
	case DT_LONG: return 5;                 /* INT64 */
	case DT_HALF: return 6;                 /* FLOAT16 */
	case DT_FLOAT: return 7;                /* FLOAT32 */
	case DT_DOUBLE: return 8;               /* FLOAT64 */
	case DT_BF16: return 9;                 /* BFLOAT16 */
	default: return -1;
	}
}

typedef struct tctx {
	const spec *s;
	const spec_tmap *m;
	char **err;
} tctx;

static int terr(const tctx *c, int col, const char *fmt, ...) PRINTF_LIKE(3, 4);

static int terr(const tctx *c, int col, const char *fmt, ...)
{
	sbuf b = {0};
	sb_printf(&b, "%s:%d:%d: tensormap '%s': ", c->s->path, c->m->line, col, c->m->name);
	va_list ap;
	va_start(ap, fmt);
	sb_vprintf(&b, fmt, ap);
	va_end(ap);
	if (c->err) {
		free(*c->err);
		*c->err = sb_steal(&b);
	} else {
		sb_free(&b);
	}
	return -1;
}

static int eval_side(const tctx *c, const spec_expr *e, const symtab *t, const char *what, int64_t *v)
{
	value x;
	int col = 0;
	char *msg = NULL;
	if (expr_eval(e->text, t, &x, &col, &msg) != 0) {
		int r = terr(c, e->col + (col > 0 ? col - 1 : 0), "%s", msg);
		free(msg);
		return r;
	}
	if (x.is_float)
		return terr(c, e->col, "%s is %g, not a whole number", what, x.f);
	*v = x.i;
	return 0;
}

/* The buffer: one TMA can read, holding the shape. */
static int the_buffer(const tctx *c, const plan *p, int *bi)
{
	const spec_tmap *m = c->m;
	int b = spec_buffer_find(c->s, m->buf);
	if (b < 0) {
		sbuf known = {0};
		for (int j = 0; j < c->s->nbufs; j++)
			sb_printf(&known, "%s%s", j ? ", " : "", c->s->bufs[j].name);
		int r = terr(c, m->buf_col, "no buffer '%s' (buffers: %s)", m->buf, known.len ? known.s : "none");
		sb_free(&known);
		return r;
	}
	const plan_buf *pb = &p->bufs[b];
	if (pb->global || pb->host)
		return terr(c, m->buf_col, "'%s' is %s; TMA reads and writes device buffers", m->buf,
		            pb->global ? "a global" : "in host memory");
	if (tmap_dtype(pb->type) < 0)
		return terr(c, m->buf_col, "'%s' holds %s, which TMA has no element type for (declare the buffer "
		            "with its scalar type)", m->buf, dtype_name(pb->type));
	*bi = b;
	return 0;
}

/* The shape, innermost first, and the strides between its rows. */
static int the_shape(const tctx *c, const plan *p, const symtab *t, int b, plan_tmap *o)
{
	const spec_tmap *m = c->m;
	size_t es = dtype_size(p->bufs[b].type);
	uint64_t elems = 1;
	for (int i = 0; i < m->rank; i++) {
		const spec_expr *e = &m->dims[m->rank - 1 - i];
		int64_t v;
		if (eval_side(c, e, t, "a dimension", &v) != 0)
			return -1;
		if (v < 1 || v > ((int64_t)1 << 32))
			return terr(c, e->col, "dimension '%s' is %" PRId64 "; TMA takes 1 to 2^32", e->text, v);
		o->dims[i] = (uint64_t)v;
		if (elems > UINT64_MAX / (uint64_t)v)
			return terr(c, m->buf_col, "the shape of '%s' overflows", m->buf);
		elems *= (uint64_t)v;
		if (i + 1 < m->rank) {
			uint64_t st = elems * es, unit = m->interleave == 32 ? 32 : 16;
			if (st % unit != 0)
				return terr(c, m->dims[m->rank - 1].col, "a stride of '%s' is %" PRIu64 " elements of %zu "
				            "bytes = %" PRIu64 " bytes, not a multiple of %" PRIu64 " (cuTensorMapEncodeTiled's "
				            "rule): make '%s' a multiple of %" PRIu64, m->buf, elems, es, st, unit,
				            m->dims[m->rank - 1].text, unit / (es < unit ? es : unit));
			if (st >= (uint64_t)1 << 40)
				return terr(c, e->col, "a stride of '%s' is %" PRIu64 " bytes, over TMA's 2^40", m->buf, st);
			o->strides[i] = st;
		}
	}
	if (elems > p->bufs[b].count)
		return terr(c, m->buf_col, "the shape is %" PRIu64 " elements, but buffer '%s' holds %" PRIu64,
		            elems, m->buf, p->bufs[b].count);
	return 0;
}

/* The box: 1 to 256 a side; its inner side whole 16-byte units, within
 * the swizzle's span. */
static int the_box(const tctx *c, const symtab *t, size_t es, plan_tmap *o)
{
	const spec_tmap *m = c->m;
	for (int i = 0; i < m->rank; i++) {
		const spec_expr *e = &m->box[m->rank - 1 - i];
		int64_t v;
		if (eval_side(c, e, t, "a box side", &v) != 0)
			return -1;
		if (v < 1 || v > 256)
			return terr(c, e->col, "box side '%s' is %" PRId64 "; TMA boxes are 1 to 256 elements a side",
			            e->text, v);
		o->box[i] = (uint32_t)v;
		o->estrides[i] = 1;
	}
	const spec_expr *inner = &m->box[m->rank - 1];
	uint64_t ib = o->box[0] * es;
	if (m->interleave == 0 && ib % 16 != 0)
		return terr(c, inner->col, "the box's inner side is %u elements of %zu bytes = %" PRIu64 " bytes, not a "
		            "multiple of 16 (cuTensorMapEncodeTiled's rule)", o->box[0], es, ib);
	if (m->interleave == 0 && m->swizzle && ib > (uint64_t)m->swizzle)
		return terr(c, inner->col, "the box's inner side is %" PRIu64 " bytes, more than the %dB swizzle "
		            "spans: at most %zu elements of %zu bytes", ib, m->swizzle, m->swizzle / es, es);
	return 0;
}

static int one_tmap(const tctx *c, const plan *p, const symtab *t, plan_tmap *o)
{
	const spec_tmap *m = c->m;
	memset(o, 0, sizeof *o);
	snprintf(o->where, sizeof o->where, "%s:%d:%d: tensormap '%s'", c->s->path, m->line, m->col, m->name);
	int b = -1;
	if (the_buffer(c, p, &b) != 0)
		return -1;
	if (m->interleave && m->rank < 3)
		return terr(c, m->interleave_col, "interleave needs 3 or more dimensions (cuTensorMapEncodeTiled's "
		            "rule); '%s' has %d", m->buf, m->rank);
	if (m->interleave == 32 && m->swizzle != 32)
		return terr(c, m->interleave_col, "interleave 32B needs swizzle 32B (cuTensorMapEncodeTiled's rule)");
	o->buf = b;
	o->rank = m->rank;
	o->dtype = tmap_dtype(p->bufs[b].type);
	if (m->oob_nan && !dtype_is_float(p->bufs[b].type))
		return terr(c, m->col, "'oob nan' needs a floating-point buffer; '%s' holds %s", m->buf,
		            dtype_name(p->bufs[b].type));
	if (the_shape(c, p, t, b, o) != 0 || the_box(c, t, dtype_size(p->bufs[b].type), o) != 0)
		return -1;
	o->interleave = m->interleave == 16 ? 1 : m->interleave == 32 ? 2 : 0;
	o->swizzle = m->swizzle == 32 ? 1 : m->swizzle == 64 ? 2 : m->swizzle == 128 ? 3 : 0;
	o->l2promo = m->l2promo == 64 ? 1 : m->l2promo == 128 ? 2 : m->l2promo == 256 ? 3 : 0;
	o->oobfill = m->oob_nan;
	return 0;
}

int plan_tmaps(const spec *s, const symtab *t, const devinfo *dev, plan *p, char **err)
{
	p->ntmaps = 0;
	if (s->ntmaps == 0)
		return 0;
	const spec_tmap *m0 = &s->tmaps[0];
	if (s->ntmaps > PLAN_MAX_TMAPS)
		return fail(err, "%s:%d:%d: more than %d tensormap lines", s->path, s->tmaps[PLAN_MAX_TMAPS].line,
		            s->tmaps[PLAN_MAX_TMAPS].col, PLAN_MAX_TMAPS);
	if (dev && dev->cc_major < 9)
		return fail(err, "%s:%d:%d: tensormap '%s' needs TMA, which compute capability 9.0 brought; the GPU%s "
		            "is %d.%d", s->path, m0->line, m0->col, m0->name, dev->count ? "" : " assumed",
		            dev->cc_major, dev->cc_minor);
	if (s->streams.text)
		return fail(err, "%s:%d:%d: tensormap '%s' with '//@ streams': a tensor map of a chunk is not "
		            "supported", s->path, m0->line, m0->col, m0->name);
	for (int i = 0; i < s->ntmaps; i++) {
		tctx c = { s, &s->tmaps[i], err };
		if (one_tmap(&c, p, t, &p->tmaps[i]) != 0)
			return -1;
	}
	p->ntmaps = s->ntmaps;
	return 0;
}
