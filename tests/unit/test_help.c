/* test_help.c: the command table and the help made from it: every command
 * has a synopsis, a one-line help that fits the list, and a long help with
 * an example of itself; every line of help, of each command's help and of
 * each topic fits 80 columns; the refs topic is the reference table's. */
#include "cmds.h"
#include "help.h"
#include "ref.h"
#include "test.h"

#include <stdlib.h>

/* The widest line of text; a message names the first over the limit. */
static int widest(const char *what, const char *text)
{
	int w = 0;
	for (const char *p = text; *p;) {
		int l = (int)strcspn(p, "\n");
		if (l > HELP_WIDTH && w <= HELP_WIDTH)
			fprintf(stderr, "  %s: a line of %d columns: %.*s\n", what, l, l, p);
		w = l > w ? l : w;
		p += l + (p[l] == '\n');
	}
	return w;
}

/* Does text have a line that starts with "  NAME" (an example of NAME)? */
static int has_example(const char *text, const char *name)
{
	size_t nl = strlen(name);
	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (strncmp(p, "  ", 2) == 0 && strncmp(p + 2, name, nl) == 0 && (p[2 + nl] == ' ' || p[2 + nl] == '\n'))
			return 1;
	return 0;
}

TEST(every_command)
{
	int n;
	const command *const *t = command_table(&n);
	CHECK(n > 30);
	for (int i = 0; i < n; i++) {
		const command *c = t[i];
		CHECK(c->name && c->name[0] && c->fn && c->args && c->help && c->help[0]);
		/* the one-line help fits the list's column: one line a command */
		if ((int)strlen(c->help) > HELP_WIDTH - 28)
			fprintf(stderr, "  %s: one-line help of %zu characters\n", c->name, strlen(c->help));
		CHECK((int)strlen(c->help) <= HELP_WIDTH - 28);
		/* a command that needs arguments says which */
		CHECK(c->min_args == 0 || c->args[0]);
		CHECK(c->max_args < 0 || c->max_args >= c->min_args);
		CHECK(c->long_help && strlen(c->long_help) > 40);
		if (!c->long_help || !has_example(c->long_help, c->name))
			fprintf(stderr, "  %s: no example in its long help\n", c->name);
		CHECK(c->long_help && has_example(c->long_help, c->name));
		CHECK(command_find(c->name) == c);
		char *h = help_command(c);
		CHECK(strncmp(h, "usage: ", 7) == 0 && strstr(h, c->name) == h + 7);
		CHECK(widest(c->name, h) <= HELP_WIDTH);
		free(h);
	}
	CHECK(command_find("exit") == command_find("quit"));
	CHECK(command_find("nonsense") == NULL);
}

TEST(the_list)
{
	int n;
	const command *const *t = command_table(&n);
	char *l = help_list(t, n);
	CHECK(widest("help", l) <= HELP_WIDTH);
	/* one line a command: its name at the start, after two spaces */
	for (int i = 0; i < n; i++) {
		char *want = xasprintf("\n  %s ", t[i]->name);
		CHECK(strstr(l, want) != NULL);
		free(want);
	}
	/* a long synopsis is cut at a word, "..." marking the cut */
	CHECK(strstr(l, "\n  sweep NAME=v1,v2,... ...  ") != NULL);
	CHECK(strstr(l, "\n  use FILE  ") != NULL);
	for (const char *const *tp = help_topics(); *tp; tp++) {
		char *want = xasprintf("'help %s'", *tp);
		CHECK(strstr(l, want) != NULL);
		free(want);
	}
	free(l);
	char *sw = help_command(command_find("sweep"));
	CHECK(strstr(sw, "[on all]") != NULL && strstr(sw, "on all\n") != NULL);
	free(sw);
	/* a synopsis wider than a line wraps under itself */
	char *ex = help_command(command_find("expect"));
	CHECK(strstr(ex, "\n              ") != NULL);
	free(ex);
}

TEST(topics)
{
	int nt = 0;
	for (const char *const *tp = help_topics(); *tp; tp++, nt++) {
		char *s = help_topic(*tp);
		CHECK(s && strlen(s) > 200);
		CHECK(s && widest(*tp, s) <= HELP_WIDTH);
		free(s);
	}
	CHECK(nt == 3);
	CHECK(help_topic("nonsense") == NULL);

	char *h = help_topic("header");
	static const char *const keywords[] = {
		"define", "param", "buffer", "grid", "block", "smem", "bytes", "flops", "check", "check  at",
		"check  none", "tol", "kernel K", "skip", "managed", "link", "cudadevrt", "cdiv", "SM_COUNT",
	};
	for (size_t i = 0; i < ARRAY_LEN(keywords); i++) {
		if (!strstr(h, keywords[i]))
			fprintf(stderr, "  help header: no '%s'\n", keywords[i]);
		CHECK(strstr(h, keywords[i]) != NULL);
	}
	free(h);

	/* every reference, with its signature and default float tolerance */
	char *r = help_topic("refs");
	int n;
	const ref_fn *t = ref_table(&n);
	CHECK(n >= 11);
	for (int i = 0; i < n; i++) {
		char *syn = xasprintf("\n  %s\n", t[i].synopsis);
		CHECK(strstr(r, syn) != NULL);
		free(syn);
		CHECK(t[i].what && strstr(r, t[i].what) != NULL);
	}
	CHECK(strstr(r, "saxpy(alpha, x, y)\n      out[i] = alpha * x[i] + y[i]; scalars: alpha; float tolerance 1e-5")
	      != NULL);
	CHECK(strstr(r, "transpose(in, rows, cols)") != NULL && strstr(r, "scalars: rows, cols; float tolerance 1e-4"));
	free(r);

	char *b = help_topic("buffers");
	static const char *const fills[] = { "random", "zero", "one", "iota", "value(X)", "poison" };
	for (size_t i = 0; i < ARRAY_LEN(fills); i++) {
		char *want = xasprintf("\n  %s ", fills[i]);
		CHECK(strstr(b, want) != NULL);
		free(want);
	}
	/* the samples come from the fill itself */
	CHECK(strstr(b, "float: NaN, NaN, ...  int: -1, -1, ...") != NULL);
	CHECK(strstr(b, "float: 0, 1, ...  int: 0, 1, ...") != NULL);
	CHECK(strstr(b, "float: 3, 3, ...  int: 3, 3, ...") != NULL);
	CHECK(strstr(b, "float 4, double 8, int 4,") != NULL && strstr(b, "half 2, bfloat16 2, int8 1") != NULL);
	free(b);
}

TEST(layout)
{
	sbuf b = {0};
	help_format(&b, "one two\nthree\n\n  kept   as   is\nfour\n", 80);
	CHECK_STREQ(b.s, "one two three\n\n  kept   as   is\nfour\n");
	sb_free(&b);
	help_format(&b, "aaaa bbbb cccc dddd\n", 10);
	CHECK_STREQ(b.s, "aaaa bbbb\ncccc dddd\n");
	sb_free(&b);
	/* a word wider than the line gets a line of its own */
	help_format(&b, "a bbbbbbbbbbbb c\n", 5);
	CHECK_STREQ(b.s, "a\nbbbbbbbbbbbb\nc\n");
	sb_free(&b);
	sb_wrap(&b, "x y z", 8, 2, 10);
	CHECK_STREQ(b.s, "x\n  y z");
	sb_free(&b);
}

int main(void)
{
	RUN(every_command);
	RUN(the_list);
	RUN(topics);
	RUN(layout);
	return test_report("help");
}
