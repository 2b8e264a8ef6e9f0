/* troof.h: the tensor roofs: cuplay's own mma.sync and wgmma kernels
 * (kfile/roofsrc) timed on the device, kept in the cache directory like the
 * memory roofs, and shown by `roof` beside the FP32 roof and the
 * datasheet's figures. */
#ifndef CUPLAY_TROOF_H
#define CUPLAY_TROOF_H

#include "app.h"

/* Measures the tensor roofs of the current device (app.troof) without a
 * word but its errors, or reads them from the cache; fresh: measured even
 * where the cache has them (`roof`). 0, or -1 with the error said. */
int troof_measure(app *a, int fresh);

/* The rows `roof` shows for them (3 columns: roof, measured, how): one per
 * precision, with the datasheet's figure; none before sm_80. */
void troof_rows(app *a, table *t);
/* Their figures for csv/json: keys "fp16_mma_gflops", "fp16_wgmma_gflops",
 * "fp16_gflops" (the roof), "fp16_datasheet_gflops", ... (n at most 4 *
 * TP_N); 0 unknown. Returns how many. */
int troof_figures(app *a, const char **keys, double *v);

#endif
