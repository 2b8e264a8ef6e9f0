// features.cu: every directive and the C++ the discovery must see through
#include "common.cuh"
#define STR(x) "a \" //@ not a header" \
	R"x(raw ) " __global__ void nope() {} )x"
//@ define TILE = 16   // a comment
//@ define SCALE = 2.5
//@ param  n = 1'000'000
//@ param  alpha = -0.5
//@ param  count = cdiv(n, TILE) << 2
//@ buffer x double[n] value(-1.5e3) managed
//@ buffer idx unsigned[n] iota
//@ buffer big long[min(n, 1 << 20)] zero
//@ buffer y int[max(n, 1) % 7 + n] one output
//@ grid  cdiv(n, TILE), 1, 1
//@ block TILE, 2, (1)
//@ smem  TILE * 4
//@ flops 2 * n
//@ bytes 3 * n * 8
//@ check y = copy(y) tol 1e-6
//@ link cudadevrt
//@ kernel other skip
//@ kernel k2 check y = k1
//@ kernel k1 grid 1
//@ kernel k1 block 32
//@ kernel k1 smem 0
/* __global__ void commented(int a) {} */
template <typename T, int B = (3 > 2)>
__global__ void tmpl(T *p, int n) { }
__global__ void k1(const double *__restrict__ x, unsigned int *idx, long long *big, int *y,
                   size_t n, float alpha, double SCALE_, int count = 3, char c[] = 0)
{ }
__global__ void __launch_bounds__(256, 2) k2(double x[], long *big, int *y, int n) { }
__global__ void other(void) { }
__global__ void proto(int n);
extern "C" __global__ void plain(const int *__restrict__ y, int64_t n, std::uint32_t u) { }
