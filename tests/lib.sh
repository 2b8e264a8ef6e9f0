# tests/lib.sh: the common start of the test scripts, sourced by them: the
# repository root, the binary under test, a temporary directory removed at
# exit, no colour, and have_gpu.
set -u
cd "$(dirname "${BASH_SOURCE[1]}")/.."
CUPLAY=${CUPLAY:-./cuplay}
export NO_COLOR=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# A CUDA driver and a GPU device node: what the GPU tests need.
have_gpu() {
	ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1' && ls /dev/nvidia[0-9]* >/dev/null 2>&1
}
