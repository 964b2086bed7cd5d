#include "PixelKernels.h"

const pk_kernels *pk_kernels_portable(void);
#if defined(__x86_64__)
const pk_kernels *pk_kernels_avx2(void);
#endif

const pk_kernels *pk_portable_kernels(void) { return pk_kernels_portable(); }

const pk_kernels *pk_best_kernels(void) {
#if defined(__x86_64__)
    // compiler-rt's checks include the system's support for the AVX registers (XGETBV).
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return pk_kernels_avx2();
#endif
    return pk_kernels_portable();
}
