#!/usr/bin/env bash
# tests/layers_fails.sh: tests/layers.sh fails where it should. Small trees
# of two layers (lo below hi) are built, each with one fault, and the check
# must fail on each with its message; a tree without a fault must pass.
#   - two files of a folder that use each other's header names (a type one
#     way, a macro the other), with no call between them;
#   - a file of lo that calls into hi;
#   - a function of 101 lines; a file of 1,001 lines;
#   - a fork outside the one file that starts processes;
#   - a dup2 whose result is dropped; a flag cast to volatile int *;
#   - two modules that include each other's headers (no name used);
#   - a function of one module kept in a pointer by another, not in
#     src/README.md's table of callbacks; a row of that table that no
#     longer holds; a README that does not name every module.
# Closing line: "layers_fails: N passed, N failed"; exit 77 without cc,
# python3 or nm.
set -u
here=$(cd "$(dirname "$0")" && pwd)
for t in cc python3 nm; do
	command -v $t >/dev/null || { echo "layers_fails: skipped: needs $t"; exit 77; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0

# a tree: files given as NAME=TEXT pairs under src/, then its objects
tree() {
	local dir=$1; shift
	rm -rf "$dir"; mkdir -p "$dir/src/lo" "$dir/src/hi" "$dir/obj/lo" "$dir/obj/hi"
	for pair in "$@"; do
		printf '%s\n' "${pair#*=}" >"$dir/src/${pair%%=*}"
	done
	for c in "$dir"/src/*/*.c; do
		local rel=${c#$dir/src/}
		cc -c -Isrc/lo -Isrc/hi -o "$dir/obj/${rel%.c}.o" "$c" -I"$dir/src/lo" -I"$dir/src/hi" || return 1
	done
}
# expect DIR WANT_EXIT PATTERN: the check on DIR exits so, and says PATTERN
expect() {
	local out
	out=$(LAYERS_ROOT="$1" OBJ_DIR=obj LAYERS="lo hi" bash "$here/layers.sh" 2>&1)
	local st=$?
	if [ $st -eq "$2" ] && grep -q -- "$3" <<<"$out"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: layers_fails: $1: exit $st (want $2), want '$3' in:"
		sed 's/^/    /' <<<"$out"
	fi
}

ok_a='lo/a.h=#ifndef A_H
#define A_H
typedef struct box { int n; } box;
int a_get(const box *b);
#endif'
ok_ac='lo/a.c=#include "a.h"
int a_get(const box *b) { return b->n; }'
ok_b='lo/b.h=#ifndef B_H
#define B_H
#include "a.h"
int b_twice(const box *b);
#endif'
ok_bc='lo/b.c=#include "b.h"
int b_twice(const box *b) { return 2 * a_get(b); }'
ok_h='hi/top.c=#include "b.h"
int top(void) { box x = { 1 }; return b_twice(&x); }'

tree "$tmp/good" "$ok_a" "$ok_ac" "$ok_b" "$ok_bc" "$ok_h" && expect "$tmp/good" 0 "0 failed"

# a.c uses B_LIMIT (a macro of b.h), b uses box (a type of a.h): no call either way
tree "$tmp/circle" "$ok_a" 'lo/a.c=#include "a.h"
#include "b.h"
int a_get(const box *b) { return b->n < B_LIMIT ? b->n : B_LIMIT; }' "$ok_b" 'lo/b.h=#ifndef B_H
#define B_H
#include "a.h"
#define B_LIMIT 8
int b_twice(const box *b);
#endif' 'lo/b.c=#include "b.h"
int b_twice(const box *b) { return 2 * b->n; }' "$ok_h" &&
	expect "$tmp/circle" 1 "use each other in a circle: src/lo/a (B_LIMIT) -> src/lo/b (box) -> src/lo/a"

tree "$tmp/up" "$ok_a" 'lo/a.c=#include "a.h"
int top(void);
int a_get(const box *b) { return b->n + top(); }' "$ok_b" "$ok_bc" "$ok_h" &&
	expect "$tmp/up" 1 "src/lo/a uses src/hi/top (layer 'hi' is above 'lo'): top"

long=$(printf '\tn += 1;\n%.0s' $(seq 98))
tree "$tmp/longfn" "$ok_a" "lo/a.c=#include \"a.h\"
int a_get(const box *b)
{
	int n = b->n;
$long
	return n;
}" "$ok_b" "$ok_bc" "$ok_h" && expect "$tmp/longfn" 1 "function a_get has 103 lines (at most 100)"

filler=$(printf '/* %d */\n' $(seq 1001))
tree "$tmp/longfile" "$ok_a" "$ok_ac" "$ok_b" "$ok_bc" "$ok_h" "lo/c.h=$filler" &&
	expect "$tmp/longfile" 1 "src/lo/c.h has 1001 lines (at most 1000)"

# a process started outside the spawner (lo/b.c here)
tree "$tmp/fork" "$ok_a" "$ok_ac" "$ok_b" 'lo/b.c=#include "b.h"
#include <unistd.h>
int b_twice(const box *b) { return fork() == 0 ? 0 : 2 * a_get(b); }' "$ok_h" &&
	SPAWNER=src/lo/a.c expect "$tmp/fork" 1 "src/lo/b.c starts a process itself (fork): only src/lo/a.c forks and execs"

# a dup2 whose result is dropped; a flag's address cast to volatile int *
tree "$tmp/dropped" "$ok_a" "$ok_ac" "$ok_b" 'lo/b.c=#include "b.h"
#include <unistd.h>
int b_twice(const box *b)
{
	if (b->n)
		dup2(b->n, 2);
	return 2 * a_get(b);
}' "$ok_h" && expect "$tmp/dropped" 1 "src/lo/b.c:6: the result of dup2() is dropped"
tree "$tmp/cast" "$ok_a" "$ok_ac" "$ok_b" 'lo/b.c=#include "b.h"
#include <signal.h>
static volatile sig_atomic_t flag;
static int peek(volatile int *p) { return *p; }
int b_twice(const box *b) { return peek((volatile int *)&flag) + 2 * a_get(b); }' "$ok_h" &&
	expect "$tmp/cast" 1 "src/lo/b.c:5: a cast of a flag's address to another volatile type"

# a.c includes b.h, which includes a.h: a circle of includes, with no
# name used either way
tree "$tmp/inclusion" "$ok_a" 'lo/a.c=#include "a.h"
#include "b.h"
int a_get(const box *b) { return b->n; }' "$ok_b" "$ok_bc" "$ok_h" &&
	expect "$tmp/inclusion" 1 'files include each other in a circle: src/lo/a (#include "b.h") -> src/lo/b (#include "a.h") -> src/lo/a'

# a function of lo kept in a pointer by hi, not in src/README.md's table;
# then a table that lists one taken nowhere
cb_h='hi/top.c=#include "b.h"
static int (*get)(const box *) = a_get;
int top(void) { box x = { 1 }; return get(&x) + b_twice(&x); }'
tree "$tmp/callback" "$ok_a" "$ok_ac" "$ok_b" "$ok_bc" "$cb_h" &&
	expect "$tmp/callback" 1 "src/hi/top.c:2: takes the address of a_get (src/lo/a): a callback not in src/README.md's table of callbacks"
tree "$tmp/listed" "$ok_a" "$ok_ac" "$ok_b" "$ok_bc" "$cb_h" 'README.md=`a`, `b`, `top`
| `hi/top` | `a_get` | hi/top itself |' &&
	expect "$tmp/listed" 0 "0 failed"
# a README that does not name every module
tree "$tmp/unnamed" "$ok_a" "$ok_ac" "$ok_b" "$ok_bc" "$ok_h" 'README.md=`a`, `top`' &&
	expect "$tmp/unnamed" 1 "src/lo/b is not named in src/README.md"
tree "$tmp/stale" "$ok_a" "$ok_ac" "$ok_b" "$ok_bc" "$ok_h" 'README.md=| `hi/top` | `a_get` | hi/top itself |' &&
	expect "$tmp/stale" 1 "src/README.md declares the callback a_get taken by src/hi/top, which takes it no more"

echo "layers_fails: $pass passed, $fail failed"
[ $fail -eq 0 ]
