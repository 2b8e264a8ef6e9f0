/* fuzz_session.c: session files. Each input is the whole text of a session,
 * read by source_stream() from a memory FILE (fmemopen): long lines, CR LF,
 * NUL bytes, no final newline, comments, `;` and quotes across lines. It
 * runs in a fresh compile-only app inside the scratch directory of
 * fixture.h, like fuzz_cmd. */
#include "fixture.h"

#include <stdint.h>

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc; (void)argv;
	fixture_init();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0 || size > 8192 || !fixture_input_ok(data, size))
		return 0;
	/* a copy: fmemopen wants a writable buffer, the fuzzer's is read-only */
	char *buf = xmalloc(size);
	memcpy(buf, data, size);
	FILE *f = fmemopen(buf, size, "r");
	if (!f) {
		free(buf);
		return 0;
	}
	app a;
	fixture_app(&a);
	int failed = source_stream(&a, f, "fuzz.session");
	fclose(f);
	/* what the exit status is made of stays consistent */
	if (failed < 0 || (failed > 0 && a.nerrors == 0))
		__builtin_trap();
	if (a.source_depth != 0 || a.in_file != NULL)
		__builtin_trap(); /* source_stream restores where input comes from */
	app_free(&a);
	free(buf);
	fixture_reset();
	return 0;
}
