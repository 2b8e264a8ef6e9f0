# tests/board_real.sh: sourced by tests/board.sh and tests/gpu_board.sh:
# real_board ARGS...: `cuplay --board` on a free localhost port with a
# database in $tmp and the tests' exercises, a student made: $board_url,
# $board_pid, $student (its token); 1 where cuplay has no board (said in
# $tmp/board.err).
real_board() {
	rm -f "$tmp/real.db"*
	"$CUPLAY" --board --port 0 --db "$tmp/real.db" --exercises tests/kernels/board "$@" >"$tmp/board.out" 2>"$tmp/board.err" &
	board_pid=$!
	local line=
	for _ in $(seq 1 100); do line=$(head -n 1 "$tmp/board.out"); [ -n "$line" ] && break; kill -0 $board_pid 2>/dev/null || break; sleep 0.1; done
	[[ "$line" =~ ^board:\ (http://[0-9.]+:[0-9]+)/\ \ teacher\ token:\ ([0-9a-f]+)$ ]] || return 1
	board_url=${BASH_REMATCH[1]}
	student=$(python3 -c '
import json, sys, urllib.request
r = urllib.request.Request(sys.argv[1] + "/api/students", data=json.dumps({"name": "ada"}).encode(), method="POST")
r.add_header("Authorization", "Bearer " + sys.argv[2])
print(json.loads(urllib.request.urlopen(r, timeout=20).read())["token"])' "$board_url" "${BASH_REMATCH[2]}")
	[ -n "$student" ]
}
