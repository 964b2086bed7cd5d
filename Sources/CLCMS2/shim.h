#ifndef CLCMS2_SHIM_H
#define CLCMS2_SHIM_H
#include <lcms2.h>
#endif
