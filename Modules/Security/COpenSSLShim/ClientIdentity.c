#include "AFClientIdentity.h"
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/pkcs12.h>
#include <openssl/x509.h>
#include <stdlib.h>
#include <string.h>

// A passphrase callback that never prompts: OpenSSL's default would read the terminal.
static int no_prompt(char *buffer, int size, int rwflag, void *userdata) {
    (void)buffer; (void)size; (void)rwflag; (void)userdata;
    return -1;
}

static EVP_PKEY *read_key(const unsigned char *bytes, size_t length, int format, const char *passphrase) {
    BIO *bio = BIO_new_mem_buf(bytes, (int)length);
    if (!bio) return NULL;
    EVP_PKEY *key = NULL;
    if (format == AFS_IDENTITY_PEM) {
        key = passphrase ? PEM_read_bio_PrivateKey(bio, NULL, NULL, (void *)passphrase)
                         : PEM_read_bio_PrivateKey(bio, NULL, no_prompt, NULL);
    } else {
        key = d2i_PrivateKey_bio(bio, NULL);
        if (!key && passphrase) {
            // Encrypted PKCS#8 in DER.
            (void)BIO_reset(bio);
            key = d2i_PKCS8PrivateKey_bio(bio, NULL, NULL, (void *)passphrase);
        }
    }
    BIO_free(bio);
    return key;
}

// Appends `certificate` as PEM to `bio`.
static int write_certificate(BIO *bio, X509 *certificate) { return PEM_write_bio_X509(bio, certificate) == 1; }

// Copies a memory BIO's bytes into a new NUL-terminated buffer.
static char *copy_out(BIO *bio, size_t *length) {
    char *data = NULL;
    long count = BIO_get_mem_data(bio, &data);
    if (count <= 0) return NULL;
    char *copy = malloc((size_t)count + 1);
    if (!copy) return NULL;
    memcpy(copy, data, (size_t)count);
    copy[count] = 0;
    *length = (size_t)count;
    return copy;
}

int afs_identity_to_pem(const unsigned char *certificate, size_t certificate_length, int certificate_format,
                        const unsigned char *key_bytes, size_t key_length, int key_format, const char *passphrase,
                        afs_identity_pem *out) {
    memset(out, 0, sizeof(*out));
    X509 *leaf = NULL;
    STACK_OF(X509) *chain = NULL;
    EVP_PKEY *key = NULL;
    int result = AFS_IDENTITY_OK;

    if (certificate_format == AFS_IDENTITY_PKCS12) {
        BIO *bio = BIO_new_mem_buf(certificate, (int)certificate_length);
        PKCS12 *p12 = bio ? d2i_PKCS12_bio(bio, NULL) : NULL;
        if (bio) BIO_free(bio);
        if (!p12 || PKCS12_parse(p12, passphrase ? passphrase : "", &key, &leaf, &chain) != 1 || !leaf || !key) {
            result = AFS_IDENTITY_BAD_PKCS12;
        }
        if (p12) PKCS12_free(p12);
    } else {
        BIO *bio = BIO_new_mem_buf(certificate, (int)certificate_length);
        if (!bio) return AFS_IDENTITY_NO_MEMORY;
        if (certificate_format == AFS_IDENTITY_PEM) {
            leaf = PEM_read_bio_X509(bio, NULL, no_prompt, NULL);
            if (leaf) {
                chain = sk_X509_new_null();
                X509 *next;
                while (chain && (next = PEM_read_bio_X509(bio, NULL, no_prompt, NULL)) != NULL) {
                    sk_X509_push(chain, next);
                }
            }
        } else {
            leaf = d2i_X509_bio(bio, NULL);
        }
        BIO_free(bio);
        if (!leaf) {
            result = AFS_IDENTITY_BAD_CERTIFICATE;
        } else if (key_bytes) {
            key = read_key(key_bytes, key_length, key_format, passphrase);
        } else if (certificate_format == AFS_IDENTITY_PEM) {
            key = read_key(certificate, certificate_length, AFS_IDENTITY_PEM, passphrase);
        }
        if (result == AFS_IDENTITY_OK && !key) result = AFS_IDENTITY_BAD_KEY;
    }
    if (result == AFS_IDENTITY_OK && X509_check_private_key(leaf, key) != 1) result = AFS_IDENTITY_KEY_MISMATCH;

    if (result == AFS_IDENTITY_OK) {
        BIO *certificates = BIO_new(BIO_s_mem());
        BIO *key_out = BIO_new(BIO_s_mem());
        int written = certificates && key_out && write_certificate(certificates, leaf);
        for (int i = 0; written && chain && i < sk_X509_num(chain); i++) {
            written = write_certificate(certificates, sk_X509_value(chain, i));
        }
        written = written && PEM_write_bio_PrivateKey(key_out, key, NULL, NULL, 0, NULL, NULL) == 1;
        if (written) {
            out->certificates = copy_out(certificates, &out->certificates_length);
            out->key = copy_out(key_out, &out->key_length);
        }
        if (!out->certificates || !out->key) {
            afs_identity_pem_free(out);
            result = AFS_IDENTITY_NO_MEMORY;
        }
        if (certificates) BIO_free(certificates);
        if (key_out) BIO_free(key_out);
    }
    if (leaf) X509_free(leaf);
    if (chain) sk_X509_pop_free(chain, X509_free);
    if (key) EVP_PKEY_free(key);
    ERR_clear_error();  // nothing of these failures may surface in a later, unrelated TLS error
    return result;
}

void afs_identity_pem_free(afs_identity_pem *identity) {
    if (identity->key) {
        OPENSSL_cleanse(identity->key, identity->key_length);
        free(identity->key);
    }
    free(identity->certificates);
    memset(identity, 0, sizeof(*identity));
}
