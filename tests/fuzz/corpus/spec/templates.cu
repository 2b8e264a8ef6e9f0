//@ param N = 1024
//@ buffer a float[N] random
//@ buffer b float[N] poison output
//@ grid cdiv(N, 256)
//@ block 256
//@ check b = scale(a, 2)
template <int B> __device__ float f(float x) { return x * B; }
template <typename T>
__global__ void t1(const T *a, T *b, int N) { }
__global__ void inst(const float *a, float *b, int N) { b[0] = f<2>(a[0]); }
