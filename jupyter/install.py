#!/usr/bin/env python3
"""Installs the cuplay kernel for Jupyter: the kernelspec `cuplay`, run by
the Python that runs this (it must have ipykernel), with this folder on its
path and the cuplay binary named in its environment.

    python3 jupyter/install.py [--cuplay PATH] [--user | --sys-prefix | --prefix DIR]

`make jupyter-install` runs it with the binary just built. --user (the
default) installs for you alone; --sys-prefix into this Python's
environment (a virtualenv, a conda env, a shared image's Python);
--prefix DIR under DIR/share/jupyter/kernels."""
import argparse
import json
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser(description="install the cuplay Jupyter kernel")
    ap.add_argument("--cuplay", default=os.path.join(os.path.dirname(HERE), "cuplay"),
                    help="the cuplay binary (default: the one built beside this folder)")
    where = ap.add_mutually_exclusive_group()
    where.add_argument("--user", action="store_true", help="for this user (the default)")
    where.add_argument("--sys-prefix", action="store_true", help="into this Python's prefix")
    where.add_argument("--prefix", help="under PREFIX/share/jupyter/kernels")
    ap.add_argument("--args", default="", help="options every kernel's cuplay gets (e.g. --no-gpu)")
    o = ap.parse_args()
    try:
        import ipykernel  # noqa: F401
        from jupyter_client.kernelspec import KernelSpecManager
    except ImportError as e:
        print("cuplay: the Jupyter kernel needs ipykernel and jupyter_client for %s (%s): "
              "pip install ipykernel jupyter_client" % (sys.executable, e), file=sys.stderr)
        return 1
    exe = os.path.abspath(o.cuplay)
    if not os.access(exe, os.X_OK):
        print("cuplay: no cuplay binary at '%s': build it first (make) or name it (--cuplay)" % exe,
              file=sys.stderr)
        return 1
    spec = {
        "argv": [sys.executable, "-m", "cuplay_kernel", "-f", "{connection_file}"],
        "display_name": "cuplay",
        "language": "cuplay",
        "interrupt_mode": "signal",
        # the kernel's own folder, then the path the installing Python was
        # given (packages installed with --target, say): the kernelspec's
        # env replaces the variable, it does not add to it
        "env": {"PYTHONPATH": os.pathsep.join(p for p in [HERE, os.environ.get("PYTHONPATH", "")] if p),
                "CUPLAY": exe},
        "metadata": {"debugger": False},
    }
    if o.args:
        spec["env"]["CUPLAY_ARGS"] = o.args
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "kernel.json"), "w") as f:
            json.dump(spec, f, indent=1)
        ksm = KernelSpecManager()
        if o.prefix:
            dest = ksm.install_kernel_spec(d, "cuplay", prefix=o.prefix)
        elif o.sys_prefix:
            dest = ksm.install_kernel_spec(d, "cuplay", prefix=sys.prefix)
        else:
            dest = ksm.install_kernel_spec(d, "cuplay", user=True)
    print("installed the kernelspec 'cuplay' in %s (Python %s, cuplay %s)" % (dest, sys.executable, exe))
    return 0


if __name__ == "__main__":
    sys.exit(main())
