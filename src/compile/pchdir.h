/* pchdir.h: the folders of NVRTC's precompiled headers. */
#ifndef CUPLAY_PCHDIR_H
#define CUPLAY_PCHDIR_H

/* This process's folder for precompiled headers, made now under $TMPDIR
 * (else /tmp) as cuplay-pch-PID-XXXXXX, after the folders of cuplays that
 * were killed before they could remove theirs are swept away; NULL when
 * it cannot be made. */
char *pch_dir_make(void);
/* Removes the precompiled headers of dir but the newest `keep` (NVRTC
 * makes new ones when it misses one it made). */
void pch_trim(const char *dir, int keep);
/* Removes from tmpdir the precompiled-header folders (cuplay-pch-PID-*)
 * that this user's cuplays left when killed: those whose process is gone,
 * owned by this user, not links. Returns how many went. */
int ccache_sweep_pch(const char *tmpdir);

#endif
