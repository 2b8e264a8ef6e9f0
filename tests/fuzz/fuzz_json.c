/* fuzz_json.c: a line of the protocol `cuplay --serve` reads (json.h): a
 * flat JSON object. Read, it is written back with json_str and read again
 * to the same fields; refused, it says why. Nothing is read past its end. */
#include "json.h"
#include "util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = xstrndup((const char *)data, size);
	jfield *f = NULL;
	int n = 0;
	char *err = NULL;
	if (json_object(text, &f, &n, &err) != 0) {
		if (!err || strncmp(err, "not a JSON object: ", 19) != 0)
			abort();
		free(err);
		free(text);
		return 0;
	}
	sbuf b = {0};
	sb_puts(&b, "{");
	for (int i = 0; i < n; i++) {
		if (i)
			sb_puts(&b, ", ");
		json_str(&b, f[i].jkey);
		sb_puts(&b, ": ");
		if (f[i].is_str)
			json_str(&b, f[i].jval);
		else
			sb_puts(&b, f[i].jval);
	}
	sb_puts(&b, "}");
	jfield *g = NULL;
	int m = 0;
	if (json_object(b.s, &g, &m, &err) != 0 || m != n)
		abort();
	for (int i = 0; i < n; i++)
		if (strcmp(f[i].jkey, g[i].jkey) != 0 || strcmp(f[i].jval, g[i].jval) != 0 || f[i].is_str != g[i].is_str)
			abort();
	jfields_free(g, m);
	jfields_free(f, n);
	sb_free(&b);
	free(text);
	return 0;
}
