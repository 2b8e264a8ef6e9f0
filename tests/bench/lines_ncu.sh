#!/usr/bin/env bash
# tests/bench/lines_ncu.sh: `lines`' per-instruction counts against Nsight
# Compute's Source page for the same launch: for each kernel below, ncu
# profiles cuplay's first launch of it (--section SourceCounters; cuplay's
# own counters off, CUPLAY_NO_COUNTERS=1, so that ncu alone profiles),
# exported with `ncu -i REPORT --page source --csv --print-source sass`;
# cuplay's `lines --sass --all` counts it again, and lines_ncu.py matches
# the two instruction by instruction (offsets from the function's first
# instruction): per kernel, how many instructions' warp instructions,
# global sectors and shared wavefronts agree within 1%, the worst, the top
# three lines by stall samples on each side, and PASS or FAIL; a column it
# cannot find is said with ncu's column headers. Closing line:
# "lines-ncu: N passed, N failed, N not compared". Exit 0 (make bench
# reports, it does not judge) unless STRICT=1, then 1 on any FAIL.
# KERNELS="transpose_tiled ..." runs only those of the list below.
. "$(dirname "$0")/../lib.sh"
echo "== lines against ncu's Source page (SourceCounters, per instruction)"
if ! have_gpu; then echo "skip: no GPU"; exit 0; fi
NCU=${NCU:-$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null)}
if [ -z "$NCU" ] || [ ! -x "$NCU" ]; then echo "skip: ncu is not on PATH (set NCU)"; exit 0; fi
export XDG_CACHE_HOME="$tmp/cache"
py=$(dirname "$0")/lines_ncu.py
npass=0 nfail=0 nskip=0

# file|values|kernel: three of the library and three held-out (tests/kernels)
while IFS='|' read -r file vals kernel; do
	case " ${KERNELS:-$kernel} " in *" $kernel "*) ;; *) continue ;; esac
	cmds="use $file${vals:+; $vals}"
	rm -f "$tmp/rep.ncu-rep"
	CUPLAY_NO_COUNTERS=1 "$NCU" --target-processes all --section SourceCounters -k "$kernel" -c 1 \
		-f -o "$tmp/rep" "$CUPLAY" -c "$cmds; run $kernel" >"$tmp/ncu.log" 2>&1 </dev/null
	st=$?
	if grep -q 'ERR_NVGPUCTRPERM\|does not have permission' "$tmp/ncu.log"; then
		echo "skip: ncu cannot read counters on this host (ERR_NVGPUCTRPERM): use one where it can"
		exit 0
	fi
	if [ $st != 0 ] || [ ! -s "$tmp/rep.ncu-rep" ]; then
		echo "$kernel: ncu did not profile it (exit $st): $(grep -m1 -i 'error\|no kernels were profiled' "$tmp/ncu.log")"
		nskip=$((nskip + 1)); continue
	fi
	# figures in base units (no "1.2 K"), else as this ncu prints them
	if ! "$NCU" -i "$tmp/rep.ncu-rep" --page source --csv --print-source sass --print-units base \
		>"$tmp/ncu.csv" 2>"$tmp/ncu.err" &&
	   ! "$NCU" -i "$tmp/rep.ncu-rep" --page source --csv --print-source sass >"$tmp/ncu.csv" 2>"$tmp/ncu.err"; then
		echo "$kernel: ncu's export failed: $(head -c 300 "$tmp/ncu.err")"; nskip=$((nskip + 1)); continue
	fi
	if ! "$CUPLAY" --format json -c "$cmds; lines $kernel --sass --all" >"$tmp/lines.json" 2>"$tmp/lines.err" </dev/null; then
		echo "$kernel: lines failed: $(tail -n 2 "$tmp/lines.err")"; nskip=$((nskip + 1)); continue
	fi
	python3 "$py" "$tmp/ncu.csv" "$tmp/lines.json" "$kernel"
	case $? in
	0) npass=$((npass + 1)) ;;
	1) nfail=$((nfail + 1)) ;;
	*) nskip=$((nskip + 1)) ;;
	esac
	grep -m1 'per-line run' "$tmp/lines.err" | sed 's/^/  /'
done <<'EOF2'
transpose|set N=4096; set PAD=0|transpose_tiled
coalescing|set N=16777216|square_uncoalesced
matmul|set N=509|matmul_tiled
tests/kernels/inline_header.cu||sum_neighbours
tests/kernels/matmul_sample.cu||matrix_mul
tests/kernels/block_reduce.cu||block_reduce_sum
EOF2
echo "lines-ncu: $npass passed, $nfail failed, $nskip not compared"
[ "${STRICT:-0}" = 1 ] && [ $nfail -gt 0 ] && exit 1
exit 0
