// arch_dup.cu: two arch lines (test fixture)
//@ arch sm_90a
//@ arch   native
//@ grid 1
//@ block 1
__global__ void k() {}
