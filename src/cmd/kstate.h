/* kstate.h: the state a kernel keeps from launch to launch: the
 * __device__ and __managed__ variables it writes (its PTX says) that the
 * file's header does not declare with `//@ global`, so that nothing
 * resets them before a launch. `info` lists them; the first run of such a
 * kernel says so, with the header line that would reset each one. */
#ifndef CUPLAY_KSTATE_H
#define CUPLAY_KSTATE_H

#include "app.h"
#include "cunit.h"

typedef struct kstate_var {
	char name[128];     /* as C++ names it: "done", "course::total" */
	int managed;        /* __managed__ */
	char line[256];     /* the header line that resets it: "//@ global done unsigned zero output" */
} kstate_var;

/* The variables kernel k of the file (a sequence: each of its steps)
 * writes and the header does not declare, into *v (caller frees; *n of
 * them, none: NULL). 0, or -1 when its PTX cannot be read (*n 0). */
int kstate_find(const spec *s, const cunit *u, int k, kstate_var **v, int *n);
/* The first run of kernel k in this file: one line when it keeps state. */
void kstate_note_once(app *a, const cunit *u, int k);

#endif
