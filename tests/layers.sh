#!/usr/bin/env bash
# tests/layers.sh: keeps the shape of src/ (src/README). A module is a
# source file and its header (src/L/F.c and src/L/F.h; a header alone is a
# module too). Fails when
#   - a module uses another's names in a circle, directly or through
#     others, in a folder or across folders. A use is a call (read from the
#     object files with nm: an undefined symbol of one object defined by
#     another) or a name another module's header declares (functions,
#     types, struct, union and enum tags, enum constants, macros,
#     variables: parsed from the headers) among the identifiers of a file
#     (comments and literals aside; not a member after . or ->, and not a
#     name the file declares for itself: a local, a parameter, a member);
#   - a module uses one of a layer above its own (the order is LAYERS in
#     the Makefile, bottom to top: a file of layer i may use layers 0..i),
#     or includes a header of a layer above;
#   - modules include each other's headers in a circle (directly or
#     through others);
#   - a function of one module whose address another takes is not in
#     src/README.md's table of callbacks (or a row there no longer holds);
#   - a module is not named in src/README.md;
#   - a source file is not in a layer folder, is over MAX_LINES lines, or
#     has a function over MAX_FUNC_LINES lines (from the line of its name
#     to its closing brace: a brace-matching scan of the top level);
#   - a file other than SPAWNER calls fork, exec, popen, system or
#     posix_spawn (one way to start a process: base/child);
#   - a call whose result must be looked at (dup2, pipe, write, wire_send,
#     ...) is a statement of its own without (void), or a flag's address is
#     cast to another volatile type.
#   OBJ_DIR         where the objects are (default build/rel): OBJ_DIR/L/F.o for src/L/F.c
#   MAX_LINES       default 1000
#   MAX_FUNC_LINES  default 100
#   SPAWNER         the one source that starts processes (default src/base/child.c)
# Closing line: "layers: N checks, N failed (objects: DIR)"; exit 1 on a failure, 77 when
# it cannot run (no python3 or nm).
#   LAYERS_ROOT     the tree to check (default: this one; tests/layers_fails.sh
#                   points it at trees made to fail)
set -u
cd "${LAYERS_ROOT:-$(dirname "$0")/..}"
OBJ_DIR=${OBJ_DIR:-build/rel}
MAX_LINES=${MAX_LINES:-1000}
MAX_FUNC_LINES=${MAX_FUNC_LINES:-100}
LAYERS=${LAYERS:-$(sed -n 's/^LAYERS *:= *//p' Makefile)}
if ! command -v python3 >/dev/null || ! command -v nm >/dev/null; then
	echo "layers: skipped: needs python3 and nm"
	exit 77
fi
SPAWNER=${SPAWNER:-src/base/child.c}
SPAWNER="$SPAWNER" OBJ_DIR="$OBJ_DIR" MAX_LINES="$MAX_LINES" MAX_FUNC_LINES="$MAX_FUNC_LINES" LAYERS="$LAYERS" python3 - <<'PY'
import collections, glob, os, re, subprocess, sys

layers = os.environ["LAYERS"].split()
rank = {l: i for i, l in enumerate(layers)}
obj_dir, max_lines = os.environ["OBJ_DIR"], int(os.environ["MAX_LINES"])
max_fn = int(os.environ["MAX_FUNC_LINES"])
checks = failed = 0

def check(ok, msg):
    global checks, failed
    checks += 1
    if not ok:
        failed += 1
        print("FAIL: layers: " + msg)

def layer(path):  # src/L/F.c -> L
    return path.split("/")[1]

def module(path):  # src/L/F.c, src/L/F.h -> src/L/F
    return path.rsplit(".", 1)[0]

# 1. every source in a layer folder, none too long
srcs = sorted(glob.glob("src/**/*.[ch]", recursive=True))
for f in srcs:
    parts = f.split("/")
    check(len(parts) == 3 and parts[1] in rank, f"{f} is not in a layer folder (src/LAYER/, LAYERS: {' '.join(layers)})")
    n = sum(1 for _ in open(f, encoding="utf-8", errors="replace"))
    check(n <= max_lines, f"{f} has {n} lines (at most {max_lines})")
srcs = [f for f in srcs if len(f.split("/")) == 3 and f.split("/")[1] in rank]

# The text of a file as C sees it: comments and string and character
# literals blanked (newlines kept, so line numbers hold).
def code_of(f):
    s = open(f, encoding="utf-8", errors="replace").read()
    out, i, n = [], 0, len(s)
    while i < n:
        c = s[i]
        if s.startswith("/*", i):
            j = s.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", s[i:j])); i = j
        elif s.startswith("//", i):
            j = s.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i)); i = j
        elif c in "\"'":
            j = i + 1
            while j < n and s[j] != c and s[j] != "\n":
                j += 2 if s[j] == "\\" else 1
            out.append(c + " " * (min(j, n) - i - 1) + (c if j < n else "")); i = j + 1
        else:
            out.append(c); i += 1
    return "".join(out)

