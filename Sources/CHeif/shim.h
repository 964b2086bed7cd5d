#ifndef CHEIF_SHIM_H
#define CHEIF_SHIM_H
#include <libheif/heif.h>
#if defined(__GLIBC__)
// mallopt(M_PERTURB): libheif's decoders leave what they never write as malloc gave it
// (FreshMemory in HEIFDecoder.swift).
#include <malloc.h>
#endif

/// `heif_error_Ok`: libheif's success code, as a plain int (its enums import as structs).
static inline int cheif_is_ok(struct heif_error error) { return error.code == heif_error_Ok; }
#endif
