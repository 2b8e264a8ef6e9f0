/* look.c: what info, sass, metrics and sanitize share (look.h). */
#include "look.h"
#include "run.h"
#include "pick.h"


#include <stdlib.h>

/* "metrics transpose_tiled shared" as typed, for "skipped" notes. */
char *look_words_line(int argc, char **argv)
{
	sbuf b = {0};
	for (int i = 0; i < argc; i++)
		sb_printf(&b, "%s%s", i ? " " : "", argv[i]);
	return sb_steal(&b);
}

int look_one_kernel(app *a, const char *kernel, int *k)
{
	int *ks = NULL, nk = 0;
	char *names[] = { (char *)kernel };
	if (pick_kernels(a, kernel ? names : NULL, kernel ? 1 : 0, &ks, &nk) != 0)
		return -1;
	*k = ks[0];
	free(ks);
	return 0;
}
