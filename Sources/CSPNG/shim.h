#ifndef CSPNG_SHIM_H
#define CSPNG_SHIM_H
// libspng 0.7 (Debian 12's libspng0): PNG decoding that reports errors by return code (no
// longjmp), a row at a time, with limits on image size, chunk size and inflated bytes.
#include <spng.h>
#endif
