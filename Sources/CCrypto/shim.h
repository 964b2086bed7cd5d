#ifndef CCRYPTO_SHIM_H
#define CCRYPTO_SHIM_H
// OpenSSL's libcrypto, for the outbox's cryptography on Linux: AES-256-GCM through EVP, SHA-256
// through EVP_Digest, and RAND_bytes. Apple platforms use CryptoKit instead.
#include <openssl/evp.h>
#include <openssl/rand.h>
#endif
