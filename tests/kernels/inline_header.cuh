// inline_header.cuh: device functions the kernel of inline_header.cu
// inlines; `lines` shows their lines as inline_header.cuh:N under the
// kernel's line that calls them.
#pragma once

__device__ __forceinline__ float poly(float x)
{
	return x * x * 0.5f + x; // [poly]
}

__device__ __forceinline__ float load_poly(const float *p, int i, int n)
{
	const float v = i < n ? p[i] : 0.0f; // [load]
	return poly(v); // [nested call]
}
