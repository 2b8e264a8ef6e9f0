// err_bad_instance.cu: an instantiation NVRTC cannot make (two arguments for one parameter)
//@ define BS = 256
//@ param  n = 1000
//@ buffer in  float[n] random
//@ buffer out float[1] zero output
//@ grid   cdiv(n, BS)
//@ block  BS
//@ check  out = sum(in)
//@ kernel reduce_t<BS>
//@ kernel reduce_t<BS, 2>

template <int BLOCK>
__global__ void reduce_t(const float *in, float *out, int n) {}
