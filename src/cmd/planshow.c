/* planshow.c: what a plan holds, said before its first run: the buffers
 * and globals with their sizes, and for a run on host data what is copied
 * each way and in which chunks. */
#include "planshow.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

/* The first values of a global's list: "{0.1, 0.2, ...}" */
static void list_text(sbuf *b, const plan *p, const plan_buf *pb)
{
	sb_putc(b, '{');
	for (uint32_t k = 0; k < pb->list_n && k < 4; k++)
		sb_printf(b, "%s%g", k ? ", " : "", p->list[pb->list_off + k]);
	sb_puts(b, pb->list_n > 4 ? ", ...}" : "}");
}

void planshow_pipeline(app *a, const plan *p)
{
	const spec *s = a->file.sp;
	sbuf in = {0}, out = {0}, ch = {0};
	for (int i = 0; i < p->nbufs; i++) {
		const plan_buf *pb = &p->bufs[i];
		if (pb->copy_in)
			sb_printf(&in, "%s%s", in.len ? ", " : "", pb->name);
		if (pb->copy_out)
			sb_printf(&out, "%s%s", out.len ? ", " : "", pb->name);
	}
	char hb[32], db[32];
	fmt_bytes(p->bus_h2d, hb, sizeof hb);
	fmt_bytes(p->bus_d2h, db, sizeof db);
	app_note(a, "%s: a run copies in %s (%s), runs the kernel, copies out %s (%s)", p->launch.name,
	         in.len ? in.s : "nothing", hb, out.len ? out.s : "nothing", db);
	if (s->split) {
		for (int c = 0; c < p->nchunks; c++) {
			const plan_chunk *k = &p->chunks[c];
			sb_printf(&ch, "%s%s=%" PRIu64 " at %" PRIu64 " grid %u", c ? ", " : "", s->split, k->len,
			          k->start, k->grid[0]);
			if (k->grid[1] > 1 || k->grid[2] > 1)
				sb_printf(&ch, "x%ux%u", k->grid[1], k->grid[2]);
		}
		app_note(a, "  %d chunk%s, a stream each: %s", p->nchunks, p->nchunks == 1 ? "" : "s", ch.s);
	}
	sb_free(&in);
	sb_free(&out);
	sb_free(&ch);
}

/* One line "NAME: a, b; EXTRA" when it fits WIDE columns, else "NAME
 * (EXTRA):" and an item a line, indented: a file of many buffers stays
 * readable on a projector. */
#define BUFFERS_WIDE 100
static void note_list(app *a, const char *name, char **items, int n, const char *extra)
{
	sbuf line = {0};
	sb_printf(&line, "%s: ", name);
	for (int i = 0; i < n; i++)
		sb_printf(&line, "%s%s", i ? ", " : "", items[i]);
	if (!n)
		sb_puts(&line, "none");
	if (extra)
		sb_printf(&line, "; %s", extra);
	if (line.len <= BUFFERS_WIDE || n < 2) {
		app_note(a, "%s", line.s);
	} else {
		sbuf l = {0};
		if (extra)
			sb_printf(&l, "%s (%s):", name, extra);
		else
			sb_printf(&l, "%s:", name);
		for (int i = 0; i < n; i++)
			sb_printf(&l, "\n  %s", items[i]);
		app_note(a, "%s", l.s);
		sb_free(&l);
	}
	sb_free(&line);
}

void planshow_buffers(app *a, const plan *p)
{
	char *bufs[PLAN_MAX_BUFS], *globs[PLAN_MAX_BUFS];
	int nb = 0, ng = 0;
	double total = 0;
	for (int i = 0; i < p->nbufs; i++) {
		const plan_buf *pb = &p->bufs[i];
		double bytes = (double)pb->count * (double)dtype_size(pb->type);
		char sz[32];
		fmt_bytes(bytes, sz, sizeof sz);
		sbuf g = {0};
		if (pb->global) {
			sb_printf(&g, "%s %s[%" PRIu64 "] ", pb->name, dtype_name(pb->type), pb->count);
			if (pb->init == INIT_LIST)
				list_text(&g, p, pb);
			else
				sb_puts(&g, init_name(pb->init));
			sb_printf(&g, "%s (%s, %s)", pb->output ? " output" : "", sz,
			          pb->is_const ? "__constant__" : "__device__");
			globs[ng++] = sb_steal(&g);
			continue;
		}
		total += bytes;
		sb_printf(&g, "%s %s[%" PRIu64 "] %s%s%s%s%s (%s)", pb->name,
		          dtype_name(pb->type), pb->count, init_name(pb->init),
		          pb->scratch ? " scratch" : pb->output ? " output" : "", pb->managed ? " managed" : "",
		          pb->prefetch ? " prefetch" : "",
		          pb->host == BUF_HOST_PINNED ? " host pinned" : pb->host ? " host" : "", sz);
		bufs[nb++] = sb_steal(&g);
	}
	char tot[32], extra[48];
	fmt_bytes(total, tot, sizeof tot);
	snprintf(extra, sizeof extra, "%s in all", tot);
	note_list(a, "buffers", bufs, nb, extra);
	if (ng)
		note_list(a, "globals", globs, ng, NULL);
	for (int i = 0; i < nb; i++)
		free(bufs[i]);
	for (int i = 0; i < ng; i++)
		free(globs[i]);
}

/* The compile-only row: resources and geometry. */
/* compile-only: what the compile says of each kernel, and its launch */
void planshow_resource_table(table *t)
{
	const char *head[] = { "kernel", "regs", "smem", "stack", "spills", "grid", "block", "dyn smem", "file" };
	table_init(t, 9, head, "lrrrrllll");
	table_kind(t, "resources");
	table_col(t, 1, NULL, U_INT, COL_BOTH);
	table_col(t, 2, "smem_bytes", U_BYTES, COL_BOTH);
	table_col(t, 3, "stack_bytes", U_BYTES, COL_BOTH);
	table_col(t, 4, "spill_bytes", U_BYTES, COL_BOTH);
	table_col(t, 7, "dyn_smem_bytes", U_BYTES, COL_BOTH);
	table_col(t, 8, NULL, U_PLAIN, COL_RAW); /* rows of several files in one stream */
}

static void launch_row(table *t, const runctx *c, const plan_launch *l, const char *seq, const char *file)
{
	const kres *kr = &c->u->res[cunit_find(c->u, l->name)];
	int r = table_row(t);
	char g[64], b[64];
	fmt_dims(g, sizeof g, l->grid);
	fmt_dims(b, sizeof b, l->block);
	table_set(t, r, 0, "%s%s%s", seq ? seq : "", seq ? "/" : "", l->name);
	if (kr->known) {
		table_num(t, r, 1, kr->regs);
		table_num(t, r, 2, kr->smem);
		table_num(t, r, 3, kr->stack);
		if (kr->spill_st >= 0 && kr->spill_ld >= 0)
			table_num(t, r, 4, kr->spill_st + kr->spill_ld);
		else
			table_set(t, r, 4, "-");
	}
	table_set(t, r, 5, "%s", g);
	table_set(t, r, 6, "%s", b);
	if (l->smem)
		table_num(t, r, 7, l->smem);
	table_set(t, r, 8, "%s", file);
}

/* A kernel's row; a sequence's steps a row each, "SEQUENCE/STEP". */
void planshow_resource_row(table *t, const runctx *c, const plan *p, const char *file)
{
	if (p->nsteps == 0)
		launch_row(t, c, &p->launch, NULL, file);
	for (int j = 0; j < p->nsteps; j++)
		launch_row(t, c, &p->steps[j], p->launch.name, file);
}
