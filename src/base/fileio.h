/* fileio.h: files a user names (save, plot, report, record, source, use):
 * what a path is when it is not a regular file, and writes that never
 * follow a link planted at a temporary name, never wait on a FIFO that no
 * one reads, and never replace a device node; and the files of a folder
 * cuplay keeps (the compile cache, precompiled headers), oldest first. */
#ifndef CUPLAY_FILEIO_H
#define CUPLAY_FILEIO_H

#include "util.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

/* "a directory", "a FIFO", "a character device", "a block device", "a
 * socket" for a mode that is not a regular file's; NULL for a regular file. */
const char *file_kind_of_mode(mode_t mode);

/* What path is, following links, when it exists and is not a regular
 * file (as file_kind_of_mode); NULL when it is one or does not exist. */
const char *file_kind(const char *path);

/* Writes data as the whole contents of path:
 *   - no file there, or a regular file: replaced at once (a temporary file
 *     made with mkstemp in the same directory, then renamed over it), its
 *     mode kept (a new one: 0666 less the umask); a file the user may not
 *     write is refused ("Permission denied"), as the shell's `>` refuses it;
 *   - a symbolic link: written through, to the file it points to, as the
 *     shell's `>` does (the link stays);
 *   - /dev/stdout, /dev/stderr, /dev/fd/N: written to that descriptor of
 *     this process, where its output stands;
 *   - a character device or a FIFO that a program reads (/dev/null, a
 *     pipe): written in place, never replaced;
 *   - a directory, a block device, a socket, a FIFO no one reads: refused.
 * 0, or -1 with *why (may be NULL; caller frees) saying why, e.g. "No space
 * left on device", "it is a directory". */
int write_file(const char *path, const void *data, size_t len, char **why);

/* write_file of b's text, then b freed: 0, or -1 with *err (caller frees)
 * "cannot write 'PATH': why". */
int write_sbuf(const char *path, sbuf *b, char **err);

/* Notes the descriptors open at the start (given by the program that
 * started this one), called first in main: any other above 2 is the
 * program's own. write_file and open_append refuse a file the program
 * has open itself (a session it reads, a recording, the socket to its
 * compile server: "cuplay itself has it open ..."), a descriptor of its
 * own ("/dev/fd/N"), and a file guarded. */
void file_note_inherited(void);

/* Guards path from write_file and open_append ("it is WHAT"), in place of
 * what was guarded as what (a static string) before; NULL: none. */
void file_guard(const char *what, const char *path);

/* Forgets the guarded files and the descriptors noted at the start. */
void file_guards_free(void);

/* Opens path to append to (record): created when absent (0666 less the
 * umask), written through a link; a character device or a FIFO that a
 * program reads is written in place; what write_file refuses is refused.
 * The descriptor, or -1 with *why (caller frees). */
int open_append(const char *path, char **why);

/* A file of a folder: its path ("DIR/NAME"), size and modification time. */
typedef struct dir_file {
	char *path;
	uint64_t size;
	struct timespec mtime;
} dir_file;

/* The regular files of dir (links are not followed) whose names keep
 * accepts, least recently modified first (equal times: by path), into
 * *out (NULL when none; dir_files_free frees it); how many, 0 when dir
 * cannot be read. */
int dir_files(const char *dir, int (*keep)(const char *name), dir_file **out);
void dir_files_free(dir_file *v, int n);

#endif
