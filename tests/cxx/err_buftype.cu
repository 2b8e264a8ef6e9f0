// err_buftype.cu: a buffer type cuplay does not know
//@ param  n = 1000
//@ buffer x halff[n] random
//@ grid   1
//@ block  1
__global__ void k(int n, const float *x) {}
