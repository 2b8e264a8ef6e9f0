/* wprintf.c: device printf. The driver writes what kernels print to
 * this process's stdout when a launch is synchronised, and the message of a
 * failed assert() to its stderr; the worker points stdout (and, during a
 * run, stderr) at a memory file and sends the user what one launch printed,
 * with a count of the rest (a timed kernel runs thousands of times). */
#include "wprintf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

void pf_open(wprintf *pf)
{
	pf->fd = -1;
	pf->err_hooked = 0;
	pf->own_err = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
	if (pf->own_err >= 0) {
		int d = dup(pf->own_err);
		w_errf = d >= 0 ? fdopen(d, "w") : NULL;
		if (d >= 0 && !w_errf)
			close(d);
	}
	fflush(stdout);
	int fd = memfd_create("cuplay-printf", MFD_CLOEXEC);
	if (fd < 0) {
		FILE *t = tmpfile();
		fd = t ? dup(fileno(t)) : -1;
		if (t)
			fclose(t);
	}
	if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0) {
		/* never print into the front end's output: drop it */
		FILE *n = freopen("/dev/null", "w", stdout);
		(void)n;
		if (fd >= 0)
			close(fd);
		return;
	}
	pf->fd = fd;
}

static uint64_t pf_size(wprintf *pf)
{
	struct stat st;
	fflush(stdout);
	if (pf->fd < 0 || fstat(pf->fd, &st) != 0)
		return 0;
	return (uint64_t)st.st_size;
}

void pf_reset(wrun *r, wprintf *pf)
{
	fflush(stdout);
	if (pf->fd >= 0 && ftruncate(pf->fd, 0) == 0)
		lseek(pf->fd, 0, SEEK_SET); /* shared with stdout, so its writes start again at 0 */
	pf->first_end = 0;
	pf->first_launches = 0;
	fflush(stderr);
	/* an assertion's message is caught only where fd 2 now points at the
	 * memory file; where it cannot, it goes where the worker's own go */
	pf->err_hooked = pf->fd >= 0 && pf->own_err >= 0 && dup2(pf->fd, STDERR_FILENO) >= 0;
	if (pf->fd >= 0 && pf->own_err >= 0 && !pf->err_hooked)
		w_trace(r, "device printf: assertion messages not caught: dup2: %s", strerror(errno));
}

/* stderr back to the worker's own; where it cannot be, fd 2 stays on the
 * memory file (emptied at each run) and the worker's own messages still
 * go through w_errf */
static void pf_unhook(wrun *r, wprintf *pf)
{
	fflush(stderr);
	if (!pf->err_hooked)
		return;
	pf->err_hooked = 0;
	if (dup2(pf->own_err, STDERR_FILENO) < 0)
		w_trace(r, "device printf: stderr not restored: dup2: %s", strerror(errno));
}

/* [from, to) of the memory file into res->printf_text. */
static void take(wrun *r, int fd, uint64_t from, uint64_t to)
{
	result *res = r->res;
	uint64_t n = to - from;
	size_t cap = sizeof res->printf_text - 1;
	res->printf_cut = n > cap;
	if (n > cap) {
		if (res->printf_tail)
			from = to - cap;
		n = cap;
	}
	ssize_t got = n ? pread(fd, res->printf_text, (size_t)n, (off_t)from) : 0;
	res->printf_len = got > 0 ? (uint32_t)got : 0;
	res->printf_text[res->printf_len] = 0;
}

static uint64_t lines_in(int fd, uint64_t from, uint64_t to)
{
	char buf[65536];
	uint64_t lines = 0, last = '\n';
	while (from < to) {
		size_t want = to - from > sizeof buf ? sizeof buf : (size_t)(to - from);
		ssize_t got = pread(fd, buf, want, (off_t)from);
		if (got <= 0)
			break;
		for (ssize_t i = 0; i < got; i++)
			lines += buf[i] == '\n';
		last = (unsigned char)buf[got - 1];
		from += (uint64_t)got;
	}
	return lines + (last != '\n'); /* a last line without its newline */
}

void pf_first(wrun *r, wprintf *pf)
{
	if (pf->first_end || pf->fd < 0)
		return;
	uint64_t end = pf_size(pf);
	if (end == 0)
		return;
	take(r, pf->fd, 0, end);
	r->res->printf_lines = lines_in(pf->fd, 0, end);
	pf->first_end = end;
	pf->first_launches = r->launches;
}

void pf_finish(wrun *r, wprintf *pf)
{
	result *res = r->res;
	if (pf->fd < 0)
		return;
	fflush(stderr);
	uint64_t end = pf_size(pf);
	pf_unhook(r, pf);
	if (res->status == RES_ERROR || res->status == RES_FATAL) {
		/* what the failing launch printed last: an assertion says
		 * where and why */
		if (end > 0) {
			res->printf_tail = 1;
			take(r, pf->fd, 0, end);
			res->printf_lines = lines_in(pf->fd, 0, end);
		}
		return;
	}
	if (!pf->first_end) {
		pf_first(r, pf);
		if (!pf->first_end)
			return;
	}
	res->printf_others = (int32_t)(r->launches - pf->first_launches);
	res->printf_more_bytes = end - pf->first_end;
	res->printf_more_lines = lines_in(pf->fd, pf->first_end, end);
}
