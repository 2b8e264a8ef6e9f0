/* ccprog.c: the program NVRTC compiles around a kernel file (ccprog.h). */
#include "ccprog.h"
#include "util.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A define NVRTC must see before every header: one a header can test
 * (reserved or a library's prefix). The others go after the toolkit
 * headers, where a change of value costs no re-parse of them. */
int ccprog_define_for_headers(const char *def)
{
	static const char *const prefixes[] = {
		"_", "CUB_", "CCCL_", "THRUST_", "LIBCUDACXX_", "CUDA_", "NV_", "CUTLASS_", "CUTE_",
	};
	for (size_t i = 0; i < ARRAY_LEN(prefixes); i++)
		if (strncmp(def, prefixes[i], strlen(prefixes[i])) == 0)
			return 1;
	return 0;
}

/* The header at path starts with an include guard or `#pragma once`: the
 * file's own #include of it after the precompiled one reads nothing. */
int ccprog_guarded(const char *path)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return 0;
	char buf[16384];
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	/* the first two directives, after comments */
	char words[2][3][64];
	int nd = 0;
	for (const char *p = buf; *p && nd < 2;) {
		if (p[0] == '/' && p[1] == '*') {
			const char *e = strstr(p + 2, "*/");
			if (!e)
				return 0;
			p = e + 2;
		} else if (p[0] == '/' && p[1] == '/') {
			while (*p && *p != '\n')
				p++;
		} else if (*p == '#') {
			p++;
			memset(words[nd], 0, sizeof words[nd]);
			for (int w = 0; w < 3; w++) {
				while (*p == ' ' || *p == '\t')
					p++;
				int l = 0;
				while (*p && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r' && l < 63)
					words[nd][w][l++] = *p++;
			}
			while (*p && *p != '\n')
				p++;
			nd++;
		} else if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') {
			p++;
		} else {
			return 0;
		}
	}
	if (nd >= 1 && strcmp(words[0][0], "pragma") == 0 && strcmp(words[0][1], "once") == 0)
		return 1;
	return nd == 2 && strcmp(words[0][0], "ifndef") == 0 && strcmp(words[1][0], "define") == 0 &&
	       words[0][1][0] && strcmp(words[0][1], words[1][1]) == 0;
}

/* A name can stand in a #include "..." line of the program. */
int ccprog_includable(const char *name)
{
	for (const char *p = name; *p; p++)
		if (*p == '"' || *p == '\\' || *p == '\n' || *p == '\r' || (unsigned char)*p < 0x20)
			return 0;
	return *name != 0;
}

/* NVRTC's words for a macro of the program around the file: "(declared
 * at line 3 of k.cu (defines))" becomes "(a define: //@ define or set)".
 * Takes msg; returns it or its rewrite. */
char *ccprog_name_defines(char *msg, const char *program)
{
	if (!msg)
		return NULL;
	sbuf b = {0};
	const char *p = msg;
	for (const char *q; (q = strstr(p, "(declared at line ")) != NULL;) {
		const char *d = q + strlen("(declared at line ");
		while (*d >= '0' && *d <= '9')
			d++;
		size_t pl = strlen(program);
		if (strncmp(d, " of ", 4) == 0 && strncmp(d + 4, program, pl) == 0 && d[4 + pl] == ')') {
			sb_add(&b, p, (size_t)(q - p));
			sb_puts(&b, "(a define: //@ define or set)");
			p = d + 5 + pl;
		} else {
			sb_add(&b, p, (size_t)(d - p));
			p = d;
		}
	}
	sb_puts(&b, p);
	free(msg);
	return sb_steal(&b);
}

