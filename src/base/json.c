/* json.c: JSON strings out, one flat object in. */
#include "json.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

void json_strn(sbuf *b, const char *s, size_t n)
{
	sb_putc(b, '"');
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		switch (c) {
		case '"': sb_puts(b, "\\\""); break;
		case '\\': sb_puts(b, "\\\\"); break;
		case '\n': sb_puts(b, "\\n"); break;
		case '\t': sb_puts(b, "\\t"); break;
		case '\r': sb_puts(b, "\\r"); break;
		default:
			if (c < 0x20 || c == 0x7f)
				sb_printf(b, "\\u%04x", c);
			else
				sb_putc(b, (char)c);
		}
	}
	sb_putc(b, '"');
}

void json_str(sbuf *b, const char *s)
{
	json_strn(b, s, strlen(s));
}

static const char *skip_ws(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	return p;
}

void json_put_utf8(sbuf *b, unsigned u)
{
	if (u < 0x80) {
		sb_putc(b, (char)u);
	} else if (u < 0x800) {
		sb_putc(b, (char)(0xc0 | u >> 6));
		sb_putc(b, (char)(0x80 | (u & 0x3f)));
	} else if (u < 0x10000) {
		sb_putc(b, (char)(0xe0 | u >> 12));
		sb_putc(b, (char)(0x80 | ((u >> 6) & 0x3f)));
		sb_putc(b, (char)(0x80 | (u & 0x3f)));
	} else {
		sb_putc(b, (char)(0xf0 | u >> 18));
		sb_putc(b, (char)(0x80 | ((u >> 12) & 0x3f)));
		sb_putc(b, (char)(0x80 | ((u >> 6) & 0x3f)));
		sb_putc(b, (char)(0x80 | (u & 0x3f)));
	}
}

static int hex4(const char *p, unsigned *u)
{
	*u = 0;
	for (int i = 0; i < 4; i++) {
		char c = p[i];
		int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
		        : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
		if (v < 0)
			return -1;
		*u = *u << 4 | (unsigned)v;
	}
	return 0;
}

/* A string at p (after its opening quote): its text into *out; the byte
 * after the closing quote, or NULL. */
static const char *read_str(const char *p, char **out)
{
	sbuf b = {0};
	sb_puts(&b, "");
	while (*p && *p != '"') {
		if ((unsigned char)*p < 0x20)
			break;
		if (*p != '\\') {
			sb_putc(&b, *p++);
			continue;
		}
		p++;
		unsigned u;
		switch (*p) {
		case '"': case '\\': case '/': sb_putc(&b, *p); break;
		case 'n': sb_putc(&b, '\n'); break;
		case 't': sb_putc(&b, '\t'); break;
		case 'r': sb_putc(&b, '\r'); break;
		case 'b': sb_putc(&b, '\b'); break;
		case 'f': sb_putc(&b, '\f'); break;
		case 'u':
			if (hex4(p + 1, &u) != 0)
				goto bad;
			p += 4;
			if (u >= 0xd800 && u < 0xdc00 && p[1] == '\\' && p[2] == 'u') {
				unsigned lo;
				if (hex4(p + 3, &lo) == 0 && lo >= 0xdc00 && lo < 0xe000) {
					u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
					p += 6;
				}
			}
			json_put_utf8(&b, u);
			break;
		default:
			goto bad;
		}
		p++;
	}
	if (*p != '"')
		goto bad;
	*out = sb_steal(&b);
	return p + 1;
bad:
	sb_free(&b);
	return NULL;
}

/* A number, true, false or null: the text of it; NULL when it is none. */
static const char *read_word(const char *p, char **out)
{
	const char *e = p;
	while (*e && (isalnum((unsigned char)*e) || *e == '-' || *e == '+' || *e == '.'))
		e++;
	if (e == p)
		return NULL;
	char *w = xstrndup(p, (size_t)(e - p));
	char *end;
	int ok = strcmp(w, "true") == 0 || strcmp(w, "false") == 0 || strcmp(w, "null") == 0;
	if (!ok && (isdigit((unsigned char)w[0]) || w[0] == '-')) { /* not nan, inf */
		strtod(w, &end);
		ok = *end == 0;
	}
	if (!ok) {
		free(w);
		return NULL;
	}
	*out = w;
	return e;
}

