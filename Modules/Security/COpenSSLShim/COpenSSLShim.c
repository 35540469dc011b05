#include "COpenSSLShim.h"

int afs_x509_stack_count(const STACK_OF(X509) *stack) {
    return stack == NULL ? 0 : sk_X509_num(stack);
}
