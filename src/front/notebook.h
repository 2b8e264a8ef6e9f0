/* notebook.h: a lesson written as a Jupyter notebook (`cuplay --notebook`). */
#ifndef CUPLAY_NOTEBOOK_H
#define CUPLAY_NOTEBOOK_H

/* The lesson (a name or a path, found as `source` finds it) as an .ipynb
 * at out_path. 0, or -1 with *err. */
int notebook_write(const char *lesson, const char *out_path, char **err);

#endif
