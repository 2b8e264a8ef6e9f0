# tests/shipped.sh: the files that come with cuplay, for the tests, sourced
# by tests/run.sh, tests/lib.sh and tests/valgrind.sh (from the repository
# root). The tests use these alone, so that kernel files and lessons of
# one's own in kernels_src/ and sessions/ change no test's outcome.

# shipped [GLOB...]: the paths MANIFEST lists (that match one of the shell
# globs, e.g. 'kernels_src/*.cu'), one a line, in the manifest's order.
shipped() {
	local f g
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' MANIFEST | while IFS= read -r f; do
		[ $# = 0 ] && { printf '%s\n' "$f"; continue; }
		for g in "$@"; do
			# shellcheck disable=SC2254
			case "$f" in $g) printf '%s\n' "$f"; break ;; esac
		done
	done
}

# shipped_tree DIR: DIR becomes a tree in which cuplay sees the shipped
# kernel files and lessons alone: DIR/kernels_src and DIR/sessions hold
# copies of them, DIR/tests is a link to the tests. A test run from DIR
# prints the same paths (kernels_src/transpose.cu, tests/golden/...) as one
# run from the root.
shipped_tree() {
	local dir=$1 f
	mkdir -p "$dir/kernels_src" "$dir/sessions" || return 1
	ln -sfn "$PWD/tests" "$dir/tests" || return 1
	for f in $(shipped 'kernels_src/*' 'sessions/*'); do
		mkdir -p "$dir/${f%/*}" && cp -p "$f" "$dir/$f" || return 1
	done
}
