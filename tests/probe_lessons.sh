#!/usr/bin/env bash
# tests/probe_lessons.sh: the counters the lessons' expectations rest on, for
# each kernel at the lesson's size, as csv (kernel, metric, value): what a
# threshold is chosen against, on each GPU. Needs a GPU.
C=${CUPLAY:-./cuplay}
m() { "$C" --format csv -c "$1" 2>/dev/null | awk -F, 'NR == 1 || $1 != "kernel" { print }' | cut -d, -f1-3; }
m 'use coalescing; metrics square_coalesced square_uncoalesced square_fixed square_l1_reuse square_vectorized ld_sectors_per_req st_sectors_per_req l1_hit l2_hit'
for pad in 0 1; do
	echo "# PAD=$pad"
	m "use transpose; set N=8192; set PAD=$pad; metrics transpose_seed transpose_tiled bank_conflicts_ld bank_conflicts_st ld_sectors_per_req st_sectors_per_req"
done
m 'use matmul; show; metrics matmul_naive matmul_tiled matmul_register_tiled l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum ld_sectors_per_req'
m 'use reduce; metrics reduce_global reduce_interleaved reduce_shared reduce_first_add reduce_warp l1tex__t_requests_pipe_lsu_mem_global_op_red.sum l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum'
m 'use vector_add; set N=1000000; metrics vadd_naive empty_launch duration'
# registers against occupancy: matmul_register_tiled with MIN_BLOCKS 1..4
for mb in 1 2 3 4; do
	echo "# MIN_BLOCKS=$mb"
	"$C" --format csv -c "use matmul; set N=4096 MIN_BLOCKS=$mb; run matmul_register_tiled" 2>/dev/null | cut -d, -f1-6
	m "use matmul; set N=4096 MIN_BLOCKS=$mb; metrics matmul_register_tiled occupancy l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum"
done