code = {f: code_of(f) for f in srcs}

# 2. functions: no body over max_fn lines, from the line of its name to its
#    closing brace (a brace-matching scan of the top level)
for f in srcs:
    if not f.endswith(".c"):
        continue
    s = code[f]
    depth, i, n = 0, 0, len(s)
    while i < n:
        c = s[i]
        if c == "#" and (i == 0 or s[i - 1] == "\n"):  # a preprocessor line (and its continuations)
            while i < n and not (s[i] == "\n" and s[i - 1] != "\\"):
                i += 1
            continue
        if c == "{":
            if depth == 0:
                before = s[:i].rstrip()
                if before.endswith(")"):  # a function body; its name: the identifier before the '(' that opens its parameters
                    k, par = len(before) - 1, 0
                    while k >= 0:
                        if before[k] == ")": par += 1
                        elif before[k] == "(":
                            par -= 1
                            if par == 0: break
                        k -= 1
                    m = re.search(r"(\w+)\s*$", before[:k])
                    name = m.group(1) if m else "?"
                    start = before[:k].count("\n") + 1
                    d, j = 0, i
                    while j < n:
                        if s[j] == "{": d += 1
                        elif s[j] == "}":
                            d -= 1
                            if d == 0: break
                        j += 1
                    end = s[:j].count("\n") + 1
                    check(end - start + 1 <= max_fn,
                          f"{f}:{start}: function {name} has {end - start + 1} lines (at most {max_fn})")
                    i = j + 1
                    continue
            depth += 1
        elif c == "}":
            depth -= 1
        i += 1

# 3. the names each header declares: macros, typedefs, struct, union and
#    enum tags, enum constants, functions, variables (include guards aside)
declared = {}  # name -> header
funcs = set()  # the names of functions among them
def declare(name, h):
    if name in declared and declared[name] != h:
        declared[name] = None  # declared twice: belongs to no one
    elif name not in declared:
        declared[name] = h
for h in srcs:
    if not h.endswith(".h"):
        continue
    s = code[h]
    guard = re.search(r"#\s*ifndef\s+(\w+)\s*\n\s*#\s*define\s+\1\b", s)
    for m in re.finditer(r"^\s*#\s*define\s+(\w+)", s, re.M):
        if not guard or m.group(1) != guard.group(1):
            declare(m.group(1), h)
    flat = re.sub(r"^\s*#.*?(?<!\\)$", "", s, flags=re.M | re.S)
    for m in re.finditer(r"\b(?:struct|union|enum)\s+(\w+)\s*\{", flat):
        declare(m.group(1), h)
    for m in re.finditer(r"\benum\b[^{;]*\{([^}]*)\}", flat):
        for item in m.group(1).split(","):
            mm = re.match(r"\s*(\w+)", item)
            if mm:
                declare(mm.group(1), h)
    # top-level statements: strip bodies of braces
    top, d = [], 0
    for c in flat:
        if c == "{":
            d += 1
            if d == 1: top.append(" {} ")
        elif c == "}":
            d -= 1
        elif d == 0:
            top.append(c)
    for st in "".join(top).split(";"):
        st = st.strip()
        if not st:
            continue
        if st.startswith("typedef"):
            m = re.search(r"\(\s*\*\s*(\w+)\s*\)\s*\(", st) or re.search(r"(\w+)\s*(\[[^\]]*\]\s*)*$", st)
            if m:
                declare(m.group(1), h)
            continue
        fp = re.search(r"\(\s*\*\s*(\w+)\s*\)\s*\(", st)
        if fp:  # a function pointer: extern int (*hook)(...)
            declare(fp.group(1), h)
            continue
        if re.match(r"static\s+inline\b", st) or "(" in st:
            m = re.search(r"(\w+)\s*\(", st)
            if m and m.group(1) not in ("__attribute__", "sizeof", "_Static_assert"):
                declare(m.group(1), h)
                funcs.add(m.group(1))
            continue
        m = re.match(r"extern\b.*?(\w+)\s*(\[[^\]]*\]\s*)*$", st)
        if m:
            declare(m.group(1), h)
    # static inline functions defined in the header
    for m in re.finditer(r"\bstatic\s+inline\b[^;{]*?(\w+)\s*\([^;{]*\)\s*\{", flat):
        declare(m.group(1), h)
        funcs.add(m.group(1))
