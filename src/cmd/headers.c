/* headers.c: the `include` command. */
#include "headers.h"
#include "toolkit.h"

#include <stdlib.h>
#include <string.h>

static void list(app *a)
{
	int n = 0, *tk = NULL;
	char **dirs = NULL;
	if (a->file.sp) {
		dirs = ccache_search_path(&a->cache, a->file.sp, &n, &tk);
	} else {
		int ntk = 0;
		const char *const *t = toolkit_include_dirs(&ntk, NULL);
		dirs = xcalloc((size_t)(a->cache.nincdirs + ntk) + 1, sizeof *dirs);
		tk = xcalloc((size_t)(a->cache.nincdirs + ntk) + 1, sizeof *tk);
		for (int i = 0; i < a->cache.nincdirs; i++)
			dirs[n++] = xstrdup(a->cache.incdirs[i]);
		for (int i = 0; i < ntk; i++) {
			tk[n] = 1;
			dirs[n++] = xstrdup(t[i]);
		}
	}
	int nfile = a->file.sp ? 1 + a->file.sp->nincdirs : 0;
	app_note(a, "headers are searched for in%s:", a->file.sp ? "" : " (no kernel file loaded)");
	for (int i = 0; i < n; i++) {
		const char *why = tk[i] ? "the CUDA toolkit" : i == 0 && a->file.sp ? "the kernel file's directory"
		                : i < nfile ? "//@ include" : "-I or 'include'";
		app_note(a, "  %-40s %s", dirs[i], why);
		free(dirs[i]);
	}
	free(dirs);
	free(tk);
	const char *why = NULL;
	int ntk = 0;
	toolkit_include_dirs(&ntk, &why);
	if (ntk == 0 && why)
		app_note(a, "  (%s)", why);
	int ns = 0;
	const toolkit_shim *sh = toolkit_shims(&ns);
	sbuf b = {0};
	for (int i = 0; i < ns; i++)
		sb_printf(&b, "%s%s", i ? " " : "", sh[i].name);
	app_note(a, "C headers NVRTC lacks, given in memory unless a directory above has them:\n  %s", b.s);
	sb_free(&b);
}

int app_include(app *a, const char *dir)
{
	char *err = NULL;
	if (!dir) {
		if (nvrtc_load(&err) != 0) {
			app_error_msg(a, err);
			free(err);
			return -1;
		}
		list(a);
		return 0;
	}
	if (ccache_add_include(&a->cache, dir, &err) != 0) {
		app_error_msg(a, err);
		free(err);
		return -1;
	}
	return 0;
}
