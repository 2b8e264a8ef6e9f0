"""tests/bench/lines_ncu.py NCU_CSV LINES_JSON KERNEL: `lines --sass`'
per-instruction counts against Nsight Compute's Source page for the same
launch (the CSV of `ncu -i REPORT --page source --csv --print-source sass`).
Instructions are matched by their offset from the function's first one.
Prints, per figure, how many instructions agree within 1% (and the worst),
the instructions one side has and the other lacks, the three lines with the
most stall samples on each side, and PASS or FAIL: every instruction's warp
instructions, global sectors and shared wavefronts within 1%. A column it
cannot find: says which, with ncu's column headers. Exit 0 on PASS, 1 on
FAIL, 2 when the export cannot be read."""
import csv
import json
import sys

TOL = 0.01
# ncu's Source page columns (SASS view) for each figure: the name it prints
# first, then words that find it in a version that spells it otherwise
COLUMNS = {
    "inst": ("Instructions Executed", ("instructions executed",), ("thread", "predicated")),
    "gsec": ("L2 Theoretical Sectors Global", ("sectors", "global"), ("ideal", "excessive", "local", "shared")),
    "shwf": ("L1 Wavefronts Shared", ("wavefronts", "shared"), ("ideal", "excessive")),
    "samp": ("Warp Stall Sampling (All Samples)", ("warp stall sampling", "all"), ("not-issued", "not issued")),
}
MINE = {"inst": "warp_inst", "gsec": "global_sectors", "shwf": "shared_wavefronts"}
NAMES = {"inst": "warp instructions", "gsec": "global sectors", "shwf": "shared wavefronts"}


def clean(h):
    return h.strip().strip('"').lstrip("#").strip()


def find_col(head, key):
    exact, words, avoid = COLUMNS[key]
    low = [clean(h).lower() for h in head]
    if exact.lower() in low:
        return low.index(exact.lower())
    for i, h in enumerate(low):
        if all(w in h for w in words) and not any(a in h for a in avoid):
            return i
    return None


def num(s):
    s = (s or "").strip().replace(",", "")
    try:
        return float(s)
    except ValueError:
        return 0.0


def read_ncu(path, kernel):
    rows = list(csv.reader(open(path, newline="")))
    at = next((i for i, r in enumerate(rows) if any(clean(c).lower() == "address" for c in r)), None)
    if at is None:
        print("%s: no Source page in ncu's export (no 'Address' column); its first lines:" % kernel)
        for r in rows[:3]:
            print("  " + ",".join(r)[:300])
        sys.exit(2)
    head = rows[at]
    c_addr = [clean(h).lower() for h in head].index("address")
    cols = {k: find_col(head, k) for k in COLUMNS}
    # ncu shows the shared-memory columns only for a kernel with shared
    # accesses: their absence is said where cuplay counts some (below)
    missing = [COLUMNS[k][0] for k, c in cols.items() if c is None and k != "shwf"]
    if missing:
        print("%s: ncu's export has no column %s; its columns: %s" % (
            kernel, ", ".join("'%s'" % m for m in missing), " | ".join(clean(h) for h in head)))
    out = {}
    for r in rows[at + 1:]:
        if len(r) <= c_addr:
            continue
        try:
            a = int(clean(r[c_addr]), 16)
        except ValueError:
            continue
        out[a] = {k: num(r[c]) if c is not None and c < len(r) else None for k, c in cols.items()}
    if not out:
        print("%s: ncu's Source page lists no instruction" % kernel)
        sys.exit(2)
    base = min(out)
    return {a - base: v for a, v in out.items()}, cols, head


def rel(a, b):
    return abs(a - b) / max(abs(a), abs(b)) if (a or b) else 0.0


def main():
    ncu_path, lines_path, kernel = sys.argv[1:4]
    ncu, cols, head = read_ncu(ncu_path, kernel)
    recs = [r for r in json.load(open(lines_path))["records"] if r.get("type") == "line"]
    mine = {r["pc"]: r for r in recs if r.get("pc") is not None}
    if not mine:
        print("%s: cuplay's per-line records hold no instruction (lines --sass)" % kernel)
        sys.exit(2)
    ok = True
    ran_ncu = {pc for pc, v in ncu.items() if v["inst"]}
    ran_mine = {pc for pc, r in mine.items() if r.get("warp_inst")}
    only_ncu, only_mine = sorted(ran_ncu - set(mine)), sorted(ran_mine - set(ncu))
    print("%s: %d instructions in ncu's Source page, %d in cuplay's; %d executed" % (
        kernel, len(ncu), len(mine), len(ran_ncu | ran_mine)))
    if only_ncu or only_mine:
        ok = False
        print("  executed instructions one side lacks: ncu only %s, cuplay only %s" % (
            ",".join("%04x" % p for p in only_ncu[:8]) or "none", ",".join("%04x" % p for p in only_mine[:8]) or "none"))
    for k in ("inst", "gsec", "shwf"):
        if cols[k] is None:
            counted = sorted(pc for pc, r in mine.items() if r.get(MINE[k]))
            if k == "shwf" and not counted:
                print("  %-18s none on either side (ncu lists no shared column: the kernel has no shared accesses)"
                      % NAMES[k])
                continue
            print("  %-18s ncu's export has no column '%s'; its columns: %s; cuplay counts them at %d instructions" % (
                NAMES[k], COLUMNS[k][0], " | ".join(clean(h) for h in head), len(counted)))
            ok = False
            continue
        both = [pc for pc in set(ncu) & set(mine) if ncu[pc][k] or mine[pc].get(MINE[k])]
        diffs = sorted(((rel(ncu[pc][k], float(mine[pc].get(MINE[k]) or 0)), pc) for pc in both), reverse=True)
        within = sum(1 for d, _ in diffs if d <= TOL)
        worst = diffs[0] if diffs else (0.0, 0)
        line = "  %-18s %4d of %4d instructions within 1%%" % (NAMES[k], within, len(diffs))
        if diffs:
            pc = worst[1]
            line += "; worst %.2f%% at %04x (ncu %.0f, cuplay %.0f)" % (100 * worst[0], pc, ncu[pc][k],
                                                                       float(mine[pc].get(MINE[k]) or 0))
        print(line)
        ok = ok and within == len(diffs)
    # the three lines with the most stall samples: ncu's per instruction
    # added up by cuplay's map of instructions to lines
    if cols["samp"] is not None:
        by = {}
        for pc, r in mine.items():
            if pc in ncu and ncu[pc]["samp"]:
                key = (r["file"], r["line"])
                by[key] = by.get(key, 0) + ncu[pc]["samp"]
        own = {}
        for r in recs:
            if r.get("pc") is None and r.get("samples"):
                key = (r["file"], r["line"])
                own[key] = own.get(key, 0) + r["samples"]
        top = lambda d: [k for k, _ in sorted(d.items(), key=lambda kv: -kv[1])[:3]]
        nt, ot = top(by), top(own)
        print("  top stall lines: ncu %s, cuplay %s: %s" % (
            ", ".join("%s:%d" % k for k in nt) or "none", ", ".join("%s:%d" % k for k in ot) or "none",
            "the same" if set(nt) == set(ot) else "differ"))
    print("  %s: %s" % (kernel, "PASS (every instruction's figures within 1% of ncu's)" if ok else
                        "FAIL (not every instruction's figures within 1% of ncu's)"))
    sys.exit(0 if ok else 1)


main()
