// ops.cuh: a header of tests/cxx/user_include.cu, found through '//@ include inc'
#pragma once
#include "config.cuh"

namespace course {
__device__ inline float times(float v, float k) { return v * k; }
}
