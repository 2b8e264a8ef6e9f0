/* board.h: `cuplay --board`: the class board (docs/formats.md, the board's
 * API; docs/classroom.md, running a class with it). */
#ifndef CUPLAY_BOARD_H
#define CUPLAY_BOARD_H

/* Runs the board until SIGINT or SIGTERM: the exit status. exe is this
 * program (run as `EXE --verify`, unless CUPLAY_BOARD_VERIFY names
 * another); args are those after --board. */
int board_main(const char *exe, int argc, char **argv);

#endif
