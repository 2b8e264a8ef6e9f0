// oob.cu: a kernel that writes far outside its buffer, for the crash tests
//
// Not a lesson: tests/gpu.sh runs it to check that an illegal address (a
// sticky error: the CUDA context is lost) costs only the GPU worker, that the
// REPL reports it in one line, and that the next run works in a fresh worker.
// Each thread writes element -(out / 4) + i of its buffer, i.e. virtual
// address 4 * i: the first page, which neither the GPU nor the host ever maps,
// so the fault is certain (an offset "just past the end" could land in some
// other allocation, or in host memory that the GPU may reach).
//@ param  N = 32
//@ buffer out float[N] zero output
//@ grid  1
//@ block 32
//@ check none

__global__ void oob_write(float *out, int N)
{
	const long i = threadIdx.x;
	const long below = (long)((unsigned long long)out / sizeof(float));
	if (i < N)
		out[i - below] = 1.0f; // CUDA_ERROR_ILLEGAL_ADDRESS
}
