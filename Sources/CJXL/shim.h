#ifndef CJXL_SHIM_H
#define CJXL_SHIM_H
#include <jxl/decode.h>
#include <jxl/color_encoding.h>
#include <jxl/thread_parallel_runner.h>
#endif
