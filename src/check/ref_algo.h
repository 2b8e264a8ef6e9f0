/* ref_algo.h: CPU references of algorithms that take several kernels on a
 * GPU (scans, softmax, a linear layer with its ReLU), in double precision,
 * for ref.c's table. Each fills out[0..n) from its arguments (refarg.h's
 * ref_arg) or returns -1 with *err. */
#ifndef CUPLAY_REF_ALGO_H
#define CUPLAY_REF_ALGO_H

#include <stdint.h>
#include "refarg.h"

/* out[i] = in[0] + ... + in[i] */
int ref_scan(const ref_arg *a, double *out, uint64_t n, char **err);
/* out[i] = in[0] + ... + in[i-1]; out[0] = 0 */
int ref_exscan(const ref_arg *a, double *out, uint64_t n, char **err);
/* each row of in (rows x cols, row-major): exp(x - max) / sum of exp(x - max) */
int ref_softmax(const ref_arg *a, double *out, uint64_t n, char **err);
/* out = max(0, A * B + bias): A is M x K, B K x N, bias N (added to each row) */
int ref_linear_relu(const ref_arg *a, double *out, uint64_t n, char **err);

#endif
