// libcurl for Swift, loaded on first use.
//
// The library is opened with dlopen the first time an HTTP request needs it, not linked: binding
// libcurl's dependency tree (TLS, Kerberos, LDAP, ...) was most of every command's start-up, and most
// commands never speak HTTP. Its functions are reached through one table filled then; a machine without
// libcurl runs every command that needs no HTTP, and the others get a clear error.
//
// curl_easy_setopt and curl_easy_getinfo are C variadic functions, which Swift cannot call, so each
// argument type gets a typed wrapper; CURLAUTH_* are cast macros Swift does not import.
#ifndef AGGCTL_CCURL_SHIM_H
#define AGGCTL_CCURL_SHIM_H

// A build without the header fails here, saying what to install, rather than with a bare "not found".
#if !__has_include(<curl/curl.h>)
#error "libcurl's header is missing (every store and notifier on the network needs it): run script/bootstrap, or apt-get install libcurl4-openssl-dev (macOS: it comes with the SDK), then build again"
#endif
#include <curl/curl.h>

typedef size_t (*aggctl_curl_data_callback)(char *, size_t, size_t, void *);

typedef struct {
    CURLcode (*global_init)(long);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *);
    void (*easy_reset)(CURL *);
    CURLcode (*easy_perform)(CURL *);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    const char *(*easy_strerror)(CURLcode);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
    /// Set once every function was found.
    int loaded;
    char error[512];
} aggctl_curl_table;

/// The table, filled on first use by aggctl_curl_load_error() (curl_loader.c).
extern aggctl_curl_table aggctl_curl;

/// Loads libcurl when it is not loaded yet. NULL when it is usable, else why not (one line).
const char *aggctl_curl_load_error(void);

// Each of these may be called only after aggctl_curl_load_error() returned NULL.
static inline CURL *aggctl_curl_easy_init(void) { return aggctl_curl.easy_init(); }
static inline void aggctl_curl_easy_cleanup(CURL *handle) { aggctl_curl.easy_cleanup(handle); }
static inline void aggctl_curl_easy_reset(CURL *handle) { aggctl_curl.easy_reset(handle); }
static inline CURLcode aggctl_curl_easy_perform(CURL *handle) { return aggctl_curl.easy_perform(handle); }
static inline const char *aggctl_curl_easy_strerror(CURLcode code) { return aggctl_curl.easy_strerror(code); }
static inline struct curl_slist *aggctl_curl_slist_append(struct curl_slist *list, const char *text) {
    return aggctl_curl.slist_append(list, text);
}
static inline void aggctl_curl_slist_free_all(struct curl_slist *list) { aggctl_curl.slist_free_all(list); }

static inline CURLcode aggctl_curl_set_long(CURL *handle, CURLoption option, long value) {
    return aggctl_curl.easy_setopt(handle, option, value);
}

static inline CURLcode aggctl_curl_set_offset(CURL *handle, CURLoption option, curl_off_t value) {
    return aggctl_curl.easy_setopt(handle, option, value);
}

static inline CURLcode aggctl_curl_set_string(CURL *handle, CURLoption option, const char *value) {
    return aggctl_curl.easy_setopt(handle, option, value);
}

static inline CURLcode aggctl_curl_set_pointer(CURL *handle, CURLoption option, void *value) {
    return aggctl_curl.easy_setopt(handle, option, value);
}

static inline CURLcode aggctl_curl_set_list(CURL *handle, CURLoption option, struct curl_slist *value) {
    return aggctl_curl.easy_setopt(handle, option, value);
}

static inline CURLcode aggctl_curl_set_callback(CURL *handle, CURLoption option, aggctl_curl_data_callback value) {
    return aggctl_curl.easy_setopt(handle, option, value);
}

static inline CURLcode aggctl_curl_response_code(CURL *handle, long *code) {
    return aggctl_curl.easy_getinfo(handle, CURLINFO_RESPONSE_CODE, code);
}

static const long aggctl_curlauth_basic = (long)CURLAUTH_BASIC;
static const long aggctl_curlauth_digest = (long)CURLAUTH_DIGEST;

#endif
