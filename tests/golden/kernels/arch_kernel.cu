// arch_kernel.cu: arch is the whole file's (test fixture)
//@ grid 1
//@ block 1
//@ kernel k arch sm_90a
__global__ void k() {}
