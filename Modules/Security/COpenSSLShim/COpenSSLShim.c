#include <openssl/crypto.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/x509_vfy.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/err.h>
#include <limits.h>
#include "COpenSSLShim.h"

/// OpenSSL frees its global state, locks included, in an atexit handler, so a thread still inside OpenSSL
/// when the process exits (a session's engine, a worker releasing a trust store) crashes on a freed lock
/// (openssl/openssl#6214; seen as af exiting with 139). Suppressed before anything initializes OpenSSL:
/// the process's memory goes at exit anyway. A constructor, so it runs before the first OpenSSL call
/// from either module that uses OpenSSL.
__attribute__((constructor)) static void afs_openssl_keeps_state_at_exit(void) {
    OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT, NULL);
}

int afs_x509_stack_count(const STACK_OF(X509) *stack) {
    return stack == NULL ? 0 : sk_X509_num(stack);
}

X509 *afs_x509_stack_value(const STACK_OF(X509) *stack, int index) {
    if (stack == NULL || index < 0 || index >= sk_X509_num(stack)) {
        return NULL;
    }
    return sk_X509_value(stack, index);
}

void afs_x509_stack_free(STACK_OF(X509) *stack) {
    if (stack != NULL) {
        sk_X509_pop_free(stack, X509_free);
    }
}

STACK_OF(X509) *afs_x509_stack_new(void) {
    return sk_X509_new_null();
}

int afs_x509_stack_push(STACK_OF(X509) *stack, X509 *certificate) {
    if (stack == NULL || certificate == NULL || X509_up_ref(certificate) != 1) {
        return 0;
    }
    if (sk_X509_push(stack, certificate) <= 0) {
        X509_free(certificate);
        return 0;
    }
    return 1;
}

X509 *afs_x509_from_der(const uint8_t *bytes, size_t length) {
    if (bytes == NULL || length == 0 || length > LONG_MAX) {
        return NULL;
    }
    ERR_set_mark();
    const unsigned char *cursor = bytes;
    X509 *certificate = d2i_X509(NULL, &cursor, (long)length);
    if (certificate != NULL && (size_t)(cursor - bytes) != length) {
        X509_free(certificate);
        certificate = NULL;
    }
    ERR_pop_to_mark();
    return certificate;
}

int afs_x509_der(X509 *certificate, uint8_t **out) {
    if (certificate == NULL || out == NULL) {
        return -1;
    }
    *out = NULL;
    ERR_set_mark();
    int length = i2d_X509(certificate, out);
    ERR_pop_to_mark();
    return length;
}

int afs_x509_spki_der(X509 *certificate, uint8_t **out) {
    if (certificate == NULL || out == NULL) {
        return -1;
    }
    *out = NULL;
    ERR_set_mark();
    X509_PUBKEY *key = X509_get_X509_PUBKEY(certificate);
    int length = key == NULL ? -1 : i2d_X509_PUBKEY(key, out);
    ERR_pop_to_mark();
    return length;
}

void afs_free(void *pointer) {
    OPENSSL_free(pointer);
}

int afs_x509_has_subject_alt_name(X509 *certificate) {
    if (certificate == NULL) {
        return 0;
    }
    return X509_get_ext_by_NID(certificate, NID_subject_alt_name, -1) >= 0 ? 1 : 0;
}

int afs_x509_matches_host(X509 *certificate, const char *host, size_t host_length, int allow_common_name) {
    if (certificate == NULL || host == NULL || host_length == 0) {
        return 0;
    }
    unsigned int flags = X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS;
    if (!allow_common_name) {
        flags |= X509_CHECK_FLAG_NEVER_CHECK_SUBJECT;
    }
    ERR_set_mark();
    int result = X509_check_host(certificate, host, host_length, flags, NULL);
    ERR_pop_to_mark();
    return result == 1 ? 1 : 0;
}

int afs_x509_matches_ip(X509 *certificate, const char *address) {
    if (certificate == NULL || address == NULL) {
        return 0;
    }
    ERR_set_mark();
    int result = X509_check_ip_asc(certificate, address, 0);
    ERR_pop_to_mark();
    return result == 1 ? 1 : 0;
}

X509_STORE *afs_store_new(X509 *const *anchors, int count) {
    ERR_set_mark();
    X509_STORE *store = X509_STORE_new();
    if (store != NULL) {
        for (int index = 0; index < count; index++) {
            // A duplicate anchor is reported as an error by older OpenSSL versions; it is harmless.
            (void)X509_STORE_add_cert(store, anchors[index]);
        }
    }
    ERR_pop_to_mark();
    return store;
}

X509_STORE *afs_store_new_from_file(const char *path) {
    if (path == NULL) {
        return NULL;
    }
    ERR_set_mark();
    X509_STORE *store = X509_STORE_new();
    if (store != NULL && X509_STORE_load_file(store, path) != 1) {
        X509_STORE_free(store);
        store = NULL;
    }
    ERR_pop_to_mark();
    if (store != NULL && afs_store_certificate_count(store) == 0) {
        X509_STORE_free(store);
        store = NULL;
    }
    return store;
}

int afs_store_certificate_count(X509_STORE *store) {
    if (store == NULL) {
        return 0;
    }
    STACK_OF(X509) *certificates = X509_STORE_get1_all_certs(store);
    int count = certificates == NULL ? 0 : sk_X509_num(certificates);
    afs_x509_stack_free(certificates);
    return count;
}

void afs_store_free(X509_STORE *store) {
    X509_STORE_free(store);
}

afs_verification afs_verify_chain(X509_STORE *store, X509 *leaf, STACK_OF(X509) *untrusted,
                                  int64_t unix_time, int max_depth, int ssl_server_purpose) {
    afs_verification result = { 0, X509_V_ERR_UNSPECIFIED, -1, NULL };
    if (store == NULL || leaf == NULL) {
        return result;
    }
    ERR_set_mark();
    X509_STORE_CTX *context = X509_STORE_CTX_new();
    if (context != NULL && X509_STORE_CTX_init(context, store, leaf, untrusted) == 1) {
        X509_VERIFY_PARAM *parameters = X509_STORE_CTX_get0_param(context);
        X509_VERIFY_PARAM_set_flags(parameters, X509_V_FLAG_PARTIAL_CHAIN);
        X509_VERIFY_PARAM_set_time(parameters, (time_t)unix_time);
        X509_VERIFY_PARAM_set_depth(parameters, max_depth);
        if (ssl_server_purpose) {
            X509_STORE_CTX_set_purpose(context, X509_PURPOSE_SSL_SERVER);
        }
        result.verified = X509_verify_cert(context) == 1 ? 1 : 0;
        result.error = X509_STORE_CTX_get_error(context);
        result.error_depth = result.verified ? -1 : X509_STORE_CTX_get_error_depth(context);
        result.built_chain = X509_STORE_CTX_get1_chain(context);
    }
    X509_STORE_CTX_free(context);
    ERR_pop_to_mark();
    return result;
}

const char *afs_verify_error_string(int error) {
    return X509_verify_cert_error_string(error);
}
