/* cxxlex.c: the little C++ lexing that kernel discovery and include
 * scanning share: where comments, string and character literals end. */
#include "cxxlex.h"
#include "util.h"

#include <ctype.h>
#include <string.h>

/* 1 when the newline at src[j] is escaped by a backslash (a line splice). */
int cxx_spliced(const char *src, size_t j)
{
	if (j >= 1 && src[j - 1] == '\\')
		return 1;
	return j >= 2 && src[j - 1] == '\r' && src[j - 2] == '\\';
}

/* 1 when the quote at src[i] is a C++14 digit separator, as in 1'000'000. */
static int digit_separator(const char *src, size_t i)
{
	size_t k = i;
	while (k > 0 && (is_ident_char((unsigned char)src[k - 1]) || src[k - 1] == '\''))
		k--;
	return k < i && isdigit((unsigned char)src[k]);
}

/* 1 when the quote at src[i] opens a raw string: R"x(...)x", u8R"(...)"... */
static int raw_string_start(const char *src, size_t i)
{
	if (i == 0 || src[i - 1] != 'R')
		return 0;
	size_t k = i - 1;
	if (k >= 2 && src[k - 2] == 'u' && src[k - 1] == '8')
		k -= 2;
	else if (k >= 1 && (src[k - 1] == 'u' || src[k - 1] == 'U' || src[k - 1] == 'L'))
		k -= 1;
	return k == 0 || !is_ident_char((unsigned char)src[k - 1]);
}

/* End of the raw string whose quote is at src[i], or 0 when it is malformed. */
static size_t skip_raw_string(const char *src, size_t i)
{
	size_t d = i + 1, dn = 0;
	while (src[d + dn] && src[d + dn] != '(' && dn <= 16) {
		if (isspace((unsigned char)src[d + dn]) || src[d + dn] == ')' || src[d + dn] == '\\')
			return 0;
		dn++;
	}
	if (src[d + dn] != '(')
		return 0;
	for (size_t j = d + dn + 1; src[j]; j++)
		if (src[j] == ')' && strncmp(src + j + 1, src + d, dn) == 0 && src[j + 1 + dn] == '"')
			return j + dn + 2;
	return strlen(src);
}

/* End of the quoted literal that starts at src[i] (quote q); an unterminated
 * one ends at the end of its line. */
static size_t skip_quoted(const char *src, size_t i, char q)
{
	size_t j = i + 1;
	while (src[j] && src[j] != q && src[j] != '\n') {
		if (src[j] == '\\' && src[j + 1])
			j++;
		j++;
	}
	return src[j] == q ? j + 1 : j;
}

/* End of the comment, string or character literal that starts at src[i],
 * or i when none starts there. A // comment ends before its newline. */
size_t cxx_skip_literal_or_comment(const char *src, size_t i)
{
	const char *p = src + i;
	if (p[0] == '/' && p[1] == '/') {
		size_t j = i + 2;
		while (src[j] && !(src[j] == '\n' && !cxx_spliced(src, j)))
			j++;
		return j;
	}
	if (p[0] == '/' && p[1] == '*') {
		const char *e = strstr(p + 2, "*/");
		return e ? (size_t)(e - src) + 2 : strlen(src);
	}
	if (p[0] == '"') {
		size_t e = raw_string_start(src, i) ? skip_raw_string(src, i) : 0;
		return e ? e : skip_quoted(src, i, '"');
	}
	if (p[0] == '\'' && !digit_separator(src, i))
		return skip_quoted(src, i, '\'');
	return i;
}

int cxx_bad_byte(const char *buf, size_t len, int *line, int *col)
{
	int l = 1;
	size_t bol = 0;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)buf[i];
		if (c == 0 || c == 0xff) {
			*line = l;
			*col = (int)(i - bol) + 1;
			return c;
		}
		if (c == '\n') {
			l++;
			bol = i + 1;
		}
	}
	return -1;
}

char *cxx_bad_byte_msg(const char *path, int byte, int line, int col)
{
	if (byte == 0)
		return xasprintf("%s:%d:%d: a NUL byte: the file would end here for the compiler "
		                 "(is it a text file?)", path, line, col);
	return xasprintf("%s:%d:%d: byte 0xff, which NVRTC takes for the end of the file "
	                 "(is the file saved as UTF-8?)", path, line, col);
}
