/* refcache.c: a cache of reference results, by what they depend on. */
#include "ref.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

void ref_key_init(ref_key *k, const char *ref, dtype out_type, uint64_t out_count)
{
	memset(k, 0, sizeof *k);
	snprintf(k->ref, sizeof k->ref, "%s", ref ? ref : "");
	k->out_type = out_type;
	k->out_count = out_count;
}

int ref_key_add_buf(ref_key *k, const buffer_sig *s)
{
	if (k->nargs >= REF_MAX_ARGS)
		return -1;
	ref_key_arg *a = &k->args[k->nargs++];
	memset(a, 0, sizeof *a);
	a->is_buf = 1;
	a->sig = *s;
	return 0;
}

int ref_key_add_scalar(ref_key *k, int64_t i, double f)
{
	if (k->nargs >= REF_MAX_ARGS)
		return -1;
	ref_key_arg *a = &k->args[k->nargs++];
	memset(a, 0, sizeof *a);
	a->i = i;
	memcpy(&a->f_bits, &f, sizeof a->f_bits);
	return 0;
}

int ref_key_eq(const ref_key *a, const ref_key *b)
{
	if (strcmp(a->ref, b->ref) != 0 || a->nargs != b->nargs || a->out_type != b->out_type ||
	    a->out_count != b->out_count)
		return 0;
	for (int i = 0; i < a->nargs; i++) {
		const ref_key_arg *x = &a->args[i], *y = &b->args[i];
		if (x->is_buf != y->is_buf)
			return 0;
		if (x->is_buf ? !buffer_sig_eq(&x->sig, &y->sig) : (x->i != y->i || x->f_bits != y->f_bits))
			return 0;
	}
	return 1;
}

void ref_cache_init(ref_cache *c, int max_entries, uint64_t max_bytes)
{
	ref_cache_clear(c);
	c->max_entries = max_entries < 0 ? 0 : max_entries > REF_CACHE_MAX ? REF_CACHE_MAX : max_entries;
	c->max_bytes = max_bytes;
	c->hits = c->misses = 0;
}

static void cache_drop(ref_cache *c, int i)
{
	free(c->e[i].data);
	c->bytes -= c->e[i].bytes;
	c->e[i] = c->e[c->n - 1];
	memset(&c->e[c->n - 1], 0, sizeof c->e[0]);
	c->n--;
}

void ref_cache_clear(ref_cache *c)
{
	while (c->n > 0)
		cache_drop(c, c->n - 1);
	c->bytes = 0;
}

const void *ref_cache_get(ref_cache *c, const ref_key *k, dtype *type, uint64_t *n)
{
	for (int i = 0; i < c->n; i++)
		if (ref_key_eq(&c->e[i].key, k)) {
			c->e[i].stamp = ++c->clock;
			c->hits++;
			if (type)
				*type = c->e[i].type;
			if (n)
				*n = c->e[i].n;
			return c->e[i].data;
		}
	c->misses++;
	return NULL;
}

int ref_cache_put(ref_cache *c, const ref_key *k, void *data, dtype type, uint64_t n)
{
	uint64_t bytes = n * (uint64_t)dtype_size(type);
	for (int i = 0; i < c->n; i++)
		if (ref_key_eq(&c->e[i].key, k)) {
			cache_drop(c, i);
			break;
		}
	if (!data || c->max_entries < 1 || bytes > c->max_bytes) {
		free(data);
		return 0;
	}
	while (c->n > 0 && (c->n >= c->max_entries || c->bytes + bytes > c->max_bytes)) {
		int old = 0;
		for (int i = 1; i < c->n; i++)
			if (c->e[i].stamp < c->e[old].stamp)
				old = i;
		cache_drop(c, old);
	}
	ref_cache_entry *e = &c->e[c->n++];
	e->key = *k;
	e->data = data;
	e->type = type;
	e->n = n;
	e->bytes = bytes;
	e->stamp = ++c->clock;
	c->bytes += bytes;
	return 1;
}