/* An array or object at p, kept as its text (strings in it read as
 * strings, so a bracket inside one does not count): the byte after it,
 * or NULL when it does not close. Nesting is bounded (64). */
static const char *read_nested(const char *p, char **out)
{
	char open[64];
	int depth = 0;
	const char *s = p;
	do {
		if (*p == '"') {
			char *skip = NULL;
			p = read_str(p + 1, &skip);
			free(skip);
			if (!p)
				return NULL;
			continue;
		}
		if (*p == '[' || *p == '{') {
			if (depth == (int)sizeof open)
				return NULL;
			open[depth++] = *p;
		} else if (*p == ']' || *p == '}') {
			if (open[--depth] != (*p == ']' ? '[' : '{'))
				return NULL;
		} else if (!*p) {
			return NULL;
		}
		p++;
	} while (depth > 0);
	*out = xstrndup(s, (size_t)(p - s));
	return p;
}

static int bad_json(char **err, const char *what, const char *text, const char *p)
{
	*err = xasprintf("not a JSON object: %s at byte %d", what, (int)(p - text) + 1);
	return -1;
}

static int object_read(const char *text, jfield **fp, int *np, char **err, int nested)
{
	jfield *f = NULL;
	int n = 0, cap = 0;
	const char *p = skip_ws(text);
	*fp = NULL;
	*np = 0;
	if (*p++ != '{')
		return bad_json(err, "no '{'", text, p - 1);
	p = skip_ws(p);
	while (*p != '}') {
		if (n > 0) {
			if (*p != ',') {
				jfields_free(f, n);
				return bad_json(err, "no ',' between fields", text, p);
			}
			p = skip_ws(p + 1);
		}
		char *name = NULL, *val = NULL;
		const char *q = *p == '"' ? read_str(p + 1, &name) : NULL;
		if (!q) {
			jfields_free(f, n);
			return bad_json(err, "a field's name is not a string", text, p);
		}
		p = skip_ws(q);
		if (*p != ':') {
			free(name);
			jfields_free(f, n);
			return bad_json(err, "no ':' after a field's name", text, p);
		}
		p = skip_ws(p + 1);
		int is_str = *p == '"';
		q = is_str ? read_str(p + 1, &val)
		    : nested && (*p == '[' || *p == '{') ? read_nested(p, &val) : read_word(p, &val);
		if (!q) {
			free(name);
			jfields_free(f, n);
			return bad_json(err, "a field whose value is not a string, number, true, false or null", text, p);
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 8;
			f = xrealloc(f, (size_t)cap * sizeof *f);
		}
		f[n++] = (jfield){ name, val, is_str };
		p = skip_ws(q);
	}
	if (*skip_ws(p + 1)) {
		jfields_free(f, n);
		return bad_json(err, "more after the object", text, skip_ws(p + 1));
	}
	*fp = f;
	*np = n;
	return 0;
}

int json_object(const char *text, jfield **fp, int *np, char **err)
{
	return object_read(text, fp, np, err, 0);
}

int json_object_nested(const char *text, jfield **fp, int *np, char **err)
{
	return object_read(text, fp, np, err, 1);
}

const char *jfield_str(const jfield *f, int n, const char *name, const char *def)
{
	for (int i = 0; i < n; i++)
		if (f[i].is_str && strcmp(f[i].jkey, name) == 0)
			return f[i].jval;
	return def;
}

double jfield_num(const jfield *f, int n, const char *name, double def)
{
	for (int i = 0; i < n; i++)
		if (!f[i].is_str && strcmp(f[i].jkey, name) == 0) {
			char *end;
			double v = strtod(f[i].jval, &end);
			return *end ? def : v;
		}
	return def;
}

void jfields_free(jfield *f, int n)
{
	for (int i = 0; i < n; i++) {
		free(f[i].jkey);
		free(f[i].jval);
	}
	free(f);
}
