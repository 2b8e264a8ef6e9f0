#!/usr/bin/env python3
"""tests/bench/prelude_cost.py [REPS]: what the prelude (src/compile/prelude.c)
costs a plain compile: a saxpy compiled by NVRTC in this process, in turn
without and with the prelude as a pre-included header, REPS times each
(default 40); prints both medians and the median of the paired differences.
NVRTC from CUDA_HOME (default /usr/local/cuda); no GPU needed."""
import ctypes, os, re, statistics, sys, time

home = os.environ.get("CUDA_HOME", "/usr/local/cuda")
lib = ctypes.CDLL(os.path.join(home, "lib64", "libnvrtc.so"))
root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
c = open(os.path.join(root, "src", "compile", "prelude.c")).read()
body = c[c.index("static const char text[] ="):c.index("const char *prelude_text")]
body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
prelude = "".join(bytes(p, "utf-8").decode("unicode_escape") for p in re.findall(r'"((?:[^"\\]|\\.)*)"', body))
name = re.search(r'#define PRELUDE_NAME "([^"]+)"', open(os.path.join(root, "src", "compile", "prelude.h")).read()).group(1)
src = (b"__global__ void saxpy(int n, float a, const float *x, float *y)\n"
       b"{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = a * x[i] + y[i]; }\n")

def compile_ms(with_prelude):
    prog = ctypes.c_void_p()
    names = (ctypes.c_char_p * 1)(name.encode())
    texts = (ctypes.c_char_p * 1)(prelude.encode())
    n = 1 if with_prelude else 0
    assert lib.nvrtcCreateProgram(ctypes.byref(prog), src, b"saxpy.cu", n, texts, names) == 0
    opts = [b"-arch=sm_90", b"-lineinfo"] + ([("-include=" + name).encode()] if with_prelude else [])
    arr = (ctypes.c_char_p * len(opts))(*opts)
    t = time.perf_counter()
    r = lib.nvrtcCompileProgram(prog, len(opts), arr)
    dt = (time.perf_counter() - t) * 1e3
    lib.nvrtcDestroyProgram(ctypes.byref(prog))
    assert r == 0, "compile failed"
    return dt

reps = int(sys.argv[1]) if len(sys.argv) > 1 else 40
for w in (0, 1, 0, 1):
    compile_ms(w)
plain, pre = [], []
for _ in range(reps):
    plain.append(compile_ms(0))
    pre.append(compile_ms(1))
print("plain compile: median %.2f ms; with the prelude: median %.2f ms; paired difference: median %+.2f ms (%d pairs)"
      % (statistics.median(plain), statistics.median(pre), statistics.median([b - a for a, b in zip(plain, pre)]), reps))
