# tests/lib.sh: the common start of the test scripts, sourced by them: the
# repository root, the binary under test, a temporary directory removed at
# exit, no colour, shipped (the kernel files and lessons that come with
# cuplay) and have_gpu.
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shipped: the kernel files and lessons MANIFEST lists (not one's own)
. tests/shipped.sh
CUPLAY=${CUPLAY:-./cuplay}
export NO_COLOR=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# A CUDA driver and a GPU device node: what the GPU tests need.
have_gpu() {
	ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1' && ls /dev/nvidia[0-9]* >/dev/null 2>&1
}

# For the benchmarks: the time in ns; the median of numbers on stdin; and,
# before a wall-clock figure, a wait (up to 5 s) for workers of earlier
# cuplay processes, which tear their contexts down after their front end
# has gone.
ms_now() { date +%s%N; }
median() { sort -n | awk '{a[NR]=$1} END { if (NR==0) print "nan"; else if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2 }'; }
settle() {
	command -v pgrep >/dev/null 2>&1 || return 0
	for _ in $(seq 1 50); do pgrep -f 'cuplay --worker' >/dev/null || return 0; sleep 0.1; done
}

# For the GPU test scripts: counts, "ok:" and "FAIL:" lines (a failure
# shows the last BAD_TAIL lines, default 25, of $tmp/out, the output it
# judged); each script closes with "gpu-NAME: $pass passed, $fail failed".
pass=0 fail=0
ok()  { pass=$((pass + 1)); echo "ok:   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; sed 's/^/    /' "$tmp/out" | tail -n "${BAD_TAIL:-25}"; }
