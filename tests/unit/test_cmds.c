/* test_cmds.c: the command table, walked: every command has what `help`,
 * the usage line, completion and the dispatcher read from it. */
#include "test.h"

#include <ctype.h>
#include <string.h>

#include "cmds.h"

/* Help and synopsis text is one line, worded as the rest of cuplay:
 * starts lowercase, no full stop at the end. */
static int one_line(const char *s)
{
	return s && !strchr(s, '\n') && !strchr(s, '\t');
}

TEST(table)
{
	int n = 0;
	const command *const *t = command_table(&n);
	CHECK(t != NULL && n > 20);
	for (int i = 0; i < n; i++) {
		const command *c = t[i];
		int ok = 1;
#define ITEM(cond) do { CHECK(cond); if (!(cond)) ok = 0; } while (0)
		ITEM(c->name && c->name[0]);
		for (const char *p = c->name; p && *p; p++)
			ITEM(islower((unsigned char)*p));
		ITEM(c->fn != NULL);
		/* a synopsis; empty only for a command that takes no arguments */
		ITEM(c->args && one_line(c->args));
		ITEM(c->args && (c->args[0] != 0) == (c->max_args != 0));
		ITEM(c->args && c->args[0] != ' ' && (!c->args[0] || c->args[strlen(c->args) - 1] != ' '));
		/* a help line */
		ITEM(c->help && c->help[0] && one_line(c->help));
		ITEM(c->help && islower((unsigned char)c->help[0]));
		ITEM(c->help && c->help[strlen(c->help) - 1] != '.');
		/* sane argument counts */
		ITEM(c->min_args >= 0 && c->min_args <= 8);
		ITEM(c->max_args == -1 || (c->max_args >= c->min_args && c->max_args <= 16));
		/* known flags, and flags that go together */
		ITEM((c->flags & ~(unsigned)CMD_FLAGS_ALL) == 0);
		ITEM(!(c->flags & CMD_FRESH_FILE) || (c->flags & CMD_NEEDS_FILE));
		ITEM(!(c->flags & CMD_WHOLE_LINE) || c->max_args == -1);
		/* completion */
		ITEM(c->compl >= COMPL_NONE && c->compl < COMPL__COUNT);
		ITEM((c->compl == COMPL_WORDS) == (c->words != NULL));
		ITEM(c->compl == COMPL_NONE || c->max_args != 0);
		/* found by name, once */
		ITEM(command_find(c->name) == c);
		for (int j = 0; j < i; j++)
			ITEM(strcmp(t[j]->name, c->name) != 0);
#undef ITEM
		if (!ok)
			fprintf(stderr, "  in command '%s'\n", c->name ? c->name : "(null)");
	}
	CHECK(command_find("exit") == command_find("quit"));
	CHECK(command_find("nosuch") == NULL);
}

/* What the dispatcher honours is set where the handlers rely on it. */
TEST(flags)
{
	const char *fresh[] = { "run", "sweep", "compare", "info", "ptx", "sass", "sanitize" };
	for (size_t i = 0; i < sizeof fresh / sizeof fresh[0]; i++) {
		const command *c = command_find(fresh[i]);
		CHECK(c && (c->flags & CMD_NEEDS_FILE) && (c->flags & CMD_FRESH_FILE));
	}
	const command *roof = command_find("roof");
	CHECK(roof && (roof->flags & CMD_NEEDS_GPU));
	const command *say = command_find("say");
	CHECK(say && (say->flags & CMD_WHOLE_LINE));
	const command *metrics = command_find("metrics"); /* `metrics on` needs no file */
	CHECK(metrics && !(metrics->flags & CMD_NEEDS_FILE));
}

int main(void)
{
	RUN(table);
	RUN(flags);
	return test_report("cmds");
}
