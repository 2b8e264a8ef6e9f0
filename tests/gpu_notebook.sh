#!/usr/bin/env bash
# tests/gpu_notebook.sh: the Jupyter kernel on the GPU, through jupyter_client.
# Called by tests/gpu.sh; run alone with `bash tests/gpu_notebook.sh`
# (CUPLAY=./cuplay). Needs ipykernel, jupyter_client, nbformat and nbclient
# for python3 (without them: one line, skipped).
#   1. the cells of tests/notebook_cells.py (setup, a 3x3 sweep on an empty
#      compile cache and again on a warm one, run, compare, explain,
#      roofline, timeline) in one kernel: the run's table and explain's come
#      as HTML tables, the charts as SVG (parsed); a cell without its MIME
#      type prints the text it showed; the sweep is checked to be 9
#      configurations and "shift-enter to chart: N ms" is printed for each
#      (the execute request sent to the chart's display received);
#      NOTEBOOK_FIXTURE=FILE keeps the notebook with its outputs
#      (tests/notebook/gpu.ipynb is what tests/jupyterlab.py opens)
#   2. the lessons, converted by `cuplay --notebook`, run by nbclient; each
#      notebook's expectations line (held, failed, skipped) and outcome are
#      its replay's (`cuplay sessions/X.session`). NOTEBOOK_LESSONS="a b"
#      picks lessons (default: every shipped one); one compile cache serves
#      them all. A lesson needs a session of its own (its expectations are
#      counted from its start), so each gets a fresh kernel.
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
	cat "$tmp/out"
	echo "gpu-notebook: $pass passed, $fail failed"
	exit 0
fi
export JUPYTER_PATH="$tmp/jp/share/jupyter"
shipped_tree "$tmp/tree"

# 1. the commands with charts and tables, in one kernel
python3 - "$tmp/tree" "${NOTEBOOK_FIXTURE:-}" "$PWD/tests" >"$tmp/out" 2>&1 <<'PY'
import html.parser, re, sys, time, xml.etree.ElementTree as ET
import nbformat
from jupyter_client.manager import KernelManager
sys.path.insert(0, sys.argv[3])
from notebook_cells import CELLS, SWEEP_CONFIGS

tree = sys.argv[1]


