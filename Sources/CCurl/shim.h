// libcurl for Swift: curl_easy_setopt and curl_easy_getinfo are C variadic functions, which Swift cannot
// call, so each argument type gets a typed wrapper; CURLAUTH_* are cast macros Swift does not import.
#ifndef AGGCTL_CCURL_SHIM_H
#define AGGCTL_CCURL_SHIM_H

#include <curl/curl.h>

typedef size_t (*aggctl_curl_data_callback)(char *, size_t, size_t, void *);

static inline CURLcode aggctl_curl_set_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode aggctl_curl_set_offset(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode aggctl_curl_set_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode aggctl_curl_set_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode aggctl_curl_set_list(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode aggctl_curl_set_callback(CURL *handle, CURLoption option, aggctl_curl_data_callback value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode aggctl_curl_response_code(CURL *handle, long *code) {
    return curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, code);
}

static const long aggctl_curlauth_basic = (long)CURLAUTH_BASIC;
static const long aggctl_curlauth_digest = (long)CURLAUTH_DIGEST;

#endif
