/* fuzz_wire.c: what crosses between cuplay's processes, read by the side
 * that did not write it. The first byte of an input picks the reader:
 *   0  a compile job, as the compile server decodes it
 *   1  a compile answer, as the front end decodes it
 *   2  the GPU worker's framed messages, read from a pipe (wire_recv_until)
 * Nothing may be read past the input, nor a wait be without end. */
#include "ccserver.h"
#include "util.h"
#include "wire.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	const char *p = (const char *)data + 1;
	size_t n = size - 1;
	switch (data[0] % 3) {
	case 0: {
		ccs_job *b = NULL;
		if (ccs_decode_job(p, n, &b) == 0) {
			/* what the server hands NVRTC is whole */
			const nvrtc_job *j = ccs_job_get(b);
			size_t len = strlen(j->src) + strlen(j->name);
			for (int i = 0; i < j->nheaders; i++)
				len += strlen(j->header_names[i]) + strlen(j->header_texts[i]);
			for (int i = 0; i < j->nopts; i++)
				len += strlen(j->opts[i]);
			for (int i = 0; i < j->nexprs; i++)
				len += strlen(j->exprs[i]) + (j->where[i] ? strlen(j->where[i]) : 0);
			if (len > n)
				abort();
			/* and encodes back to what came */
			size_t m = 0;
			char *again = ccs_encode_job(j, &m);
			if (m != n || memcmp(again, p, n) != 0)
				abort();
			free(again);
		}
		ccs_job_free(b);
		break;
	}
	case 1: {
		nvrtc_out o;
		char *err = NULL;
		if (ccs_decode_answer(p, n, &o, &err) == 0) {
			if (!o.cubin || o.nk < 0)
				abort();
			for (int i = 0; i < o.nk; i++)
				if (!o.lowered[i])
					abort();
			nvrtc_out_free(&o);
		} else if (!err) {
			abort();
		}
		free(err);
		break;
	}
	case 2: {
		int fd[2];
		if (n > 60000 || pipe(fd) != 0)
			return 0;
		if (write(fd[1], p, n) != (ssize_t)n)
			abort();
		close(fd[1]);
		for (int k = 0; k < 64; k++) {
			uint32_t type = 0;
			void *pl = NULL;
			uint64_t len = 0;
			int r = wire_recv_until(fd[0], &type, &pl, &len, now_ns() + 100000000ull, NULL);
			if (r == 0 && len > 0 && (!pl || ((char *)pl)[len] != 0))
				abort();
			free(pl);
			if (r != 0) {
				if (r < 0 && errno == ETIMEDOUT)
					abort(); /* a closed pipe ends every wait */
				break;
			}
		}
		close(fd[0]);
		break;
	}
	}
	return 0;
}