owner = {n: module(h) for n, h in declared.items() if h}

# 4. uses: an identifier (not a member after . or ->) a file names that
#    another module's header declares; calls, from the objects
#    nor one being declared (TYPE NAME, TYPE *NAME: a member, a parameter,
#    a local of that name)
KEYWORDS = set("""return case sizeof else goto const volatile struct union enum static extern inline
register unsigned signed typedef do restrict defined __attribute__ _Static_assert _Alignof""".split())
def declarator(s, i):
    j = i - 1
    while j >= 0 and s[j] in " \t\n*":
        j -= 1
    k = j
    while k >= 0 and (s[k].isalnum() or s[k] == "_"):
        k -= 1
    word = s[k + 1:j + 1]
    return bool(word) and not word[0].isdigit() and word not in KEYWORDS
uses = collections.defaultdict(dict)  # module -> module -> [names]
for f in srcs:
    a = module(f)
    idents = list(re.finditer(r"(?<![\w.>])(?<!->)([A-Za-z_]\w*)", code[f]))
    # a name the file declares for itself (a local, a parameter, a member)
    # is its own wherever it appears there
    own = {m.group(1) for m in idents if m.group(1) in owner and declarator(code[f], m.start())}
    for m in idents:
        b = owner.get(m.group(1))
        if b and b != a and m.group(1) not in own:
            uses[a].setdefault(b, [])
            if m.group(1) not in uses[a][b]:
                uses[a][b].append(m.group(1))
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
for f, us in undef.items():
    for s in sorted(us):
        g = defs.get(s)
        if g and module(g) != module(f):
            names = uses[module(f)].setdefault(module(g), [])
            if s not in names:
                names.append(s)

# 5. includes: a header of a layer above is a dependency on it
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

# 5b. no circle of includes: a module's files include another's header,
#     that one's files include back (directly or through others). Its
#     types then live in a header of their own (spec_types.h).
incl = collections.defaultdict(dict)  # module -> module -> the header included
for f in srcs:
    for line in open(f, encoding="utf-8", errors="replace"):
        m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
        if m and m.group(1) in where and module(where[m.group(1)]) != module(f):
            incl[module(f)].setdefault(module(where[m.group(1)]), m.group(1))
def circles(graph, nodes):
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]
    def visit(v):
        index[v] = low[v] = counter[0]; counter[0] += 1
        stack.append(v); on.add(v)
        for w in graph.get(v, {}):
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
            out.append(comp)
    for v in nodes:
        if v not in index:
            visit(v)
    return [c for c in out if len(c) > 1]
def a_path(graph, comp):  # a circle through the component, from its first module
    comp_set, start = set(comp), sorted(comp)[0]
    path, seen, v = [start], {start}, start
    while True:
        nxt = sorted(w for w in graph[v] if w in comp_set)
        w = next((x for x in nxt if x == start), None) or next((x for x in nxt if x not in seen), nxt[0])
        path.append(w)
        if w == start or w in seen:
            return path
        seen.add(w); v = w
sys.setrecursionlimit(10000)
for comp in circles(incl, sorted({module(f) for f in srcs})):
    path = a_path(incl, comp)
    steps = " -> ".join(f"{a} (#include \"{incl[a][b]}\")" for a, b in zip(path, path[1:]))
    check(False, f"files include each other in a circle: {steps} -> {path[-1]}")

# 6. no use of a layer above
for a in sorted(uses):
    for b, names in sorted(uses[a].items()):
        check(rank[layer(b)] <= rank[layer(a)],
              f"{a} uses {b} (layer '{layer(b)}' is above '{layer(a)}'): {', '.join(names[:4])}")

# 7. no circle: strongly connected components of more than one module
#    (Tarjan), in a folder or across folders
index, low, on, stack, sccs, counter = {}, {}, set(), [], [], [0]
sys.setrecursionlimit(10000)
def visit(v):
    index[v] = low[v] = counter[0]; counter[0] += 1
    stack.append(v); on.add(v)
    for w in uses.get(v, {}):
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
mods = sorted({module(f) for f in srcs})
for v in mods:
    if v not in index:
        visit(v)
for comp in sccs:
    if len(comp) < 2:
        continue
    comp_set, start = set(comp), sorted(comp)[0]
    path, seen, v = [start], {start}, start
    while True:
        nxt = sorted(w for w in uses[v] if w in comp_set)
        w = next((x for x in nxt if x == start), None) or next((x for x in nxt if x not in seen), nxt[0])
        path.append(w)
        if w == start or w in seen:
            break
        seen.add(w); v = w
    steps = " -> ".join(f"{a} ({uses[a][b][0]})" for a, b in zip(path, path[1:]))
    check(False, f"files use each other in a circle: {steps} -> {path[-1]}")
