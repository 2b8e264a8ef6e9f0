#!/usr/bin/env bash
# tests/report.sh [REPORT.html [CHARTS [TIMED]]]: the lab report opens in a
# real browser. Without arguments: a report of a compile-only session is
# made and checked. With a report made elsewhere (on a GPU): that report,
# which must hold at least CHARTS inline charts and a results row for each
# of its TIMED timed runs and no other. Headless Chromium loads the page at
# 1280 px, takes a screenshot and dumps the DOM, which must hold every table
# and chart and no element past the page's width; the Markdown report must
# be Markdown of the same tables.
# Closing line: "report: N passed, N failed, N skipped".
. "$(dirname "$0")/lib.sh"
export XDG_CACHE_HOME="$tmp/cache"
pass=0 fail=0 skip=0
ok()  { pass=$((pass + 1)); echo "ok:   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; sed 's/^/    /' "$tmp/out" 2>/dev/null | tail -n 15; }

page=${1:-}
charts=${2:-0}
timed=${3:-}
if [ -z "$page" ]; then
	page=$tmp/lab.html
	"$CUPLAY" --no-gpu -c "use transpose; run; set PAD=0; run transpose_tiled; use reduce; run; report $page; report $tmp/lab.md" \
		>"$tmp/out" 2>&1 </dev/null
	st=$?
	if [ $st = 0 ] && [ -s "$page" ] && grep -q "^wrote $page: 9 results, 0 timed$" "$tmp/out"; then
		ok "report of a compile-only session written"
	else bad "report: exit $st"; fi
	# the Markdown: a heading per file, the kernels' source, a table each
	if python3 - "$tmp/lab.md" >"$tmp/out" 2>&1 <<'PY'
import sys
t = open(sys.argv[1]).read()
assert t.startswith("# cuplay lab report\n"), t[:80]
assert "## kernels_src/transpose.cu" in t and "## kernels_src/reduce.cu" in t
assert t.count("```cuda") == 3 + 5, t.count("```cuda")
assert "| transpose_tiled | TILE_SIZE=32 BLOCK_ROWS=8 PAD=0 N=8192 | not launched |" in t
assert "## Commands" in t and "set PAD=0" in t
PY
	then ok "the Markdown report: files, kernel sources, results, commands"; else bad "the Markdown report"; fi
fi

# the diagnosis and the roofline in the report, from recorded runs
# (CUPLAY_EXPLAIN_FEED): a table of what limits each kernel, the roofline as
# inline SVG that an XML parser reads, and as text in the Markdown
if [ -z "${1:-}" ]; then
	CUPLAY_EXPLAIN_FEED=tests/golden/explain_feed.txt "$CUPLAY" --no-gpu \
		-c "use matmul; explain; report $tmp/feed.html; report $tmp/feed.md" >"$tmp/out" 2>&1 </dev/null
	if python3 - "$tmp/feed.html" "$tmp/feed.md" >>"$tmp/out" 2>&1 <<'PY'
import re, sys, xml.etree.ElementTree as ET
h = open(sys.argv[1]).read()
assert "What limits each kernel" in h and "compute-bound: the SMs at 83% of their peak" in h
svgs = re.findall(r"<svg.*?</svg>", h, re.S)
roof = [s for s in svgs if "<polyline" in s]
assert len(roof) == 1, len(roof)
root = ET.fromstring(roof[0])
assert len(root.findall("{http://www.w3.org/2000/svg}circle")) == 3
m = open(sys.argv[2]).read()
assert "### What limits each kernel" in m and "### Roofline" in m and "  C  matmul_register_tiled" in m
PY
	then ok "report of explained runs: the diagnosis table and the roofline (SVG and text)"
	else bad "report of explained runs"; fi
fi

browser=
for b in chromium chromium-browser google-chrome; do
	command -v $b >/dev/null 2>&1 && { browser=$b; break; }
done
if [ -z "$browser" ]; then
	echo "report: skipped: no Chromium (install the distribution's chromium package)"
	skip=$((skip + 1))
else
	url="file://$(cd "$(dirname "$page")" && pwd)/$(basename "$page")"
	flags="--headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir=$tmp/profile"
	timeout 120 $browser $flags --window-size=1280,2400 --screenshot="$tmp/lab.png" "$url" >"$tmp/shot.log" 2>&1
	timeout 120 $browser $flags --window-size=1280,2400 --dump-dom "$url" >"$tmp/dom.html" 2>"$tmp/dom.log"
	# the same page with a probe at its end: every element's box against the
	# page's width, and every text of a chart against its chart's box (a
	# word past the edge of an SVG is cut there), written into the DOM that
	# Chromium dumps
	probe=$tmp/probe.html
	probe_js='<script>(function(){var W=document.documentElement.clientWidth,bad=[],all=document.body.querySelectorAll("*");for(var i=0;i<all.length;i++){var r=all[i].getBoundingClientRect();if(r.width>0\&\&(r.right>W+0.5\|\|r.left<-0.5))bad.push(all[i].tagName+" "+Math.round(r.left)+".."+Math.round(r.right));}var ts=document.querySelectorAll("svg text");for(var j=0;j<ts.length;j++){var s=ts[j].ownerSVGElement.getBoundingClientRect(),q=ts[j].getBoundingClientRect();if(q.left<s.left-0.5\|\|q.right>s.right+0.5)bad.push("text "+ts[j].textContent.slice(0,30)+" "+Math.round(q.left-s.left)+".."+Math.round(q.right-s.left)+" of "+Math.round(s.width));}document.body.setAttribute("data-width",W);document.body.setAttribute("data-overflow",bad.length+": "+bad.slice(0,6).join(", "));})();</script></body>'
	sed "s|</body>|$probe_js|" "$page" >"$probe"
	timeout 120 $browser $flags --window-size=1280,2400 --dump-dom "file://$probe" >"$tmp/probe.dom" 2>>"$tmp/dom.log"
	if python3 - "$tmp/dom.html" "$tmp/lab.png" "$page" "$charts" "$tmp/probe.dom" "$timed" >"$tmp/out" 2>&1 <<'PY'
import re, sys, html.parser, struct
dom, png, src, charts = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
probe, timed = open(sys.argv[5], encoding="utf-8").read(), sys.argv[6]
class P(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(); self.tags = {}; self.rows = 0; self.in_td = False
    def handle_starttag(self, tag, attrs):
        self.tags[tag] = self.tags.get(tag, 0) + 1
def count(path):
    p = P(); p.feed(open(path, encoding="utf-8").read()); return p.tags
d, s = count(dom), count(src)
# the browser built the page the file describes: every table, row and chart
for tag in ("table", "tr", "svg", "rect", "pre", "h2"):
    assert d.get(tag, 0) == s.get(tag, 0), (tag, d.get(tag, 0), s.get(tag, 0))
assert d.get("table", 0) >= 1 and d.get("svg", 0) >= charts, d
b = open(png, "rb").read()
assert b[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
w, h = struct.unpack(">II", b[16:24])
assert w == 1280 and h == 2400 and len(b) > 20000, (w, h, len(b))
# at 1280 px nothing is wider than the page
width = re.search(r'data-width="(\d+)"', probe)
over = re.search(r'data-overflow="([^"]*)"', probe)
assert width and over, "the probe did not run"
assert int(width.group(1)) == 1280 and over.group(1).startswith("0:"), (width.group(1), over.group(1))
# the results tables: a row per timed run; a run without times only where
# nothing was launched (compile-only) or it failed, never a `metrics` run
page = open(src, encoding="utf-8").read()
rows = timed_rows = 0
for t in re.findall(r"<h3>Results</h3>\s*<table>(.*?)</table>", page, re.S):
    for tr in re.findall(r"<tr>(.*?)</tr>", t, re.S)[1:]:
        cells = re.findall(r"<td[^>]*>(.*?)</td>", tr, re.S)
        rows += 1
        if cells[3]:
            timed_rows += 1
        else:
            assert cells[2] in ("not launched", "FAIL") or cells[3] == "interrupted", cells
        assert not cells[-1].startswith("metrics"), cells
if timed:
    assert rows == timed_rows == int(timed), (rows, timed_rows, timed)
print("%d tables, %d rows, %d charts, %d results rows (%d timed), no element past 1280 px; screenshot %dx%d, %d bytes"
      % (d["table"], d["tr"], d.get("svg", 0), rows, timed_rows, w, h, len(b)))
PY
	then
		ok "Chromium: $(cat "$tmp/out")"
		if [ -n "${REPORT_SHOT:-}" ]; then cp "$tmp/lab.png" "$REPORT_SHOT"; fi
	else
		bad "Chromium: the page did not load as written"; cat "$tmp/dom.log" | tail -n 5
	fi
	# charts with long words, as the unit tests draw them (a sweep's labels
	# of kernel and values, a tie; four tensor-core kernels on a roofline):
	# in the browser, no text past its chart's edge
	ud=${UNIT_DIR:-build/rel/tests}
	if [ -z "${1:-}" ] && [ -x "$ud/test_report" ] && [ -x "$ud/test_roofline" ]; then
		mkdir -p "$tmp/w"
		WRITERS_OUT=$tmp/w "$ud/test_report" >/dev/null 2>&1
		WRITERS_OUT=$tmp/w "$ud/test_roofline" >/dev/null 2>&1
		{
			printf '<!DOCTYPE html>\n<html><head><meta charset="utf-8"><style>svg{max-width:100%%;height:auto}</style></head><body>\n'
			for f in sweep.svg tensor_roofline.svg; do grep -v '^<?xml' "$tmp/w/$f" 2>/dev/null; done
			printf '</body></html>\n'
		} | sed "s|</body>|$probe_js|" >"$tmp/charts.html"
		timeout 120 $browser $flags --window-size=1280,2400 --dump-dom "file://$tmp/charts.html" >"$tmp/charts.dom" 2>>"$tmp/dom.log"
		over=$(sed -n 's/.*data-overflow="\([^"]*\)".*/\1/p' "$tmp/charts.dom")
		nsvg=$(grep -c '<svg' "$tmp/charts.html")
		if [ "$nsvg" = 2 ] && [ "${over%%:*}" = 0 ]; then
			ok "Chromium: a sweep's chart of long labels and a tie, a roofline of four tensor-core kernels: no text past a chart's edge"
		else
			echo "$nsvg charts; overflow: ${over:-the probe did not run}" >"$tmp/out"
			bad "Chromium: text past a chart's edge"
		fi
	fi
fi
echo "report: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
