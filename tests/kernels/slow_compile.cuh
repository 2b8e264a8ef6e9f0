// slow_compile.cuh: macros that double 21 times: 2^21 terms, minutes of NVRTC
// (a test's pathological header: Ctrl-C and 'timeout compile' must stop it)
#pragma once
#define SLOW0 1 +
#define SLOW1 SLOW0 SLOW0
#define SLOW2 SLOW1 SLOW1
#define SLOW3 SLOW2 SLOW2
#define SLOW4 SLOW3 SLOW3
#define SLOW5 SLOW4 SLOW4
#define SLOW6 SLOW5 SLOW5
#define SLOW7 SLOW6 SLOW6
#define SLOW8 SLOW7 SLOW7
#define SLOW9 SLOW8 SLOW8
#define SLOW10 SLOW9 SLOW9
#define SLOW11 SLOW10 SLOW10
#define SLOW12 SLOW11 SLOW11
#define SLOW13 SLOW12 SLOW12
#define SLOW14 SLOW13 SLOW13
#define SLOW15 SLOW14 SLOW14
#define SLOW16 SLOW15 SLOW15
#define SLOW17 SLOW16 SLOW16
#define SLOW18 SLOW17 SLOW17
#define SLOW19 SLOW18 SLOW18
#define SLOW20 SLOW19 SLOW19
#define SLOW21 SLOW20 SLOW20
