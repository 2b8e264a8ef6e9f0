/* child.h: a child process, started the one way every part of cuplay
 * starts one (the GPU worker, the compile server, the editor, the pager,
 * the CUDA tools). The front end has threads (the NVRTC warm-up, sweep
 * workers), so between fork and exec the child makes only
 * async-signal-safe calls: everything it needs (the command line, the
 * environment, the list of descriptors to keep) is made before the fork.
 * In the child SIGPIPE is back to its default (the front end ignores it;
 * a tool it starts must not), SIGINT as asked, every descriptor but 0-2
 * and those kept is closed, and an exec that fails is reported to the
 * parent as its errno over a close-on-exec pipe (the parent words it). */
#ifndef CUPLAY_CHILD_H
#define CUPLAY_CHILD_H

#include <stdio.h>
#include <sys/types.h>

/* SIGINT in the child, until the program it runs decides */
enum child_sigint {
	CHILD_SIGINT_DEFAULT, /* a Ctrl-C at the terminal ends it */
	CHILD_SIGINT_IGNORE,  /* ignored: the parent decides what a Ctrl-C ends */
	CHILD_SIGINT_BLOCKED, /* blocked through exec: the program unblocks it once its handler is in place */
};

typedef struct child_opts {
	const char *path;  /* the program, by its path (no PATH search) */
	char *const *argv; /* NULL-terminated */
	char *const *envp; /* NULL: this process's environment */
	int stdio[3];      /* a descriptor made the child's 0, 1, 2; -1 keeps this process's */
	int keep[2];       /* descriptors kept open across exec (close-on-exec cleared); -1 none */
	int sigint;        /* enum child_sigint */
	int die_with_parent; /* SIGKILL when this process ends (Linux) */
	const char *cwd;   /* the child's working directory; NULL: this process's */
	long cpu_s;        /* RLIMIT_CPU in seconds; 0: unchanged */
	long as_mb;        /* RLIMIT_AS in MiB; 0: unchanged */
	int new_group;     /* a process group of its own (killed whole by kill(-pid)) */
} child_opts;

/* Every descriptor -1, SIGINT default, no limits, this directory. */
void child_opts_init(child_opts *o);

/* Starts the child and waits until it has exec'd. Its pid, or -1 with
 * errno: that of fork, or of the exec that failed (the child is reaped). */
pid_t child_start(const child_opts *o);

/* `/bin/sh -c CMD` reading what is written to the returned stream (the
 * pager); NULL with errno when it could not start. child_pclose closes
 * the stream and waits for the child: its wait status, or -1. */
FILE *child_popen(const char *cmd, pid_t *pid);
int child_pclose(FILE *f, pid_t pid);

#endif
