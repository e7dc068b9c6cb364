#ifndef SFUMATO_CCRYPTO_SHIM_H
#define SFUMATO_CCRYPTO_SHIM_H
// OpenSSL's libcrypto, for SHA-256 content hashes of the images documents store.
#include <openssl/sha.h>
#endif
