/* spec_scan.h: inside the kernel file parser: finding the __global__
 * functions of a kernel file (spec_scan.c) for spec_parse (spec.c). */
#ifndef CUPLAY_SPEC_SCAN_H
#define CUPLAY_SPEC_SCAN_H

#include "spec_types.h"

/* Appends item to arr[0..n), growing it by one. */
#define PUSH(arr, n, item) do { \
	(arr) = xrealloc((arr), ((size_t)(n) + 1) * sizeof *(arr)); \
	(arr)[(n)++] = (item); \
} while (0)
/* PUSH for an array that only PUSH_MANY grows (a file's defines, params
 * and buffers, to hundreds of thousands): its room doubles at each power
 * of two, so N items cost N copies where an allocator moves them. */
#define PUSH_MANY(arr, n, item) do { \
	if (((n) & ((n) - 1)) == 0) \
		(arr) = xrealloc((arr), ((size_t)(n) ? 2 * (size_t)(n) : 1) * sizeof *(arr)); \
	(arr)[(n)++] = (item); \
} while (0)

/* An explicit instantiation of a template kernel found in the source. */
typedef struct inst {
	char *tmpl;  /* as written, qualified as far as written, with the namespaces around */
	char *args;  /* normalised */
	int line, col;
} inst;

typedef struct insts {
	inst *v;
	int n;
} insts;

/* The scanner's tokens: names and numbers as one token each, `::` as one,
 * anything else one character. */
typedef struct tok {
	const char *p; /* in the blanked copy */
	int len, line, col;
} tok;

typedef struct toks {
	tok *v;
	int n, cap;
} toks;
void scan_tokenize(const char *b, toks *t);
int scan_tok_is(const tok *t, const char *s);
/* The type of a parameter's tokens [a, e) as text; its kind and element. */
char *scan_type_text(const toks *t, int a, int e, int is_array);
void scan_classify(kparam *p, const toks *t, int a, int e, int is_array);

/* Small helpers spec.c uses too. */
int scan_is_blank(int c);
/* The length of the name (C identifier) at p, before end; 0 when none. */
int scan_ident(const char *p, const char *end);
/* The end of the line at p: its '\n', or the NUL that ends the text. */
const char *scan_eol(const char *p);
int scan_word_is(const char *w, int n, const char *s);
char *spec_normalize_name(const char *name, size_t n);
void spec_launch_init(spec_launch *l);

/* Finds the __global__ functions of s->src and its "..." includes into s;
 * the explicit instantiations go to *in. */
void spec_discover(spec *s, insts *in);
/* The text of the file's first comment line, for `ls` (caller frees), or NULL. */
char *spec_find_summary(const char *src);

#endif
