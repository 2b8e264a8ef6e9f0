/* jtree.h: a JSON document read whole into a tree (objects, arrays,
 * strings, numbers, true, false, null), for the class board's replies
 * (cmd/submit). Nested at most JT_MAX_DEPTH deep. */
#ifndef CUPLAY_JTREE_H
#define CUPLAY_JTREE_H

#include <stddef.h>

#define JT_MAX_DEPTH 32

typedef enum { JT_NULL, JT_BOOL, JT_NUM, JT_STR, JT_ARR, JT_OBJ } jt_kind;

typedef struct jt {
	jt_kind kind;
	double num;          /* JT_NUM; JT_BOOL: 0 or 1 */
	char *str;           /* JT_STR: UTF-8, NUL-terminated (a \u0000 ends it) */
	int n;               /* JT_ARR, JT_OBJ: members */
	char **keys;         /* JT_OBJ */
	struct jt *v;        /* JT_ARR, JT_OBJ: the members' values */
} jt;

/* text[0..len) as one JSON value (blanks around it): 0 with *out (free
 * with jt_free), or -1 with *err ("not JSON: ... at byte N"). */
int jt_parse(const char *text, size_t len, jt *out, char **err);
void jt_free(jt *t);
/* The member `key` of object o; NULL where o is no object or has none. */
const jt *jt_get(const jt *o, const char *key);
/* A member's string, or def where absent or not a string. */
const char *jt_str(const jt *o, const char *key, const char *def);
/* A member's number (true: 1, false: 0), or def where absent or not one. */
double jt_num(const jt *o, const char *key, double def);

#endif
