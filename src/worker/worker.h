/* worker.h: the GPU worker's entry, the child side of client.h: a process
 * of this same binary (`--worker RFD WFD DEVICE WIRE_VERSION`) that owns
 * the CUDA context and serves the front end's requests over two pipes. */
#ifndef CUPLAY_WORKER_H
#define CUPLAY_WORKER_H

/* `--worker RFD WFD DEVICE WIRE_VERSION`, the arguments after --worker.
 * Refuses a front end of another wire version (before it loads the
 * driver), else serves requests until the pipe closes. Returns the exit
 * code. Under a wrapper (CUPLAY_WORKER_WRAPPED=1, which wc_start_under
 * sets: compute-sanitizer, which never times) CUPTI is not set up ahead. */
int worker_main(int argc, char **argv);

#endif
