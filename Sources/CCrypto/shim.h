#ifndef SFUMATO_CCRYPTO_SHIM_H
#define SFUMATO_CCRYPTO_SHIM_H
// OpenSSL's libcrypto: SHA-256 content hashes of the images documents store, random pairing
// tokens, and the certificate authority and server certificate the studio's --lan mode serves TLS with.
#include <openssl/sha.h>
#include <openssl/rand.h>
#include <openssl/evp.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/pem.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

// ---- the studio's certificate authority (--lan) -------------------------------------------------
// All the cryptography and ASN.1 is OpenSSL's; these only put its calls in order.

/// A version-3 certificate for `key`, a random positive 127-bit serial, valid from an hour ago for `days`.
static inline X509 *sf_new_certificate(EVP_PKEY *key, long days) {
    X509 *x = X509_new();
    if (!x) return NULL;
    X509_set_version(x, 2);
    unsigned char serial[16];
    RAND_bytes(serial, sizeof serial);
    serial[0] &= 0x7F;
    BIGNUM *bn = BN_bin2bn(serial, sizeof serial, NULL);
    BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(x));
    BN_free(bn);
    X509_gmtime_adj(X509_getm_notBefore(x), -3600);
    X509_gmtime_adj(X509_getm_notAfter(x), 60L * 60 * 24 * days);
    X509_set_pubkey(x, key);
    return x;
}

/// Adds an extension in openssl.cnf's syntax (e.g. "critical,CA:TRUE"); 1 on success.
static inline int sf_add_extension(X509 *x, X509 *issuer, int nid, const char *value) {
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, issuer, x, NULL, NULL, 0);
    X509_EXTENSION *ext = X509V3_EXT_conf_nid(NULL, &ctx, nid, value);
    if (!ext) return 0;
    int ok = X509_add_ext(x, ext, -1);
    X509_EXTENSION_free(ext);
    return ok;
}

