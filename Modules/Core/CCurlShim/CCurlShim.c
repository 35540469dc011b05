#include "CCurlShim.h"

unsigned int afc_curl_version_num(void) {
    return curl_version_info(CURLVERSION_NOW)->version_num;
}
