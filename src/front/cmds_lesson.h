/* cmds_lesson.h: the commands of lessons and the session: say, lessons, expect, pause, record, quit (their entries, for the command table). */
#ifndef CUPLAY_CMDS_LESSON_H
#define CUPLAY_CMDS_LESSON_H

#include "command.h"

extern const command cmd_say_entry;
extern const command cmd_lessons_entry;
extern const command cmd_expect_entry;
extern const command cmd_pause_entry;
extern const command cmd_record_entry;
extern const command cmd_quit_entry;
/* After a command is checked and before it runs: the command line into
 * the `record` file, when one is open. */
void record_line(app *a, const command *c);

#endif
