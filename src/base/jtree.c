/* jtree.c: a JSON document read into a tree (jtree.h). */
#include "jtree.h"
#include "json.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct jrd {
	const char *s, *p, *end;
	const char *why;
} jrd;

static void skip_ws(jrd *r)
{
	while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r'))
		r->p++;
}

static int bad(jrd *r, const char *why)
{
	if (!r->why)
		r->why = why;
	return -1;
}

static int hex4(jrd *r, unsigned *u)
{
	*u = 0;
	for (int i = 0; i < 4; i++, r->p++) {
		if (r->p >= r->end)
			return bad(r, "a short \\u escape");
		char c = *r->p;
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
		if (d < 0)
			return bad(r, "a bad \\u escape");
		*u = *u * 16 + (unsigned)d;
	}
	return 0;
}

/* a string, the cursor at its opening quote */
static int read_str(jrd *r, char **out)
{
	sbuf b = {0};
	r->p++;
	while (r->p < r->end && *r->p != '"') {
		unsigned char c = (unsigned char)*r->p;
		if (c < 0x20) {
			sb_free(&b);
			return bad(r, "a control character in a string");
		}
		if (c != '\\') {
			sb_putc(&b, (char)c);
			r->p++;
			continue;
		}
		if (++r->p >= r->end)
			break;
		char e = *r->p++;
		const char *simple = strchr("\"\\/bfnrt", e);
		if (e && simple) {
			sb_putc(&b, "\"\\/\b\f\n\r\t"[simple - "\"\\/bfnrt"]);
			continue;
		}
		unsigned u, lo;
		if (e != 'u' || hex4(r, &u) != 0) {
			sb_free(&b);
			return bad(r, "a bad escape in a string");
		}
		if (u >= 0xd800 && u < 0xdc00 && r->end - r->p >= 6 && r->p[0] == '\\' && r->p[1] == 'u') {
			r->p += 2;
			if (hex4(r, &lo) != 0 || lo < 0xdc00 || lo >= 0xe000) {
				sb_free(&b);
				return bad(r, "a bad surrogate pair");
			}
			u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
		}
		json_put_utf8(&b, u);
	}
	if (r->p >= r->end) {
		sb_free(&b);
		return bad(r, "a string without its end");
	}
	r->p++;
	*out = b.s ? sb_steal(&b) : xstrdup("");
	return 0;
}

static int read_value(jrd *r, jt *t, int depth);

/* an array or an object, the cursor at its bracket */
static int read_list(jrd *r, jt *t, int depth)
{
	int obj = *r->p == '{';
	char close = obj ? '}' : ']';
	t->kind = obj ? JT_OBJ : JT_ARR;
	r->p++;
	skip_ws(r);
	if (r->p < r->end && *r->p == close) {
		r->p++;
		return 0;
	}
	int cap = 0;
	for (;;) {
		if (t->n == cap) {
			cap = cap ? 2 * cap : 4;
			t->v = xrealloc(t->v, (size_t)cap * sizeof *t->v);
			if (obj)
				t->keys = xrealloc(t->keys, (size_t)cap * sizeof *t->keys);
		}
		skip_ws(r);
		if (obj) {
			if (r->p >= r->end || *r->p != '"' || read_str(r, &t->keys[t->n]) != 0)
				return bad(r, "expected a member's name");
			skip_ws(r);
			if (r->p >= r->end || *r->p != ':') {
				free(t->keys[t->n]);
				return bad(r, "expected ':'");
			}
			r->p++;
		}
		memset(&t->v[t->n], 0, sizeof t->v[t->n]);
		int rc = read_value(r, &t->v[t->n], depth + 1);
		t->n++; /* freed with the rest, read or not */
		if (rc != 0)
			return -1;
		skip_ws(r);
		if (r->p < r->end && *r->p == ',') {
			r->p++;
			continue;
		}
		if (r->p < r->end && *r->p == close) {
			r->p++;
			return 0;
		}
		return bad(r, obj ? "expected ',' or '}'" : "expected ',' or ']'");
	}
}

static int read_value(jrd *r, jt *t, int depth)
{
	skip_ws(r);
	if (depth > JT_MAX_DEPTH)
		return bad(r, "nested too deep");
	if (r->p >= r->end)
		return bad(r, "expected a value");
	char c = *r->p;
	if (c == '{' || c == '[')
		return read_list(r, t, depth);
	if (c == '"') {
		t->kind = JT_STR;
		return read_str(r, &t->str);
	}
	static const char *const words[] = { "null", "true", "false" };
	for (int i = 0; i < 3; i++) {
		size_t n = strlen(words[i]);
		if ((size_t)(r->end - r->p) >= n && memcmp(r->p, words[i], n) == 0) {
			t->kind = i == 0 ? JT_NULL : JT_BOOL;
			t->num = i == 1;
			r->p += n;
			return 0;
		}
	}
	if (c != '-' && (c < '0' || c > '9'))
		return bad(r, "expected a value");
	char buf[64];
	size_t n = 0;
	while (r->p + n < r->end && n < sizeof buf - 1 && strchr("+-.eE0123456789", r->p[n]) && r->p[n])
		n++;
	memcpy(buf, r->p, n);
	buf[n] = 0;
	char *e;
	t->kind = JT_NUM;
	t->num = strtod(buf, &e);
	if (*e || !isfinite(t->num))
		return bad(r, "a bad number");
	r->p += n;
	return 0;
}

int jt_parse(const char *text, size_t len, jt *out, char **err)
{
	memset(out, 0, sizeof *out);
	jrd r = { text, text, text + len, NULL };
	int rc = read_value(&r, out, 0);
	skip_ws(&r);
	if (rc == 0 && r.p != r.end)
		rc = bad(&r, "more after the value");
	if (rc != 0) {
		if (err)
			*err = xasprintf("not JSON: %s at byte %zu", r.why, (size_t)(r.p - text));
		jt_free(out);
	}
	return rc;
}

void jt_free(jt *t)
{
	for (int i = 0; i < t->n; i++) {
		if (t->keys)
			free(t->keys[i]);
		jt_free(&t->v[i]);
	}
	free(t->keys);
	free(t->v);
	free(t->str);
	memset(t, 0, sizeof *t);
}

const jt *jt_get(const jt *o, const char *key)
{
	if (!o || o->kind != JT_OBJ)
		return NULL;
	for (int i = 0; i < o->n; i++)
		if (strcmp(o->keys[i], key) == 0)
			return &o->v[i];
	return NULL;
}

const char *jt_str(const jt *o, const char *key, const char *def)
{
	const jt *v = jt_get(o, key);
	return v && v->kind == JT_STR ? v->str : def;
}

double jt_num(const jt *o, const char *key, double def)
{
	const jt *v = jt_get(o, key);
	return v && (v->kind == JT_NUM || v->kind == JT_BOOL) ? v->num : def;
}