class Tables(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.rows = 0

    def handle_starttag(self, tag, attrs):
        self.rows += tag == "tr"


def run_cell(kc, code, mime):
    """The cell's iopub messages; the seconds from the request sent to the
    first display of mime received."""
    t0 = time.monotonic()
    msg = kc.execute(code)
    msgs, first = [], None
    while True:
        m = kc.get_iopub_msg(timeout=900)
        if m["parent_header"].get("msg_id") != msg:
            continue
        if m["msg_type"] == "status" and m["content"]["execution_state"] == "idle":
            break
        msgs.append(m)
        if first is None and m["msg_type"] == "display_data" and mime in m["content"]["data"]:
            first = time.monotonic() - t0
    reply = kc.get_shell_msg(timeout=60)["content"]
    return msgs, reply, first


km = KernelManager(kernel_name="cuplay")
km.start_kernel(cwd=tree)
kc = km.client()
kc.start_channels()
nb = nbformat.v4.new_notebook()
nb.metadata["kernelspec"] = {"name": "cuplay", "display_name": "cuplay", "language": "cuplay"}
bad = 0
try:
    kc.wait_for_ready(timeout=120)
    for what, code, mime, _ in CELLS:
        msgs, reply, first = run_cell(kc, code, mime or "-")
        cell = nbformat.v4.new_code_cell(code)
        cell.outputs = [nbformat.v4.output_from_msg(m) for m in msgs
                        if m["msg_type"] in ("stream", "display_data", "error")]
        nb.cells.append(cell)
        datas = [m["content"]["data"] for m in msgs if m["msg_type"] == "display_data"]
        text = "".join(m["content"].get("text", "") for m in msgs if m["msg_type"] == "stream")
        text += "".join(m["content"]["evalue"] + "\n" for m in msgs if m["msg_type"] == "error")
        ok = reply["status"] == "ok"
        if mime is None:
            print("%s: %s" % ("ok" if ok else "FAIL", what) + ("" if ok else "\n    " + text.strip()))
            bad += not ok
            continue
        rich = [d[mime] for d in datas if mime in d]
        ok = ok and rich and all("text/plain" in d for d in datas)
        for r in rich:
            if mime == "image/svg+xml":
                ok = ok and ET.fromstring(r).tag.endswith("svg")
            else:
                p = Tables()
                p.feed(r)
                ok = ok and p.rows >= 2
        extra = ""
        if what.startswith("sweep"):
            # the count its progress says (sweep 1/9), and its table's rows
            totals = {int(n) for d in datas for n in re.findall(r"sweep \d+/(\d+)", d.get("text/plain", ""))}
            for d in datas:
                if "text/html" in d:
                    p = Tables()
                    p.feed(d["text/html"])
                    totals.add(p.rows - 1)
            ok = ok and SWEEP_CONFIGS in totals
            extra = "; %s configurations; shift-enter to chart: %s ms" % (
                "/".join(map(str, sorted(totals))) or "no count of",
                "%.0f" % (first * 1000) if first is not None else "no chart")
        print("%s: %s %s (%d of them)%s" % ("ok" if ok else "FAIL", what, mime, len(rich), extra))
        if not ok:  # what the cell said instead
            print("    " + (text + "".join(d.get("text/plain", "") + "\n" for d in datas)).strip()
                  .replace("\n", "\n    "))
        bad += not ok
finally:
    kc.stop_channels()
    km.shutdown_kernel(now=True)
if len(sys.argv) > 2 and sys.argv[2]:
    nbformat.write(nb, sys.argv[2])  # NOTEBOOK_FIXTURE: for tests/jupyterlab.py
sys.exit(1 if bad else 0)
PY
st=$?
sed 's/^/  /' "$tmp/out"
if [ $st = 0 ]; then
	ok "a notebook's sweep, run, compare, explain, roofline and timeline carry their tables and charts"
else
	BAD_TAIL=0 bad "the notebook of sweep, run, compare, explain, roofline and timeline (its cells above)"
fi

# 2. the lessons as notebooks: their expectations and outcome are the replay's
lessons=${NOTEBOOK_LESSONS:-$(shipped 'sessions/*.session' | sed -e 's|^sessions/||' -e 's|\.session$||')}
for lesson in $lessons; do
	t0=$(date +%s)
	if ! (cd "$tmp/tree" && "$CUPLAY_ABS" --notebook "sessions/$lesson.session" "$tmp/$lesson.ipynb") >"$tmp/out" 2>&1; then
		bad "lesson $lesson: --notebook: $(head -n 1 "$tmp/out")"
		continue
	fi
	python3 - "$tmp/tree" "$tmp/$lesson.ipynb" >"$tmp/nb" 2>&1 <<'PY'
import re, sys
import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError
nb = nbformat.read(sys.argv[2], as_version=4)
st = 0
try:
    NotebookClient(nb, kernel_name="cuplay", timeout=900, resources={"metadata": {"path": sys.argv[1]}}).execute()
except CellExecutionError:
    st = 1
text = "".join(o.get("text", "") + o.get("evalue", "") + "\n" for c in nb.cells if c.cell_type == "code"
               for o in c.get("outputs", []))
m = re.findall(r"expectations: \d+ held, \d+ failed, \d+ skipped", text)
print("outcome %d; %s" % (st, m[-1] if m else "no expectations"))
PY
	nb_line=$(tail -n 1 "$tmp/nb")
	(cd "$tmp/tree" && "$CUPLAY_ABS" "sessions/$lesson.session" </dev/null) >"$tmp/replay" 2>&1
	rst=$(( $? != 0 ))
	exp=$(grep -o 'expectations: [0-9]* held, [0-9]* failed, [0-9]* skipped' "$tmp/replay" | tail -n 1)
	want="outcome $rst; ${exp:-no expectations}"
	if [ "$nb_line" = "$want" ]; then
		ok "lesson $lesson as a notebook is its replay: $want ($(( $(date +%s) - t0 )) s)"
	else
		bad "lesson $lesson as a notebook: '$nb_line', the replay: '$want'"
		tail -n 5 "$tmp/nb" | sed 's/^/    /'
	fi
done

echo "gpu-notebook: $pass passed, $fail failed"
