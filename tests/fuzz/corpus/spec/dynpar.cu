// dynpar.cu: sum by a chain of tail launches from device code (dynamic parallelism)
//@ define BLOCK_DIM = 256
//@ param  N = 67108864                 // 2^26 floats: 256 MB
//@ buffer in    float[N] random
//@ buffer part  float[cdiv(N, BLOCK_DIM)] zero                // level 0, 2, 4.. partial sums
//@ buffer spare float[cdiv(N, BLOCK_DIM * BLOCK_DIM)] zero    // level 1, 3.. partial sums
//@ buffer out   float[1] poison output
//@ grid  cdiv(N, BLOCK_DIM)
//@ block BLOCK_DIM
//@ bytes N * 4                         // the minimum: read every element once
//@ check out = sum(in) tol 1e-4
//@ link cudadevrt
__global__ void reduce_tail_launch(const float *in, float *out, float *part, float *spare, int N)
{ }
