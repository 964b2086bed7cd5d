// The kernels for every CPU of the architecture: SSE2 on x86-64, NEON on arm64.
#define PK_AVX2 0
#define PK_SUFFIX portable
#define PK_NAME_STRING "portable"
#include "KernelBodies.h"
