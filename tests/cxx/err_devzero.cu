// err_devzero.cu: an #include of a device: refused at its line, not read (the one in this comment is ignored: #include "/dev/zero")
//@ param  n = 1000
//@ buffer x float[n] random
//@ grid   cdiv(n, 256)
//@ block  256
//@ check  none
/* #include "/dev/zero" in a block comment is ignored as well */
#include "/dev/zero"

__global__ void k(int n, float *x) {}
