// err_unknown_template.cu: the header instantiates a template the file does not have
//@ define BS = 256
//@ param  n = 1000
//@ buffer in  float[n] random
//@ buffer out float[1] zero output
//@ grid   cdiv(n, BS)
//@ block  BS
//@ check  out = sum(in)
//@ kernel reduce<BS>

template <int BLOCK>
__global__ void reduce_t(const float *in, float *out, int n) {}
