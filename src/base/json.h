/* json.h: JSON strings written into a buffer, and one flat object read
 * (string, number, true, false and null values): the machine protocol's
 * lines (front/serve.c), the notebooks cuplay writes, and the class
 * board's requests and results (board/). */
#ifndef CUPLAY_JSON_H
#define CUPLAY_JSON_H

#include <stddef.h>
#include "util.h"

/* s as a JSON string, quoted and escaped (control bytes as \u00XX). */
void json_str(sbuf *b, const char *s);
void json_strn(sbuf *b, const char *s, size_t n);
/* Code point u as UTF-8 (1 to 4 bytes). */
void json_put_utf8(sbuf *b, unsigned u);

/* A field of an object read: its name and value as text (a string
 * unescaped; a number, true, false or null as written). */
typedef struct jfield {
	char *jkey, *jval;
	int is_str;
} jfield;

/* Reads text, one JSON object whose values are not objects or arrays:
 * 0 with its fields, or -1 with *err ("not a JSON object: ..."). */
int json_object(const char *text, jfield **f, int *n, char **err);
/* The same, with arrays and objects as values too, each kept as its
 * text (is_str 0): a verification's result line and its checks. */
int json_object_nested(const char *text, jfield **f, int *n, char **err);
/* The value of field `name` as text: a string's, or def where absent or
 * not a string. */
const char *jfield_str(const jfield *f, int n, const char *name, const char *def);
/* A number's value, or def. */
double jfield_num(const jfield *f, int n, const char *name, double def);
void jfields_free(jfield *f, int n);

#endif
