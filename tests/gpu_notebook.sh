#!/usr/bin/env bash
# tests/gpu_notebook.sh: the Jupyter kernel on the GPU, through nbclient.
# Called by tests/gpu.sh; run alone with `bash tests/gpu_notebook.sh`
# (CUPLAY=./cuplay). Needs ipykernel, jupyter_client, nbformat and nbclient
# for python3 (without them: one line, skipped).
#   1. a notebook with run, sweep (3x3), compare, explain, roofline and
#      timeline runs green; the run's table and explain's come as HTML
#      tables, the sweep's, compare's, the roofline's and the timeline's
#      charts as SVG (parsed); the time from the
#      sweep cell's start to its reply is printed; NOTEBOOK_FIXTURE=FILE keeps
#      the notebook with its outputs (tests/notebook/gpu.ipynb is what
#      tests/jupyterlab.py opens in JupyterLab when it is there)
#   2. the lessons seed_transpose and tensor_cores, converted by
#      `cuplay --notebook`, run green
# Closing line: "gpu-notebook: N passed, N failed".
. "$(dirname "$0")/lib.sh"
if ! have_gpu; then
	echo "gpu-notebook: skipped: no GPU"
	exit 0
fi
if ! python3 -c 'import ipykernel, jupyter_client, nbformat, nbclient' 2>/dev/null; then
	echo "gpu-notebook: skipped: python3 lacks ipykernel, jupyter_client, nbformat or nbclient"
	exit 0
fi
export XDG_CACHE_HOME="$tmp/cache"
CUPLAY_ABS=$(cd "$(dirname "$CUPLAY")" && pwd)/$(basename "$CUPLAY")
if ! python3 jupyter/install.py --cuplay "$CUPLAY_ABS" --prefix "$tmp/jp" >"$tmp/out" 2>&1; then
	bad "install the kernelspec"
	echo "gpu-notebook: $pass passed, $fail failed"
	exit 0
fi
export JUPYTER_PATH="$tmp/jp/share/jupyter"
shipped_tree "$tmp/tree"

# 1. the commands with charts and tables
python3 - "$tmp/tree" "${NOTEBOOK_FIXTURE:-}" >"$tmp/out" 2>&1 <<'PY'
import html.parser, sys, time, xml.etree.ElementTree as ET
from datetime import datetime
import nbformat
from nbclient import NotebookClient

tree = sys.argv[1]
cells = [
    ("run", "use transpose\nset N=4096\nrun transpose_naive transpose_tiled", "text/html"),
    ("sweep", "sweep TILE_SIZE=8,16,32 PAD=0,1,2 transpose_tiled", "image/svg+xml"),
    ("compare", "compare transpose_naive transpose_tiled", "image/svg+xml"),
    ("explain", "explain transpose_tiled", "text/html"),
    ("roofline", "roofline", "image/svg+xml"),
    ("timeline", "use streams\nset STREAMS=4\nrun saxpy_iter\ntimeline", "image/svg+xml"),
]
nb = nbformat.v4.new_notebook()
nb.metadata["kernelspec"] = {"name": "cuplay", "display_name": "cuplay", "language": "cuplay"}
nb.cells = [nbformat.v4.new_code_cell(code) for _, code, _ in cells]
NotebookClient(nb, kernel_name="cuplay", timeout=600, resources={"metadata": {"path": tree}}).execute()
if len(sys.argv) > 2 and sys.argv[2]:
    nbformat.write(nb, sys.argv[2])  # NOTEBOOK_FIXTURE: for tests/jupyterlab.py


class Tables(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.rows = 0

    def handle_starttag(self, tag, attrs):
        self.rows += tag == "tr"


bad = 0
for (what, code, mime), cell in zip(cells, nb.cells):
    datas = [o.data for o in cell.outputs if o.output_type == "display_data"]
    rich = [d[mime] for d in datas if mime in d]
    ok = rich and all("text/plain" in d for d in datas)
    for r in rich:
        if mime == "image/svg+xml":
            ok = ok and ET.fromstring(r).tag.endswith("svg")
        else:
            p = Tables()
            p.feed(r)
            ok = ok and p.rows >= 2
    ex = cell.metadata.get("execution", {})
    took = ""
    if "iopub.execute_input" in ex and "shell.execute_reply" in ex:
        t0 = datetime.fromisoformat(ex["iopub.execute_input"].replace("Z", "+00:00"))
        t1 = datetime.fromisoformat(ex["shell.execute_reply"].replace("Z", "+00:00"))
        took = " in %.1f s" % (t1 - t0).total_seconds()
    print("%s: %s %s (%d of them)%s" % ("ok" if ok else "FAIL", what, mime, len(rich), took))
    bad += not ok
sys.exit(1 if bad else 0)
PY
st=$?
if [ $st = 0 ]; then
	ok "a notebook's run, sweep, compare, explain, roofline and timeline carry their tables and charts: $(grep -o 'sweep.*' "$tmp/out")"
else
	bad "the notebook of run, sweep, compare, explain, roofline and timeline"
fi

# 2. two lessons as notebooks, green
for lesson in seed_transpose tensor_cores; do
	(cd "$tmp/tree" && "$CUPLAY_ABS" --notebook "$lesson" "$tmp/$lesson.ipynb") >"$tmp/out" 2>&1 &&
	python3 - "$tmp/tree" "$tmp/$lesson.ipynb" >>"$tmp/out" 2>&1 <<'PY'
import sys
import nbformat
from nbclient import NotebookClient
nb = nbformat.read(sys.argv[2], as_version=4)
NotebookClient(nb, kernel_name="cuplay", timeout=900, resources={"metadata": {"path": sys.argv[1]}}).execute()
print(nb.cells[-1].outputs[0].get("text", "").strip() if nb.cells[-1].outputs else "")
PY
	if [ $? = 0 ]; then ok "lesson $lesson as a notebook: $(tail -n 1 "$tmp/out")"
	else bad "lesson $lesson as a notebook"; fi
done

echo "gpu-notebook: $pass passed, $fail failed"
