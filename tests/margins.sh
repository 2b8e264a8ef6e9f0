#!/usr/bin/env bash
# tests/margins.sh [REPLAYS] [LESSON...]: replays every lesson (or those
# named) REPLAYS times (default 5), each in a fresh process, and prints for
# each expectation the smallest margin seen (how far its figure stayed past
# its bound), so a lesson that passes by 1% is seen before a class sees it
# fail. A replay fails as well where the narration lacks a figure (a bare
# "?", or "(no timed run of K)"). Without a GPU: "margins: skipped: no GPU".
# MARGINS_KEEP=DIR: each replay's output kept there as LESSON.R.log.
. "$(dirname "$0")/lib.sh"
export XDG_CACHE_HOME="$tmp/cache"
if ! have_gpu; then
	echo "margins: skipped: no GPU"
	exit 0
fi
reps=${1:-5}
shift || true
lessons=("$@")
if [ ${#lessons[@]} = 0 ]; then
	for f in $(shipped 'sessions/*.session'); do lessons+=("$(basename "$f" .session)"); done
fi
fails=0
for l in "${lessons[@]}"; do
	: >"$tmp/$l.all"
	for r in $(seq 1 "$reps"); do
		"$CUPLAY" "sessions/$l.session" >"$tmp/$l.$r" 2>&1 </dev/null
		st=$?
		[ $st = 0 ] || { fails=$((fails + 1)); echo "$l: replay $r: exit $st"; grep -i 'expectation failed\|error' "$tmp/$l.$r" | head -n 5; }
		# a figure the narration could not give: a bare "?" where it belongs, or
		# the words that say which run is missing (a source line's C `c ? a : b`,
		# as the lines table and its expectations quote it, is not one)
		if grep -vE '[ (]\? [^?]* : ' "$tmp/$l.$r" |
			grep -nE '(^|[ (])\?([ ,.;:)]|$)|\(no timed run of |\(no timeline of |\(its memory size: no GPU\)' \
			>"$tmp/$l.q"; then
			fails=$((fails + 1)); echo "$l: replay $r: a figure missing from the narration:"; head -n 5 "$tmp/$l.q"
		fi
		[ -z "${MARGINS_KEEP:-}" ] || { mkdir -p "$MARGINS_KEEP" && cp "$tmp/$l.$r" "$MARGINS_KEEP/$l.$r.log"; }
		grep -o '^expect: .*' "$tmp/$l.$r" | sed "s/^/$r	/" >>"$tmp/$l.all"
		grep -o '^expect .*: skipped.*' "$tmp/$l.$r" | sed "s/^/$r	/" >>"$tmp/$l.all"
	done
	python3 - "$l" "$tmp/$l.all" "$reps" <<'PY'
import re, sys
lesson, path, reps = sys.argv[1], sys.argv[2], int(sys.argv[3])
seen, figs = {}, {}
for line in open(path):
    r, text = line.rstrip("\n").split("\t", 1)
    m = re.match(r"expect: (.*): ok \(margin (-?[0-9]+)%\)$", text)
    if m:
        fig = re.search(r"( is | runs at )([-0-9.e+]+)x?", m.group(1))
        key = re.sub(r"( is | runs at )[-0-9.e+]+x?", r"\1#", m.group(1), count=1)
        key = re.sub(r"interval [-0-9.e+]+x \.\. [-0-9.e+]+x", "interval #", key)
        seen.setdefault(key, []).append(int(m.group(2)))
        if fig:
            figs.setdefault(key, []).append(float(fig.group(2)))
    elif "skipped" in text:
        seen.setdefault(text, []).append(None)
for key, ms in seen.items():
    nums = [m for m in ms if m is not None]
    if nums:
        low = min(nums)
        flag = "  <- under 10%" if low < 10 else ""
        f = figs.get(key, [])
        rng = ("%.4g" % f[0] if min(f) == max(f) else "%.4g..%.4g" % (min(f), max(f))) if f else "?"
        print("%-16s %4d%%  (%d/%d)  %s  [# = %s]%s" % (lesson, low, len(nums), reps, key, rng, flag))
    else:
        print("%-16s  skipped  %s" % (lesson, key))
PY
done
echo "margins: $reps replays of ${#lessons[@]} lessons, $fails failed"
[ $fails = 0 ]
