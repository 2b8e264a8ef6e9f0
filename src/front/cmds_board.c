/* cmds_board.c: submit, board and token, each entry beside its handler. */
#include "cmds_board.h"

#include "submit.h"

static int cmd_submit(app *a, int argc, char **argv, const char *rest)
{
	(void)rest;
	return app_submit(a, argc > 1 ? argv[1] : NULL, argc > 2 ? argv[2] : NULL);
}

static const char lh_submit[] =
	"Sends the loaded kernel file's text to the class board ('board' names it, 'token' gives your "
	"token; or CUPLAY_BOARD and CUPLAY_TOKEN) for the open exercise of KERNEL (default: the one the board's "
	"open exercises and the file agree on; EXERCISE names it where several do). The board compiles and runs "
	"it itself, on its GPUs, under the exercise's header (its sizes, checks and timing, not the file's), "
	"checks it on fresh inputs too, and times it against the exercise's baseline. Meanwhile submit shows "
	"where it stands (queued at position N, running); Ctrl-C stops the waiting (the submission goes on at "
	"the board). Then its result: check ok or the first check that failed, the median with its 95% "
	"interval, the speedup over the baseline, the rank.\n"
	"\n"
	"Examples:\n"
	"  board http://teacher-host:8470/\n"
	"  token 3f9c0a...\n"
	"  submit transpose_tiled\n";
const command cmd_submit_entry = {
	.name = "submit",
	.fn = cmd_submit,
	.args = "[KERNEL [EXERCISE]]",
	.help = "send the file to the class board",
	.min_args = 0,
	.max_args = 2,
	.flags = CMD_NEEDS_FILE | CMD_FRESH_FILE,
	.compl = COMPL_KERNEL,
	.long_help = lh_submit,
};

static int cmd_board(app *a, int argc, char **argv, const char *rest)
{
	(void)rest;
	return app_board(a, argc > 1 ? argv[1] : NULL);
}

static const char lh_board[] =
	"Names the class board 'submit' sends to (http:// or https://; the teacher gives it), or shows it. "
	"Without one, CUPLAY_BOARD's.\n"
	"\n"
	"Example:\n"
	"  board http://teacher-host:8470/\n";
const command cmd_board_entry = {
	.name = "board",
	.fn = cmd_board,
	.args = "[URL]",
	.help = "the class board submit sends to",
	.min_args = 0,
	.max_args = 1,
	.compl = COMPL_NONE,
	.long_help = lh_board,
};

static int cmd_token(app *a, int argc, char **argv, const char *rest)
{
	(void)rest;
	return app_token(a, argc > 1 ? argv[1] : NULL);
}

static const char lh_token[] =
	"Gives the token the teacher issued you, which 'submit' sends with your file (never shown again), "
	"or says where the token comes from. Without one, CUPLAY_TOKEN's.\n"
	"\n"
	"Example:\n"
	"  token 3f9c0a...\n";
const command cmd_token_entry = {
	.name = "token",
	.fn = cmd_token,
	.args = "[TOKEN]",
	.help = "your token for the class board",
	.min_args = 0,
	.max_args = 1,
	.compl = COMPL_NONE,
	.long_help = lh_token,
};
