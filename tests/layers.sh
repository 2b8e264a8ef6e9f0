#!/usr/bin/env bash
# tests/layers.sh: keeps the shape of src/ (src/README). Fails when
#   - two source files call each other, directly or through others (a cycle
#     in the file-level call graph, read from the object files with nm: an
#     undefined symbol of one object defined by another is a call);
#   - a file calls into a layer above its own (the order is LAYERS in the
#     Makefile, bottom to top: a file of layer i may call layers 0..i);
#   - a file includes a header of a layer above its own;
#   - a source file is not in a layer folder, or is over MAX_LINES lines.
#   OBJ_DIR    where the objects are (default build/rel): OBJ_DIR/L/F.o for src/L/F.c
#   MAX_LINES  default 1500
# Closing line: "layers: N checks, N failed (objects: DIR)"; exit 1 on a failure, 77 when
# it cannot run (no python3 or nm).
set -u
cd "$(dirname "$0")/.."
OBJ_DIR=${OBJ_DIR:-build/rel}
MAX_LINES=${MAX_LINES:-1500}
LAYERS=${LAYERS:-$(sed -n 's/^LAYERS *:= *//p' Makefile)}
if ! command -v python3 >/dev/null || ! command -v nm >/dev/null; then
	echo "layers: skipped: needs python3 and nm"
	exit 77
fi
OBJ_DIR="$OBJ_DIR" MAX_LINES="$MAX_LINES" LAYERS="$LAYERS" python3 - <<'PY'
import collections, glob, os, re, subprocess, sys

layers = os.environ["LAYERS"].split()
rank = {l: i for i, l in enumerate(layers)}
obj_dir, max_lines = os.environ["OBJ_DIR"], int(os.environ["MAX_LINES"])
checks = failed = 0

def check(ok, msg):
    global checks, failed
    checks += 1
    if not ok:
        failed += 1
        print("FAIL: layers: " + msg)

def layer(path):  # src/L/F.c -> L
    return path.split("/")[1]

# 1. every source in a layer folder, none too long
srcs = sorted(glob.glob("src/**/*.[ch]", recursive=True))
for f in srcs:
    parts = f.split("/")
    check(len(parts) == 3 and parts[1] in rank, f"{f} is not in a layer folder (src/LAYER/, LAYERS: {' '.join(layers)})")
    n = sum(1 for _ in open(f, encoding="utf-8", errors="replace"))
    check(n <= max_lines, f"{f} has {n} lines (at most {max_lines})")
srcs = [f for f in srcs if len(f.split("/")) == 3 and f.split("/")[1] in rank]

# 2. includes: a header of a layer above is a dependency on it
where = {}
for f in srcs:
    if f.endswith(".h"):
        where.setdefault(os.path.basename(f), f)
for f in srcs:
    for i, line in enumerate(open(f, encoding="utf-8", errors="replace"), 1):
        m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
        if not m or m.group(1) not in where:
            continue
        h = where[m.group(1)]
        check(rank[layer(h)] <= rank[layer(f)],
              f"{f}:{i}: includes {h}, a header of layer '{layer(h)}' above '{layer(f)}'")

# 3. calls, from the objects
objs = {}
for f in srcs:
    if f.endswith(".c"):
        o = os.path.join(obj_dir, f[len("src/"):-2] + ".o")
        check(os.path.exists(o), f"no object {o} for {f} (build first, or set OBJ_DIR)")
        if os.path.exists(o):
            objs[f] = o
def nm(args, o):
    r = subprocess.run(["nm"] + args + [o], capture_output=True, text=True)
    if r.returncode != 0:
        check(False, f"nm {o}: {r.stderr.strip()}")
    return r.stdout.splitlines()
defs, undef = {}, {}
for f, o in objs.items():
    for line in nm(["--defined-only"], o):
        p = line.split()
        if len(p) == 3 and p[1] in "TDBRCGSVW":
            defs.setdefault(p[2], f)
    undef[f] = {line.split()[-1] for line in nm(["-u"], o) if line.strip()}
calls = collections.defaultdict(dict)  # caller -> callee -> [symbols]
for f, us in undef.items():
    for s in sorted(us):
        g = defs.get(s)
        if g and g != f:
            calls[f].setdefault(g, []).append(s)
for f in sorted(calls):
    for g, syms in sorted(calls[f].items()):
        check(rank[layer(g)] <= rank[layer(f)],
              f"{f} calls up into {g} (layer '{layer(g)}' is above '{layer(f)}'): {', '.join(syms[:4])}")

# cycles: strongly connected components of more than one file (Tarjan)
index, low, on, stack, sccs, counter = {}, {}, set(), [], [], [0]
sys.setrecursionlimit(10000)
def visit(v):
    index[v] = low[v] = counter[0]; counter[0] += 1
    stack.append(v); on.add(v)
    for w in calls.get(v, {}):
        if w not in index:
            visit(w); low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop(); on.discard(w); comp.append(w)
            if w == v:
                break
        sccs.append(comp)
for v in sorted(objs):
    if v not in index:
        visit(v)
for comp in sccs:
    if len(comp) < 2:
        continue
    # one cycle through the component, for the message
    comp_set, start = set(comp), sorted(comp)[0]
    path, seen, v = [start], {start}, start
    while True:
        nxt = sorted(w for w in calls[v] if w in comp_set)
        w = next((x for x in nxt if x == start), None) or next((x for x in nxt if x not in seen), nxt[0])
        path.append(w)
        if w == start or w in seen:
            break
        seen.add(w); v = w
    steps = " -> ".join(f"{a} ({calls[a][b][0]})" for a, b in zip(path, path[1:]))
    check(False, f"files call each other in a loop: {steps} -> {path[-1]}")
check(len(sccs) > 0 or not objs, "no objects read")

print(f"layers: {checks} checks, {failed} failed (objects: {obj_dir})")
sys.exit(1 if failed else 0)
PY
