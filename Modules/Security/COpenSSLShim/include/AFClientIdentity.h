#ifndef AF_CLIENT_IDENTITY_H
#define AF_CLIENT_IDENTITY_H
// A TLS client identity (certificate chain and private key) read with OpenSSL and rewritten as PEM, the
// one form the engine hands libcurl (CURLOPT_SSLCERT_BLOB and CURLOPT_SSLKEY_BLOB).
#include <stddef.h>

enum afs_identity_format { AFS_IDENTITY_PEM = 0, AFS_IDENTITY_DER = 1, AFS_IDENTITY_PKCS12 = 2 };

enum afs_identity_result {
    AFS_IDENTITY_OK = 0,
    AFS_IDENTITY_BAD_CERTIFICATE = 1,  // no certificate could be read
    AFS_IDENTITY_BAD_KEY = 2,          // no private key could be read (or its passphrase is wrong)
    AFS_IDENTITY_KEY_MISMATCH = 3,     // the key is not the certificate's
    AFS_IDENTITY_BAD_PKCS12 = 4,       // not PKCS#12, or the passphrase is wrong
    AFS_IDENTITY_NO_MEMORY = 5,
};

/// The identity as PEM: the leaf then any chain certificates, and the unencrypted private key.
typedef struct {
    char *certificates;
    size_t certificates_length;
    char *key;
    size_t key_length;
} afs_identity_pem;

/// Reads `certificate` in `certificate_format` (PEM: the leaf, then optional chain certificates, and the
/// key too when `key` is NULL; DER: one certificate; PKCS#12: leaf, key and chain, `key` ignored) and the
/// private key in `key_format` (PEM or DER, PKCS#8 or traditional), decrypting with `passphrase` (may be
/// NULL). On success fills `out`, which the caller frees with afs_identity_pem_free.
int afs_identity_to_pem(const unsigned char *certificate, size_t certificate_length, int certificate_format,
                        const unsigned char *key, size_t key_length, int key_format, const char *passphrase,
                        afs_identity_pem *out);

void afs_identity_pem_free(afs_identity_pem *identity);

#endif
