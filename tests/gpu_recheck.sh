#!/usr/bin/env bash
# tests/gpu_recheck.sh: the timed launches must compute what the checked
# launch computed. A kernel that does its work on its first launch only (a
# __device__ flag) or that accumulates into a __device__ array nothing
# clears is flagged, in the row and the data, and fails `expect correct`,
# made alone, in a batch, in a sweep and timed without its check (`//@ check
# at`), and says which element it left unwritten; a managed output that
# keeps state, a sequence whose middle step keeps state (its own output
# shows it) and a compare's later rounds are flagged too; declared with
# //@ global, the same kernel is ok; the shipped kernels (float atomics, the
# look-back scan, sequences) are not flagged. Called by
# tests/gpu.sh; alone: `bash tests/gpu_recheck.sh` (CUPLAY=./cuplay).
. "$(dirname "$0")/lib.sh"
export XDG_CACHE_HOME="$tmp/cache"
if ! have_gpu; then
	echo "gpu-recheck: skipped: no GPU"
	exit 0
fi
bad() { fail=$((fail + 1)); echo "FAIL: $*"; cat "$tmp/out" "$tmp/err" 2>/dev/null | sed 's/^/    /' | tail -n 25; }
doc='import json, sys; t = open(sys.argv[1]).read(); d = json.JSONDecoder().raw_decode(t[t.index("{\"cuplay\""):])[0]'
# runs FIELD...: those fields of every run record, a line each, tab-separated
# runs FIELD...: those fields of the data's run records, a line each (RTYPE=sweep: its sweep records)
runs() { RTYPE=${RTYPE:-run} python3 -c "$doc"'; import os; [print("\t".join(str(x.get(k)) for k in sys.argv[2:])) for x in d["records"] if x.get("type") == os.environ["RTYPE"]]' "$tmp/out" "$@" 2>/dev/null; }
msg='the timed launches did not compute what the checked launch did: a kernel that keeps state across launches?'

# 1. flagged: the row, the data, expect correct; alone and in a batch
for what in "once.cu|once|" "once.cu|once|batch 10;" "accumulate.cu|accumulate|"; do
	IFS='|' read -r file kernel pre <<<"$what"
	CUPLAY_TRACE_WORKER=1 "$CUPLAY" --format json -c "use tests/kernels/$file; $pre run" >"$tmp/out" 2>"$tmp/err"
	got=$(runs check timed_check)
	if [ "${got%%	*}" = FAIL ] && [[ "$got" == *"$msg"* ]] && grep -q "the last launch against the checked one: other values" "$tmp/err"; then
		ok "$file${pre:+ ($pre)}: flagged in the data: $got"
	else
		bad "$file${pre:+ ($pre)}: expected check FAIL and the timed_check message, got '$got'"
	fi
done
if "$CUPLAY" -c 'use tests/kernels/once.cu; run; expect once correct' >"$tmp/out" 2>"$tmp/err"; then
	bad "once.cu: 'expect once correct' held"
elif grep -q "once is not correct: $msg" "$tmp/out" "$tmp/err" && grep -q "^once .*FAIL" "$tmp/out"; then
	ok "once.cu: FAIL in the table, 'expect once correct' fails and says why"
else
	bad "once.cu: expected FAIL in the row and the expectation's message"
fi

# 2. each configuration of a sweep; and timed without its check (check at):
#    against the first launch of the timed request
"$CUPLAY" --format json -c 'use tests/kernels/once.cu; sweep N=1048576,4194304' >"$tmp/out" 2>"$tmp/err"
if [ "$(RTYPE=sweep runs check | sort | uniq -c | awk '{ print $1, $2 }')" = "2 FAIL" ]; then
	ok "once.cu: both configurations of a sweep flagged"
else
	bad "once.cu sweep: expected 2 FAIL rows, got '$(RTYPE=sweep runs check | tr '\n' ' ')'"
fi
sed 's|^//@ check y = scale(x, 2)|&\n//@ check at N = 100000|' tests/kernels/once.cu >"$tmp/once_at.cu"
CUPLAY_TRACE_WORKER=1 "$CUPLAY" --format json -c "use $tmp/once_at.cu; run" >"$tmp/out" 2>"$tmp/err"
if [ "$(runs check)" = FAIL ] && grep -q "the last launch against the first one: other values" "$tmp/err"; then
	ok "once.cu with check at: the timed request's last launch against its first: flagged"
else
	bad "once.cu with check at: expected FAIL against the first launch, got '$(runs check)'"
fi

