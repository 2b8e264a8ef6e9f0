"""python -m cuplay_kernel: the kernel, as the kernelspec starts it."""
from ipykernel.kernelapp import IPKernelApp

from .kernel import CuplayKernel

IPKernelApp.launch_instance(kernel_class=CuplayKernel)
