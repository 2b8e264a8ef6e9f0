#!/usr/bin/env bash
# tests/docs.sh: the documentation covers what the program has. The names
# come from the program itself (its `help`, the header parser's own tables
# through its error messages, the source's environment variables), so a
# line, command, topic or variable added without its documentation fails
# here. Closing line: "docs: N passed, N failed, N skipped".
. "$(dirname "$0")/lib.sh"
export XDG_CACHE_HOME="$tmp/cache"
pass=0 fail=0 skip=0
ok()  { pass=$((pass + 1)); echo "ok:   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# documented WORD FILE...: FILE names `WORD as code (`WORD`, `WORD(X)`, `//@ WORD ...`)
documented() {
	local w=$1; shift
	grep -qE "\`(//@ )?$w([^A-Za-z0-9_]|$)" "$@"
}

# the list after "(known: " or "(expected: " in cuplay's error for a header line
known_words() {
	printf '%s\n//@ param n = 4\n//@ buffer x float[4] output\n//@ grid 1\n//@ block 1\n__global__ void k(float *x) {}\n' \
		"$1" >"$tmp/kw.cu"
	"$CUPLAY" --no-gpu -c "use $tmp/kw.cu" 2>&1 | sed -n 's/.*(\(known\|expected\): \([^)]*\)).*/\2/p' | tr -d ',' | tr ' ' '\n' | grep .
}

# 1. every //@ line, per-kernel line, buffer word, type and reference the
#    parser knows is in docs/header.md
for spec in "directive|//@ zzzz" "per-kernel line|//@ kernel k zzzz" "buffer word|//@ buffer x float[4] zzzz" \
            "buffer type|//@ buffer x zzzz[4]" "reference|//@ check x = zzzz(x)"; do
	what=${spec%%|*} line=${spec#*|}
	words=$(known_words "$line")
	if [ -z "$words" ]; then bad "header.md: cuplay named no ${what}s (its message changed?)"; continue; fi
	missing=
	for w in $words; do documented "$w" docs/header.md || missing="$missing $w"; done
	if [ -z "$missing" ]; then ok "header.md documents every $what ($(echo $words | wc -w))"
	else bad "header.md does not document the ${what}s:$missing"; fi
done

# 2. every topic `help` names has a section in docs/ that says `help TOPIC`
topics=$("$CUPLAY" -c help 2>&1 | tr '\n' ' ' | grep -o "'help [a-z]*'" | sed "s/'help \(.*\)'/\1/" | sort -u)
[ -n "$topics" ] || bad "help names no topics (its text changed?)"
for t in $topics; do
	if ! "$CUPLAY" -c "help $t" >/dev/null 2>&1; then bad "help $t: not a topic"
	elif grep -q "^#.*\`help $t\`" docs/*.md; then ok "help $t: a section of docs/ ($(grep -l "^#.*\`help $t\`" docs/*.md | head -n 1))"
	else bad "help names the topic '$t', and no heading of docs/*.md says \`help $t\`"; fi
done
if "$CUPLAY" -c help 2>&1 | grep -q "docs/"; then ok "help says where the docs are"; else bad "help does not name docs/"; fi

# 3. every command of the table is in docs/commands.md and README.md's table
cmds=$("$CUPLAY" -c help 2>&1 | sed -n 's/^  \([a-z]\+\)\( .*\|\)$/\1/p')
missing= missing_readme=
for c in $cmds; do
	documented "$c" docs/commands.md || missing="$missing $c"
	documented "$c" README.md || missing_readme="$missing_readme $c"
done
if [ -z "$cmds" ]; then bad "help lists no commands (its text changed?)"
elif [ -z "$missing$missing_readme" ]; then ok "docs/commands.md and README.md name every command ($(echo $cmds | wc -w))"
else bad "commands not documented: in docs/commands.md:${missing:- none}; in README.md:${missing_readme:- none}"; fi

# 4. every CUPLAY_* variable the source reads is in docs/environment.md's
#    table once and in the man page's ENVIRONMENT
vars=$(grep -rhoE '"CUPLAY_[A-Z0-9_]+=?"' src | tr -d '"=' | grep -v '_H$' | sort -u)
man_env=$(sed -n '/^\.SH ENVIRONMENT/,/^\.SH /p' cuplay.1 | tr -d '\\')
bad_vars=
for v in $vars; do
	n=$(grep -c "^| \`$v\` |" docs/environment.md)
	[ "$n" = 1 ] || bad_vars="$bad_vars $v($n rows)"
	grep -q "^\.B[R]* .*$v" <<<"$man_env" || bad_vars="$bad_vars $v(not in cuplay.1)"
done
if [ -z "$vars" ]; then bad "no CUPLAY_ variables found in src/"
elif [ -z "$bad_vars" ]; then ok "docs/environment.md and cuplay.1 name each CUPLAY_ variable once ($(echo $vars | wc -w))"
else bad "CUPLAY_ variables: a row each in docs/environment.md and an entry in cuplay.1's ENVIRONMENT:$bad_vars"; fi

# 5. every shipped lesson has its row in docs/classroom.md's list
missing=
for f in $(shipped 'sessions/*.session'); do
	n=$(basename "$f" .session)
	grep -q "^| \`$n\` |" docs/classroom.md || missing="$missing $n"
done
if [ -z "$missing" ]; then ok "docs/classroom.md lists every shipped lesson"
else bad "docs/classroom.md has no row for the lessons:$missing"; fi

# 6. the links between the documents lead somewhere
broken=
for f in README.md docs/*.md; do
	for l in $(grep -o '](\([a-z./]*\.md\)' "$f" | sed 's/](//'); do
		[ -e "$(dirname "$f")/$l" ] || broken="$broken $f:$l"
	done
done
if [ -z "$broken" ]; then ok "every link to a document of README.md and docs/ exists"; else bad "broken links:$broken"; fi

echo "docs: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
