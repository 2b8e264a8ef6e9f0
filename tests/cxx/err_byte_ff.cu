// err_byte_ff.cu: a 0xff byte in a kernel file: named at its line and column
//@ param  n = 1000
//@ buffer x float[n] random
//@ grid   cdiv(n, 256)
//@ block  256
//@ check  none
__global__ void k(int n, float *x)
{
	// the byte is in this comment: cafÿ
}
