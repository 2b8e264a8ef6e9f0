/* cxxlex.h: where comments and literals of C++ source end, for the scanners
 * that look for declarations (spec.c) and #include lines (incscan.c). */
#ifndef CUPLAY_CXXLEX_H
#define CUPLAY_CXXLEX_H

#include <stddef.h>

/* 1 when the newline at src[j] is escaped by a backslash (a line splice). */
int cxx_spliced(const char *src, size_t j);

/* End of the comment, string or character literal (raw strings and digit
 * separators included) that starts at src[i], or i when none starts there.
 * A // comment ends before its newline; an unterminated literal at the end
 * of its line. */
size_t cxx_skip_literal_or_comment(const char *src, size_t i);

/* The first byte of buf[0..len) that no compiler input may hold: a NUL
 * (C strings end there: the rest of the file would vanish) or 0xff (NVRTC
 * takes it for the end of its input). Returns the byte, with its 1-based
 * *line and *col, or -1 when there is none. */
int cxx_bad_byte(const char *buf, size_t len, int *line, int *col);

/* A message for such a byte at path:line:col (caller frees). */
char *cxx_bad_byte_msg(const char *path, int byte, int line, int col);

#endif
