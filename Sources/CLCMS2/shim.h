#ifndef CLCMS2_SHIM_H
#define CLCMS2_SHIM_H
#include <lcms2.h>

// lcms2's pixel format constants are built with function-like macros, which Swift cannot import.
static const cmsUInt32Number CLCMS2_TYPE_GRAY_8 = TYPE_GRAY_8;
static const cmsUInt32Number CLCMS2_TYPE_RGB_8 = TYPE_RGB_8;
static const cmsUInt32Number CLCMS2_TYPE_CMYK_8 = TYPE_CMYK_8;
/// CMYK stored inverted (0 = full ink), as Adobe applications write it into JPEG.
static const cmsUInt32Number CLCMS2_TYPE_CMYK_8_REV = TYPE_CMYK_8_REV;
#endif