# 8. one way to start a process: fork, exec and their kin are called by
#    the spawner alone (whose child makes only async-signal-safe calls and
#    restores SIGPIPE), read from the objects' undefined symbols
PROC_CALLS = {"fork", "vfork", "clone", "execv", "execve", "execvp", "execvpe", "execl", "execle",
              "execlp", "fexecve", "popen", "system", "posix_spawn", "posix_spawnp"}
spawner = os.environ["SPAWNER"]
for f, us in sorted(undef.items()):
    calls = sorted(us & PROC_CALLS)
    check(not calls or f == spawner,
          f"{f} starts a process itself ({', '.join(calls)}): only {spawner} forks and execs")

# 9. results that must be looked at: a call of one of these as a whole
#    statement drops what it says (a (void) before it says so on purpose)
MUST_CHECK = ("dup", "dup2", "dup3", "pipe", "pipe2", "socketpair", "ftruncate", "write", "wire_send",
              "fd_write_all", "fd_write_iov")
dropped = re.compile(r"(?:[;{}:]|\belse\b|(?<!\(void)\))\s*(" + "|".join(MUST_CHECK) + r")\s*\(")
for f in srcs:
    if not f.endswith(".c"):
        continue
    for m in dropped.finditer(code[f]):
        line = code[f].count("\n", 0, m.start(1)) + 1
        check(False, f"{f}:{line}: the result of {m.group(1)}() is dropped (check it, or (void) it and say why)")

# 10. a flag a signal handler sets is read as what it is: no cast of one
#     to another type ((volatile int *)&flag)
for f in srcs:
    for m in re.finditer(r"\(\s*volatile\s+(?!sig_atomic_t)\w+\s*\*\s*\)\s*&", code[f]):
        line = code[f].count("\n", 0, m.start()) + 1
        check(False, f"{f}:{line}: a cast of a flag's address to another volatile type (pass volatile sig_atomic_t *)")

# 11. callbacks: a function of one module whose address another takes (its
#     name not called but assigned, passed or put in a table) is a call
#     that neither nm nor a reader following calls sees. Each is declared
#     in src/README.md's table of callbacks ("| `L/TAKER` | `FUNCTION` |
#     ..."); one not declared fails, and so does a declared one no longer
#     taken.
declared_cb = set()
if os.path.exists("src/README.md"):
    for line in open("src/README.md", encoding="utf-8"):
        m = re.match(r"\|\s*`(\w+/\w+)`\s*\|\s*`(\w+)`", line)
        if m:
            declared_cb.add(("src/" + m.group(1), m.group(2)))
taken = {}
for f in srcs:
    if not f.endswith(".c"):
        continue
    a = module(f)
    s = code[f]
    # a function chosen and called at once, (c ? f : g)(...), is a call
    s = re.sub(r"\([^()]*\?\s*\w+\s*:\s*\w+\s*\)\s*\(", lambda m: " " * len(m.group(0)), s)
    s = re.sub(r"\bgoto\s+\w+", "", s)
    s = re.sub(r"^[ \t]*\w+[ \t]*:[ \t]*$", "", s, flags=re.M)  # a label
    for m in re.finditer(r"(?<![\w.>])(?<!->)([A-Za-z_]\w*)\b(?!\s*\()", s):
        n = m.group(1)
        b = owner.get(n)
        if n in funcs and b and b != a and not declarator(s, m.start()):
            taken.setdefault((a, n), s.count("\n", 0, m.start()) + 1)
for (a, n), line in sorted(taken.items()):
    check((a, n) in declared_cb,
          f"{a}.c:{line}: takes the address of {n} ({owner[n]}): a callback not in src/README.md's table of callbacks")
for a, n in sorted(declared_cb - set(taken)):
    check(False, f"src/README.md declares the callback {n} taken by {a}, which takes it no more")

# 12. src/README.md names every module (as `F` or `F.h`), so a reader
#     finds each in its layer's line
if os.path.exists("src/README.md"):
    readme = open("src/README.md", encoding="utf-8").read()
    for mod in sorted({module(f) for f in srcs}):
        base = os.path.basename(mod)
        check(f"`{base}`" in readme or f"`{base}.h`" in readme,
              f"{mod} is not named in src/README.md (as `{base}`, in its layer's line)")

check(len(sccs) > 0 or not mods, "no modules read")
check(len(objs) > 0, "no objects read")

print(f"layers: {checks} checks, {failed} failed (objects: {obj_dir})")
sys.exit(1 if failed else 0)
PY
