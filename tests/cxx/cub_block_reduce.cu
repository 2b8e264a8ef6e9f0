// cub_block_reduce.cu: CUB's example_block_reduce.cu kernel (NVIDIA/cccl, cub/examples/block), pasted as is
//
// One block loads BLOCK_THREADS * ITEMS_PER_THREAD ints (striped), sums them
// with cub::BlockReduce and stores the aggregate and the clock cycles the
// reduction took. The two algorithms of the example, side by side:
// `run` compares them, `sweep THREADS=128,256,512,1024` changes the block.
//@ define THREADS = 1024
//@ define ITEMS = 4
//@ buffer d_in int[THREADS * ITEMS] iota
//@ buffer d_out int[1] poison output
//@ buffer d_elapsed long[1] zero
//@ grid 1
//@ block THREADS
//@ bytes THREADS * ITEMS * 4
//@ check d_out = sum(d_in)
//@ kernel BlockReduceKernel<THREADS, ITEMS, BLOCK_REDUCE_RAKING>
//@ kernel BlockReduceKernel<THREADS, ITEMS, BLOCK_REDUCE_WARP_REDUCTIONS>

#include <cub/block/block_load.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_store.cuh>

#include <cstdio>

using namespace cub;

//---------------------------------------------------------------------
// Kernels
//---------------------------------------------------------------------

/**
 * Simple kernel for performing a block-wide reduction.
 */
template <int BLOCK_THREADS,
          int ITEMS_PER_THREAD,
          BlockReduceAlgorithm ALGORITHM>
__global__ void BlockReduceKernel(int* d_in, // Tile of input
                                  int* d_out, // Tile aggregate
                                  clock_t* d_elapsed) // Elapsed cycle count of block reduction
{
  // Specialize BlockReduce type for our thread block
  using BlockReduceT = BlockReduce<int, BLOCK_THREADS, ALGORITHM>;

  // Shared memory
  __shared__ typename BlockReduceT::TempStorage temp_storage;

  // Per-thread tile data
  int data[ITEMS_PER_THREAD];
  LoadDirectStriped<BLOCK_THREADS>(threadIdx.x, d_in, data);

  // Start cycle timer
  clock_t start = clock();

  // Compute sum
  int aggregate = BlockReduceT(temp_storage).Sum(data);

  // Stop cycle timer
  clock_t stop = clock();

  // Store aggregate and elapsed clocks
  if (threadIdx.x == 0)
  {
    *d_elapsed = (start > stop) ? start - stop : stop - start;
    *d_out     = aggregate;
  }
}