/// Writes a certificate and its key as PEM (the key file is created mode 0600); 1 on success.
static inline int sf_write_pair(const char *cert_path, const char *key_path, X509 *x, EVP_PKEY *key) {
    int ok = 0;
    FILE *cf = fopen(cert_path, "wb");
    int fd = open(key_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    FILE *kf = fd >= 0 ? fdopen(fd, "wb") : NULL;
    if (cf && kf && PEM_write_X509(cf, x) && PEM_write_PrivateKey(kf, key, NULL, NULL, 0, NULL, NULL)) ok = 1;
    if (cf && fclose(cf) != 0) ok = 0;
    if (kf) { if (fclose(kf) != 0) ok = 0; } else if (fd >= 0) close(fd);
    return ok;
}

/// Makes a certificate authority: EC P-256, self-signed with SHA-256, valid 10 years, allowed to
/// sign server certificates only (pathlen 0). Returns 0 on success.
static inline int sf_make_authority(const char *cert_path, const char *key_path, const char *name) {
    int rc = -1;
    EVP_PKEY *key = EVP_EC_gen("P-256");
    X509 *x = key ? sf_new_certificate(key, 3650) : NULL;
    if (!x) goto done;
    X509_NAME *subject = X509_get_subject_name(x);
    X509_NAME_add_entry_by_txt(subject, "O", MBSTRING_UTF8, (const unsigned char *)"Sfumato studio", -1, -1, 0);
    X509_NAME_add_entry_by_txt(subject, "CN", MBSTRING_UTF8, (const unsigned char *)name, -1, -1, 0);
    X509_set_issuer_name(x, subject);
    if (!sf_add_extension(x, x, NID_basic_constraints, "critical,CA:TRUE,pathlen:0")) goto done;
    if (!sf_add_extension(x, x, NID_key_usage, "critical,keyCertSign,cRLSign")) goto done;
    if (!sf_add_extension(x, x, NID_subject_key_identifier, "hash")) goto done;
    if (!X509_sign(x, key, EVP_sha256())) goto done;
    if (sf_write_pair(cert_path, key_path, x, key)) rc = 0;
done:
    X509_free(x);
    EVP_PKEY_free(key);
    return rc;
}

/// Issues a server certificate signed by the authority: EC P-256, SHA-256, valid 397 days (Apple's
/// limit for TLS server certificates), serverAuth only, with `san` as its subjectAltName
/// ("DNS:name,IP:192.0.2.7,..."). Returns 0 on success.
static inline int sf_issue_server_certificate(const char *ca_cert_path, const char *ca_key_path, const char *cert_path,
                                              const char *key_path, const char *name, const char *san) {
    int rc = -1;
    FILE *f = NULL;
    X509 *ca = NULL, *x = NULL;
    EVP_PKEY *ca_key = NULL, *key = NULL;
    if (!(f = fopen(ca_cert_path, "rb"))) goto done;
    ca = PEM_read_X509(f, NULL, NULL, NULL);
    fclose(f);
    if (!(f = fopen(ca_key_path, "rb"))) goto done;
    ca_key = PEM_read_PrivateKey(f, NULL, NULL, NULL);
    fclose(f);
    if (!ca || !ca_key || X509_check_private_key(ca, ca_key) != 1) goto done;
    key = EVP_EC_gen("P-256");
    x = key ? sf_new_certificate(key, 397) : NULL;
    if (!x) goto done;
    X509_NAME *subject = X509_get_subject_name(x);
    X509_NAME_add_entry_by_txt(subject, "O", MBSTRING_UTF8, (const unsigned char *)"Sfumato studio", -1, -1, 0);
    X509_NAME_add_entry_by_txt(subject, "CN", MBSTRING_UTF8, (const unsigned char *)name, -1, -1, 0);
    X509_set_issuer_name(x, X509_get_subject_name(ca));
    if (!sf_add_extension(x, ca, NID_basic_constraints, "critical,CA:FALSE")) goto done;
    if (!sf_add_extension(x, ca, NID_key_usage, "critical,digitalSignature")) goto done;
    if (!sf_add_extension(x, ca, NID_ext_key_usage, "serverAuth")) goto done;
    if (!sf_add_extension(x, ca, NID_subject_key_identifier, "hash")) goto done;
    if (!sf_add_extension(x, ca, NID_authority_key_identifier, "keyid:always")) goto done;
    if (!sf_add_extension(x, ca, NID_subject_alt_name, san)) goto done;
    if (!X509_sign(x, ca_key, EVP_sha256())) goto done;
    if (sf_write_pair(cert_path, key_path, x, key)) rc = 0;
done:
    X509_free(ca);
    X509_free(x);
    EVP_PKEY_free(ca_key);
    EVP_PKEY_free(key);
    return rc;
}

/// 1 when the certificate at cert_path is signed by the authority at ca_cert_path, its key at
/// key_path is its own, and it is valid now and for at least `days` more days; 0 otherwise.
static inline int sf_certificate_is_current(const char *ca_cert_path, const char *cert_path, const char *key_path, int days) {
    int ok = 0;
    FILE *f = NULL;
    X509 *ca = NULL, *x = NULL;
    EVP_PKEY *key = NULL;
    if ((f = fopen(ca_cert_path, "rb"))) { ca = PEM_read_X509(f, NULL, NULL, NULL); fclose(f); }
    if ((f = fopen(cert_path, "rb"))) { x = PEM_read_X509(f, NULL, NULL, NULL); fclose(f); }
    if ((f = fopen(key_path, "rb"))) { key = PEM_read_PrivateKey(f, NULL, NULL, NULL); fclose(f); }
    if (ca && x && key && X509_verify(x, X509_get0_pubkey(ca)) == 1 && X509_check_private_key(x, key) == 1) {
        time_t later = time(NULL) + (time_t)days * 86400;
        ok = X509_cmp_current_time(X509_get0_notBefore(x)) < 0 && X509_cmp_time(X509_get0_notAfter(x), &later) > 0;
    }
    X509_free(ca);
    X509_free(x);
    EVP_PKEY_free(key);
    return ok;
}

/// The DER encoding of the certificate in the PEM file at `path`, into `out` (capacity bytes).
/// Returns its length; -1 when unreadable or larger than capacity.
static inline int sf_certificate_der(const char *path, unsigned char *out, int capacity) {
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    X509 *x = PEM_read_X509(f, NULL, NULL, NULL);
    fclose(f);
    if (!x) return -1;
    int length = i2d_X509(x, NULL);
    if (length > 0 && length <= capacity) { unsigned char *p = out; i2d_X509(x, &p); } else length = -1;
    X509_free(x);
    return length;
}

/// Fills `buffer` with cryptographically strong random bytes; returns 1 on success.
static inline int sf_random_bytes(unsigned char *buffer, int count) { return RAND_bytes(buffer, count); }
#endif
