#ifndef SFUMATO_CCRYPTO_SHIM_H
#define SFUMATO_CCRYPTO_SHIM_H
// OpenSSL's libcrypto: SHA-256 content hashes of the images documents store, random pairing
// tokens, and the self-signed certificate the studio's --lan mode serves TLS with.
#include <openssl/sha.h>
#include <openssl/rand.h>
#include <openssl/evp.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/pem.h>
#include <stdio.h>
#include <string.h>

/// Writes a new self-signed certificate (EC P-256, SHA-256, valid 10 years) for `name`, with the
/// subject alternative names in `san` (e.g. "DNS:localhost,IP:127.0.0.1"), to cert_path and
/// key_path (key file mode 0600 is the caller's job). Returns 0 on success.
static inline int sf_make_self_signed(const char *cert_path, const char *key_path, const char *name, const char *san) {
    int rc = -1;
    EVP_PKEY *key = EVP_EC_gen("P-256");
    X509 *x = X509_new();
    FILE *cf = NULL, *kf = NULL;
    if (!key || !x) goto done;
    X509_set_version(x, 2);
    unsigned char serial[16];
    RAND_bytes(serial, sizeof serial);
    serial[0] &= 0x7F;
    BIGNUM *bn = BN_bin2bn(serial, sizeof serial, NULL);
    BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(x));
    BN_free(bn);
    X509_gmtime_adj(X509_getm_notBefore(x), -3600);
    X509_gmtime_adj(X509_getm_notAfter(x), 60L * 60 * 24 * 3650);
    X509_set_pubkey(x, key);
    X509_NAME *subject = X509_get_subject_name(x);
    X509_NAME_add_entry_by_txt(subject, "O", MBSTRING_ASC, (const unsigned char *)"Sfumato studio", -1, -1, 0);
    X509_NAME_add_entry_by_txt(subject, "CN", MBSTRING_ASC, (const unsigned char *)name, -1, -1, 0);
    X509_set_issuer_name(x, subject);
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, x, x, NULL, NULL, 0);
    X509_EXTENSION *ext = X509V3_EXT_conf_nid(NULL, &ctx, NID_subject_alt_name, san);
    if (ext) { X509_add_ext(x, ext, -1); X509_EXTENSION_free(ext); }
    if (!X509_sign(x, key, EVP_sha256())) goto done;
    cf = fopen(cert_path, "wb");
    kf = fopen(key_path, "wb");
    if (!cf || !kf) goto done;
    if (!PEM_write_X509(cf, x)) goto done;
    if (!PEM_write_PrivateKey(kf, key, NULL, NULL, 0, NULL, NULL)) goto done;
    rc = 0;
done:
    if (cf) fclose(cf);
    if (kf) fclose(kf);
    X509_free(x);
    EVP_PKEY_free(key);
    return rc;
}

/// Fills `buffer` with cryptographically strong random bytes; returns 1 on success.
static inline int sf_random_bytes(unsigned char *buffer, int count) { return RAND_bytes(buffer, count); }
#endif