# 3. declared with //@ global, reset before each launch: ok, the same bits
CUPLAY_TRACE_WORKER=1 "$CUPLAY" --format json -c 'use tests/kernels/once_reset.cu; run' >"$tmp/out" 2>"$tmp/err"
if [ "$(runs check timed_check)" = "ok	None" ] && grep -q "the last launch against the checked one: the same bits" "$tmp/err"; then
	ok "once_reset.cu: its state declared and reset: ok, the last launch gives the checked bits"
else
	bad "once_reset.cu: expected ok with the same bits, got '$(runs check timed_check)'"
fi

# 4. what was found, in one line: the first element the timed launches
#    left unwritten (its poison), not "relative error 0.00e+00"
"$CUPLAY" --format json -c 'use tests/kernels/once.cu; run' >"$tmp/out" 2>"$tmp/err"
got=$(runs timed_check)
if [[ "$got" == *"('y'["*"] left unwritten: it holds its initial contents, nan, where "*" is wanted)" ]] &&
	[[ "$got" != *"relative error 0.00e+00"* ]]; then
	ok "once.cu: the flag names the element left unwritten: $got"
else
	bad "once.cu: expected the element left unwritten in the flag, got '$got'"
fi

# 5. a managed output is compared too (it was not)
CUPLAY_TRACE_WORKER=1 "$CUPLAY" --format json -c 'use tests/kernels/once_managed.cu; run' >"$tmp/out" 2>"$tmp/err"
got=$(runs check timed_check)
if [ "${got%%	*}" = FAIL ] && [[ "$got" == *"$msg ('y'["* ]] && grep -q "the last launch against the checked one: other values" "$tmp/err"; then
	ok "once_managed.cu: a managed output that keeps state flagged: $got"
else
	bad "once_managed.cu: expected check FAIL and the timed_check message, got '$got'"
fi

# 6. a sequence whose middle step keeps state: the checked output is right on
#    every launch, the step's own output ('hist', an intermediate) shows it;
#    alone and as a CUDA graph
for pre in "" "timing graph on;"; do
	CUPLAY_TRACE_WORKER=1 "$CUPLAY" --format json -c "use tests/kernels/seq_state.cu; $pre run three" >"$tmp/out" 2>"$tmp/err"
	got=$(runs check timed_check)
	if [ "${got%%	*}" = FAIL ] && [[ "$got" == *"$msg ('hist'["* ]] && grep -q "'hist', an output of the steps: other values" "$tmp/err"; then
		ok "seq_state.cu${pre:+ ($pre)}: the middle step's skipped work flagged: $got"
	else
		bad "seq_state.cu${pre:+ ($pre)}: expected check FAIL naming 'hist', got '$got'"
	fi
done

# 7. a compare's later rounds (timed without their check) compare their
#    last launch with their first; the flag fails the variant
CUPLAY_TRACE_WORKER=1 "$CUPLAY" -c 'use tests/kernels/once.cu; compare once[N=1048576] once[N=2097152]' >"$tmp/out" 2>"$tmp/err" || true
n=$(grep -c "the last launch against the first one" "$tmp/err")
if [ "$n" -ge 2 ] && grep -q "keeps state across launches?" "$tmp/out" "$tmp/err"; then
	ok "once.cu compare: the later rounds checked too ($n against their first launch) and the variant flagged"
else
	bad "once.cu compare: expected the later rounds' last launches against their first, got $n"
fi

# 8. every shipped kernel file: nothing flagged; the float-atomic sums and
#    the look-back scan (with a sequence and its graph) compared
for f in $(shipped 'kernels_src/*.cu'); do
	CUPLAY_TRACE_WORKER=1 "$CUPLAY" --format json -c "use $f; timing graph on; run" >"$tmp/out" 2>"$tmp/err"
	n=$(grep -c "the last launch against the" "$tmp/err")
	if grep -q "the last launch against the [a-z]* one: other values" "$tmp/err" || runs check | grep -q FAIL; then
		bad "$f: a shipped kernel flagged or failing: $(runs kernel check timed_check | tr '\n' ' ')"
	elif [ "$n" -eq 0 ] && case "$f" in */reduce.cu|*/dot.cu|*/scan.cu|*/histogram.cu|*/vector_add.cu) true ;; *) false ;; esac; then
		bad "$f: no last launch compared"
	elif [ "${f##*/}" = scan.cu ] && ! grep -q "the last launch, as the graph, on reset outputs" "$tmp/err"; then
		bad "$f: the sequence's last launch was not made as its graph"
	else
		ok "$f: not flagged ($n compared:$(grep -o 'the last launch against the [a-z]* one: [a-z ]*' "$tmp/err" | sed 's/.*one: //' | sort | uniq -c | tr -s ' ' | tr '\n' ';'))"
	fi
done

echo "gpu-recheck: $pass passed, $fail failed"
