#ifndef AF_COPENSSLSHIM_H
#define AF_COPENSSLSHIM_H
// Function forms of OpenSSL's macro-generated stack accessors, which Swift cannot import.
#include <openssl/x509.h>

/// Number of certificates in a STACK_OF(X509).
int afs_x509_stack_count(const STACK_OF(X509) *stack);

#endif
