/* fuzz_cmd.c: the command tokenizer and dispatcher. Each input is one or
 * several command lines (split on newlines), run through command_line() in
 * a fresh app in compile-only mode, inside the scratch directory of
 * fixture.h. `run` compiles with NVRTC (slow, cached on disk in the
 * scratch directory), so this target makes far fewer executions a second
 * than the others; an input gets FX_BUDGET_S seconds, then is interrupted
 * as by Ctrl-C. */
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
	if (size > 4096 || !fixture_input_ok(data, size))
		return 0;
	char *text = xstrndup((const char *)data, size);
	app a;
	fixture_app(&a);
	for (char *line = text, *next; line && !a.quit && !g_interrupt; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		command_line(&a, line);
	}
	app_free(&a);
	free(text);
	fixture_reset();
	return 0;
}
