// The kernels for x86-64 CPUs with AVX2 and FMA (Intel since 2013, AMD since 2015), picked at run
// time by `pk_best_kernels`; the whole file is compiled for them, so nothing here may run elsewhere.
#if defined(__x86_64__)
#include <immintrin.h>
#pragma clang attribute push(__attribute__((target("avx2,fma"))), apply_to = function)
#define PK_AVX2 1
#define PK_SUFFIX avx2
#define PK_NAME_STRING "avx2"
#include "KernelBodies.h"
#pragma clang attribute pop
#endif
