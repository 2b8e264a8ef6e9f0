/* cmds_board.h: the commands of a class board's client: submit, board and
 * token (their entries, for the command table). */
#ifndef CUPLAY_CMDS_BOARD_H
#define CUPLAY_CMDS_BOARD_H

#include "command.h"

extern const command cmd_submit_entry;
extern const command cmd_board_entry;
extern const command cmd_token_entry;

#endif
