/* search.h: where kernel files and sessions are found by name.
 *
 * The search path, in order: ./kernels_src (for sessions ./sessions), then
 * DIR/kernels_src (DIR/sessions) for each DIR of CUPLAY_PATH
 * (colon-separated), then the installed share directory: the binary's
 * BIN/../share/cuplay, else the one the build was configured with
 * (CUPLAY_SHAREDIR). Of files of the same name the first one found wins. */
#ifndef CUPLAY_SEARCH_H
#define CUPLAY_SEARCH_H

typedef enum search_kind { SEARCH_KERNELS, SEARCH_SESSIONS } search_kind;

/* The binary's path, for the share directory next to it (NULL: forget). */
void search_set_exe(const char *exe);

/* The directories of the search path that exist, in order: "kernels_src",
 * "/home/x/course/kernels_src", ... (caller frees with search_strv_free). */
char **search_dirs(search_kind k, int *n);
void search_strv_free(char **v, int n);

/* The file NAME names, or NULL when there is none (caller frees).
 * Kernel files: a name with a '/' is a path (NAME or NAME.cu); a bare name
 * is looked for as DIR/NAME and DIR/NAME.cu in each directory, then as a
 * path. Sessions: NAME as a path first (a file on the command line means
 * that file), then DIR/NAME and DIR/NAME.session for a bare name. */
char *search_find(search_kind k, const char *name);

/* When search_find finds nothing because what NAME names is there but is
 * not a regular file (a directory, a device, a FIFO), looked for in the
 * same order: its path (caller frees), *kind saying what it is ("a
 * directory"); else NULL. */
char *search_refused(search_kind k, const char *name, const char **kind);

typedef struct search_entry {
	char *name;  /* without the suffix: "transpose" */
	char *path;  /* the file used: "kernels_src/transpose.cu" */
	int dir;     /* its directory, an index in search_dirs' list */
	int hides;   /* how many files of this name later directories hold */
} search_entry;

/* Every kernel file (*.cu) or session (*.session) of the search path, the
 * first of each name, sorted by name; *dirs gets search_dirs' list (caller
 * frees both, with search_list_free and search_strv_free). */
search_entry *search_list(search_kind k, int *n, char ***dirs, int *ndirs);
void search_list_free(search_entry *e, int n);

/* The first comment line of a session file ("# Lesson 4: bank conflicts"
 * gives "Lesson 4: bank conflicts"), or NULL (caller frees). */
char *search_session_summary(const char *path);

#endif
