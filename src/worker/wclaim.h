/* wclaim.h: a GPU claimed for a process's session among those of one
 * kind (wclaim.c says why and how). */
#ifndef CUPLAY_WCLAIM_H
#define CUPLAY_WCLAIM_H

/* Most processes counted on one GPU: a claim beyond them is not counted. */
#define CLAIM_SLOTS 64
/* Most GPUs of a host a claim chooses among. */
#define CLAIM_MAX_GPUS 64

/* Claims one of the GPUs ids[0 .. n) (their lock names: PCI bus ids) for
 * this process, in dir: want >= 0 claims that one (a GPU picked by the
 * user is counted too); want < 0 the least claimed, the first of equals.
 * The claim is held while *fd stays open (close-on-exec). counts[i]
 * (may be NULL): the claims of GPU i found, this one not counted. Returns
 * the index claimed, or, where no claim can be had (the directory, a
 * file system without flock), want (0 if want < 0) with *fd -1 and *why
 * set (static text). */
int gpu_claim(const char *dir, const char *const *ids, int n, int want, int *fd, int *counts,
              const char **why);

/* The directory of the locks and claims: $CUPLAY_LOCK_DIR, else /tmp. */
const char *gpu_lock_dir(void);

#endif
