#ifndef AF_COPENSSLSHIM_H
#define AF_COPENSSLSHIM_H
// Function forms of the OpenSSL pieces Swift cannot import (macro-generated STACK_OF accessors) and
// the few multi-step sequences AFSecurity needs (certificate parsing, chain verification) kept in C so
// that the OpenSSL error queue is restored around them: they run on libcurl's engine thread, inside
// the TLS handshake, where a leftover error would be reported as the handshake's own.
#include <stddef.h>
#include <stdint.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include "AFClientIdentity.h"

/// Number of certificates in a STACK_OF(X509) (0 for NULL).
int afs_x509_stack_count(const STACK_OF(X509) *stack);

/// The certificate at `index` of a STACK_OF(X509), not retained; NULL when out of range.
X509 *afs_x509_stack_value(const STACK_OF(X509) *stack, int index);

/// Frees a stack and releases every certificate in it (NULL is ignored).
void afs_x509_stack_free(STACK_OF(X509) *stack);

/// Parses exactly `length` bytes of DER as one certificate. Returns NULL when the bytes are not a
/// certificate or when bytes follow it. The caller owns the result (X509_free).
X509 *afs_x509_from_der(const uint8_t *bytes, size_t length);

/// DER encoding of a certificate; `*out` is allocated with OPENSSL_malloc (free with afs_free).
/// Returns the length, or -1.
int afs_x509_der(X509 *certificate, uint8_t **out);

/// DER SubjectPublicKeyInfo of a certificate (free `*out` with afs_free). Returns the length, or -1.
int afs_x509_spki_der(X509 *certificate, uint8_t **out);

/// Frees memory returned by the afs_* encoders.
void afs_free(void *pointer);

/// 1 when the certificate has a subjectAltName extension (of any name type), else 0.
int afs_x509_has_subject_alt_name(X509 *certificate);

/// Host name check on DNS subjectAltNames; the subject Common Name is consulted only when
/// `allow_common_name` is non-zero. Wildcards are matched as a whole left-most label only.
/// Returns 1 on match, 0 otherwise.
int afs_x509_matches_host(X509 *certificate, const char *host, size_t host_length, int allow_common_name);

/// IP address check (textual IPv4 or IPv6) on iPAddress subjectAltNames. Returns 1 on match, 0 otherwise.
int afs_x509_matches_ip(X509 *certificate, const char *address);

/// A new certificate store holding the given anchors (each is retained). NULL on allocation failure.
X509_STORE *afs_store_new(X509 *const *anchors, int count);

/// Adds every certificate of a PEM bundle file to a new store. NULL when the file cannot be read or
/// holds no certificate.
X509_STORE *afs_store_new_from_file(const char *path);

/// Number of certificates held by a store.
int afs_store_certificate_count(X509_STORE *store);

/// Releases a store.
void afs_store_free(X509_STORE *store);

/// The outcome of one chain verification.
typedef struct {
    /// 1 when the chain verified, else 0.
    int verified;
    /// X509_V_OK or the X509_V_ERR_* code.
    int error;
    /// Depth of the certificate the error is about (0 = leaf), -1 when not applicable.
    int error_depth;
    /// The chain OpenSSL built (leaf first, up to the anchor when verified). Owned: afs_x509_stack_free.
    STACK_OF(X509) *built_chain;
} afs_verification;

/// Verifies `leaf` with `untrusted` intermediates (may be NULL) against `store`, at `unix_time`,
/// with X509_V_FLAG_PARTIAL_CHAIN (any certificate of the store is an anchor, self-signed or not),
/// at most `max_depth` certificates deep. With `ssl_server_purpose` non-zero the chain must also be
/// fit for TLS server authentication (extended key usage), as SecPolicyCreateSSL requires.
afs_verification afs_verify_chain(X509_STORE *store, X509 *leaf, STACK_OF(X509) *untrusted,
                                  int64_t unix_time, int max_depth, int ssl_server_purpose);

/// The static English text of an X509_V_ERR_* code.
const char *afs_verify_error_string(int error);

/// A new, empty STACK_OF(X509) (NULL on allocation failure).
STACK_OF(X509) *afs_x509_stack_new(void);

/// Appends a certificate to a stack, taking a reference. Returns 1 on success.
int afs_x509_stack_push(STACK_OF(X509) *stack, X509 *certificate);

#endif
