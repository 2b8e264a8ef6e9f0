#!/bin/sh
# tests/board/verify_stand_in.sh: a verifier standing in for `cuplay
# --verify` (CUPLAY_BOARD_VERIFY), for the board's tests that measure the
# board and not the GPU: reads the source on stdin, takes a little time,
# prints one verify line, status ok, its median the source's "// ms=X"
# (else 1.0) and its host the source's "// host=NAME" (else stand-in).
src=$(cat)
ms=$(printf '%s\n' "$src" | sed -n 's|.*// ms=\([0-9.][0-9.]*\).*|\1|p' | head -n 1)
host=$(printf '%s\n' "$src" | sed -n 's|.*// host=\([A-Za-z0-9_.-][A-Za-z0-9_.-]*\).*|\1|p' | head -n 1)
sleep "${STAND_IN_SLEEP:-0.05}"
printf '{"status":"ok","reason":"stand-in","kernel":"transpose_tiled","median_ms":%s,"lo_ms":%s,"hi_ms":%s,' \
	"${ms:-1.0}" "${ms:-1.0}" "${ms:-1.0}"
printf '"baseline_ms":10.0,"speedup":1.0,"rank_by":"median_ms","gpu":"stand-in","host":"%s","checks":[]}\n' \
	"${host:-stand-in}"
