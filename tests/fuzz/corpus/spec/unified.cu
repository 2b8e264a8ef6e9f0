// unified.cu: y = alpha * x with x in unified (managed) memory vs plain device memory
//@ define BLOCK_SIZE = 256
//@ param  N = 67108864                 // 2^26 floats: 256 MB per buffer, 768 MB in all
//@ param  alpha = 2.0
//@ buffer xm float[N] random managed
//@ buffer xd float[N] random
//@ buffer y  float[N] poison output
//@ grid  cdiv(N, BLOCK_SIZE)
//@ block BLOCK_SIZE
//@ bytes 2 * N * 4                     // read x once, write y once
//@ kernel scale_managed check y = scale(xm, alpha)
//@ kernel scale_device check y = scale(xd, alpha)
__global__ void scale_managed(const float *__restrict__ xm, float *__restrict__ y, float alpha, int N)
{ }
__global__ void scale_device(const float *__restrict__ xd, float *__restrict__ y, float alpha, int N)
{ }
