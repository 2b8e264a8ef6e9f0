#!/usr/bin/env bash
# tests/board_slurm.sh: the class board's Slurm path end to end on a Slurm
# of one node started here: munged with a key of its own, slurmctld and
# slurmd on localhost (no GPU: the board runs compile-only), their state,
# spool, logs and sockets in a temporary directory, on free ports. Checks
# that srun runs a job on the node, then starts the board with
# `--gpus none --slurm ''` and submits: a correct kernel comes back
# "needs_gpu" and one with a mistake "compile_error" with its line, both
# through srun (slurmctld allocated their jobs). Stops all it started.
# Without Slurm's daemons and munge (Debian: slurm-wlm munge), or not as
# root (slurmd runs jobs as their user), one line: "board_slurm: skipped: ...".
# Prints "board_slurm: N passed, N failed".
set -u
cd "$(dirname "$0")/.."
CUPLAY=${CUPLAY:-./cuplay}
case "$CUPLAY" in /*) ;; *) CUPLAY=$PWD/$CUPLAY ;; esac
skipped() { echo "board_slurm: skipped: $*"; exit 0; }
for t in munged slurmctld slurmd srun sinfo; do
	command -v $t >/dev/null || [ -x /usr/sbin/$t ] || skipped "no $t (install slurm-wlm and munge)"
done
[ "$(id -u)" = 0 ] || skipped "slurmd runs as root (here uid $(id -u))"
export PATH=$PATH:/usr/sbin
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok:   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

t=$(mktemp -d /tmp/cuplay-slurm-XXXXXX)
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${pids[@]}"; do
		for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$p" 2>/dev/null
	done
	wait 2>/dev/null
	rm -rf "$t"
}
trap cleanup EXIT
mkdir -p "$t/state" "$t/spool" "$t/munge"
chmod 711 "$t/munge"
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# munge: a key of its own, its socket here (Slurm is told of it: AuthInfo)
head -c 1024 /dev/urandom >"$t/munge/key"
chmod 400 "$t/munge/key"
munged --foreground --force --key-file="$t/munge/key" --socket="$t/munge/sock" \
	--pid-file="$t/munge/pid" --log-file="$t/munge/log" --seed-file="$t/munge/seed" >"$t/munge/out" 2>&1 &
pids+=($!)

# one node, this machine, its CPUs; no GPU, no cgroups. Its memory is
# said to be a TiB (config_overrides: taken as written) so that a job's
# --mem, the exercise's limit, is granted on a small CI machine (nothing
# enforces it here)
cat >"$t/slurm.conf" <<EOF
ClusterName=cuplayci
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$(port)
SlurmdPort=$(port)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$t/munge/sock
StateSaveLocation=$t/state
SlurmdSpoolDir=$t/spool
SlurmctldPidFile=$t/slurmctld.pid
SlurmdPidFile=$t/slurmd.pid
SlurmctldLogFile=$t/slurmctld.log
SlurmdLogFile=$t/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/pgid
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
MpiDefault=none
ReturnToService=2
SlurmdTimeout=30
SlurmdParameters=config_overrides
InactiveLimit=0
KillWait=5
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=1048576 State=UNKNOWN
PartitionName=ci Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$t/slurm.conf
slurmctld -D -i -f "$SLURM_CONF" >"$t/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -N localhost -f "$SLURM_CONF" >"$t/slurmd.out" 2>&1 &
pids+=($!)
state=
for _ in $(seq 150); do
	state=$(sinfo -h -N -o %t 2>/dev/null | head -n 1)
	[ "$state" = idle ] && break
	sleep 0.2
done
if [ "$state" = idle ]; then ok "the node of one-node Slurm is idle"; else
	bad "the node is not idle after 30 s (state '$state')"
	tail -n 5 "$t/slurmctld.log" "$t/slurmd.log" "$t/slurmctld.out" "$t/slurmd.out" 2>/dev/null | sed 's/^/    /'
	echo "board_slurm: $pass passed, $fail failed"; exit 1
fi
got=$(echo hello | timeout 60 srun --time=1 --mem=64 /bin/sh -c 'cat; echo "$SLURMD_NODENAME"' 2>&1)
if [ "$got" = "$(printf 'hello\nlocalhost')" ]; then ok "srun runs a job on the node (stdin in, stdout back)"; else
	bad "srun: '$got'"
fi

# the board, compile-only, its verifications as jobs
PASS0=$pass FAIL0=$fail PYTHONPATH=tests SLURM_T=$t CUPLAY="$CUPLAY" timeout 240 python3 - <<'PY'
import os, re, sys
from board_lib import ROOT, Board, Counts, NoBoard
c = Counts("board_slurm")
c.passed, c.failed = int(os.environ["PASS0"]), int(os.environ["FAIL0"])
t = os.environ["SLURM_T"]
b = Board(t, ["--gpus", "none", "--slurm", ""])
try:
    b.start()
except NoBoard as e:
    c.skipped("the board: %s" % e)
except OSError as e:
    c.check(False, "the board starts with --gpus none --slurm ''", e)
    c.close()
try:
    b.open_exercise("transpose")
    tok = b.student("ada")
    good = open(os.path.join(ROOT, "kernels_src", "transpose.cu")).read()
    bad = good.replace("__global__", "int broken = ;\n__global__", 1)
    bad_line = bad[:bad.index("int broken")].count("\n") + 1
    ids = {}
    for what, src in (("good", good), ("bad", bad)):
        st, j = b.submit(tok, "transpose", src, "mine.cu")
        c.check(st == 202 and j and isinstance(j.get("id"), int), "%s submission acknowledged (202)" % what, (st, j))
        if j and "id" in j:
            ids[what] = j["id"]
    done = b.wait_done(list(ids.values()), 180, tok)
    res = {w: (done.get(i) or {}).get("result") or {} for w, i in ids.items()}
    c.check(res.get("good", {}).get("status") == "needs_gpu",
            "a correct kernel comes back through srun as needs_gpu", res.get("good") or done)
    r = res.get("bad", {})
    c.check(r.get("status") == "compile_error" and re.search(r"\.cu:%d:" % bad_line, r.get("reason", "")),
            "a kernel with a mistake comes back compile_error at its line %d" % bad_line, r)
    log = open(os.path.join(t, "slurmctld.log")).read()
    jobs = len(set(re.findall(r"JobId=(\d+)", log)))
    c.check(jobs >= 3, "the verifications ran as Slurm jobs (%d jobs in slurmctld's log)" % jobs)
finally:
    b.stop()
c.close()
PY
# (the Python part closes with the counts of both)
