/* incscan.h: the headers a kernel file brings in, found the way NVRTC finds
 * them; for the compile cache key (every file the compiler reads from
 * outside the toolkit) and for the headers that can be compiled ahead
 * (precompiled).
 *
 * NVRTC 13, as measured: `#include "x"` looks in the directory of the file
 * that holds the directive, then along the -I list in order; `#include <x>`
 * along the -I list only; headers handed over in memory (nvrtcCreateProgram)
 * come before both; an absolute name is opened as it is. NVRTC cannot
 * report the files it read (it has no -M option), so they are found here.
 *
 * Every #include outside comments and literals counts, whatever #if is
 * around it: a header an #if leaves out can cost a recompile, never a stale
 * result. `#include MACRO` cannot be followed. Headers in toolkit
 * directories are not read (the toolkit's version stands for them). */
#ifndef CUPLAY_INCSCAN_H
#define CUPLAY_INCSCAN_H

#include <stddef.h>
#include <stdint.h>

#define INC_SIZE_MAX (16 << 20) /* larger headers are hashed by size, time and inode */
#define INC_FILES_MAX 512
#define INC_DEPTH_MAX 64

/* One directory of the -I list. */
typedef struct inc_dir {
	const char *path;
	int toolkit; /* the CUDA toolkit's: headers there are not read */
} inc_dir;

typedef enum inc_kind {
	INC_USER,     /* a file read (and hashed) */
	INC_TOOLKIT,  /* found in a toolkit directory */
	INC_MEMORY,   /* given to NVRTC in memory */
	INC_MISSING,  /* found nowhere (NVRTC says so if it matters) */
	INC_UNREADABLE
} inc_kind;

/* One #include directive. */
typedef struct inc_ref {
	char *name;     /* as written */
	int angle;      /* <name> */
	int from;       /* the file holding it: an index in files[] (0: the kernel file) */
	int line, col;  /* of the '#' */
	int leading;    /* in the kernel file, preceded only by comments, blank lines,
	                   other includes and `#pragma once` */
	inc_kind kind;
	int file;       /* INC_USER: index in files[]; else -1 */
	char *path;     /* where it was found (INC_USER, INC_TOOLKIT), else NULL */
} inc_ref;

/* One user file read; files[0] is the kernel file (not read again). */
typedef struct inc_file {
	char *path;
	uint8_t sha[32]; /* of the contents; of size, mtime and inode when big */
	int big;
} inc_file;

typedef struct inc_graph {
	inc_file *files;
	int nfiles;
	inc_ref *refs;
	int nrefs;
	int truncated; /* INC_FILES_MAX or INC_DEPTH_MAX reached */
} inc_graph;

/* The text of an in-memory header named `name`, or NULL. */
typedef const char *(*inc_memory_fn)(const char *name, void *ctx);

/* Scans the kernel file `path` (its text src) and, depth first, every user
 * header it includes. 0, or -1 with *err naming the file and line: an
 * #include of something that is not a regular file (a FIFO, /dev/zero), a
 * header with a NUL or 0xff byte. */
int inc_scan(const char *path, const char *src, const inc_dir *dirs, int ndirs,
             inc_memory_fn mem, void *ctx, inc_graph *g, char **err);
void inc_graph_free(inc_graph *g);

/* The directory a path's quoted includes start from: "." for "k.cu". */
char *inc_dirname(const char *path);

/* Where NVRTC would find `name` (see above); cur: the including file's
 * directory, NULL for none. Returns the kind; *path set (caller frees)
 * for INC_USER and INC_TOOLKIT. Does not consult in-memory headers. */
inc_kind inc_resolve(const inc_dir *dirs, int ndirs, const char *cur, const char *name, int angle,
                     char **path);

#endif
