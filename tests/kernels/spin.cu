// spin.cu: a kernel that never finishes, for the timeout tests
//
// Not a lesson: tests/gpu.sh runs it (with `timeout 2`) to check that a kernel
// making no progress is stopped by killing the GPU worker, and that the next
// run works in a fresh worker. The loop reads flag[0] through a volatile
// pointer, so the compiler must reload it every time and cannot prove the
// loop endless (an endless loop without side effects may be deleted); flag
// is zero-initialised and nothing ever writes it.
//@ buffer flag int[1] zero
//@ grid  1
//@ block 1
//@ check none

__global__ void spin(int *flag)
{
	volatile int *f = flag;
	while (f[0] == 0) {
	}
}
