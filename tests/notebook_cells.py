"""tests/notebook_cells.py: the cells of the GPU notebook (tests/gpu_notebook.sh),
each (what, code, the MIME type its output must carry, whether a recorded
run serves it without a GPU). tests/notebook.py runs them in compile-only
mode with the recorded runs of tests/golden/explain_feed.txt and checks the
cells a recorded run serves: a cell whose chart needs what no cell before it
made (a roofline after kernels that declare no flops) fails there, not first
on a GPU."""
CELLS = [
    ("setup", "use transpose\nset N=4096", None, False),
    # the 3x3 sweep twice: on an empty compile cache, then on a warm one
    ("sweep", "sweep TILE_SIZE=8,16,32 PAD=0,1,2 transpose_tiled", "image/svg+xml", False),
    ("sweep again", "sweep TILE_SIZE=8,16,32 PAD=0,1,2 transpose_tiled", "image/svg+xml", False),
    ("run", "run transpose_naive transpose_tiled", "text/html", False),
    ("compare", "compare transpose_naive transpose_tiled", "image/svg+xml", False),
    # the roofline places kernels that declare their flops: matmul does, transpose does not
    ("explain", "use matmul\nset N=1024\nexplain matmul_register_tiled", "text/html", True),
    ("roofline", "roofline", "image/svg+xml", True),
    ("timeline", "use streams\nset STREAMS=4\nrun saxpy_iter\ntimeline", "image/svg+xml", False),
]
SWEEP_CONFIGS = 9  # TILE_SIZE 3 values x PAD 3 values
