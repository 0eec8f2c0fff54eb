// Opens libcurl with dlopen on first use and fills the table CCurl.h declares (see there why).
#include "CCurl.h"

#include <dlfcn.h>
#include "CShims.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

aggctl_curl_table aggctl_curl;
static pthread_once_t aggctl_curl_once = PTHREAD_ONCE_INIT;

static void aggctl_curl_open(void) {
    // AGGCTL_LIBCURL names the library to load instead (a path or a soname): for systems that keep it
    // elsewhere, and for tests of a machine without it.
    const char *names[] = {"libcurl.so.4", "libcurl.so", "libcurl-gnutls.so.4", "libcurl.4.dylib",
                           "/usr/lib/libcurl.4.dylib", NULL};
    const char *tried = NULL;
    void *library = aggctl_open_library("AGGCTL_LIBCURL", names, &tried);
    if (!library) {
        const char *why = dlerror();
        snprintf(aggctl_curl.error, sizeof aggctl_curl.error,
                 "libcurl could not be loaded (%s): %s; http(s) stores, usage endpoints and webhooks need it "
                 "(Debian and Ubuntu: apt install libcurl4)",
                 tried, why ? why : "not found");
        return;
    }
    const char *missing = NULL;
#define AGGCTL_CURL_FIND(field, symbol)                                                \
    if (!missing && !(*(void **)(&aggctl_curl.field) = dlsym(library, symbol))) missing = symbol;
    AGGCTL_CURL_FIND(global_init, "curl_global_init")
    AGGCTL_CURL_FIND(easy_init, "curl_easy_init")
    AGGCTL_CURL_FIND(easy_cleanup, "curl_easy_cleanup")
    AGGCTL_CURL_FIND(easy_reset, "curl_easy_reset")
    AGGCTL_CURL_FIND(easy_perform, "curl_easy_perform")
    AGGCTL_CURL_FIND(easy_setopt, "curl_easy_setopt")
    AGGCTL_CURL_FIND(easy_getinfo, "curl_easy_getinfo")
    AGGCTL_CURL_FIND(easy_strerror, "curl_easy_strerror")
    AGGCTL_CURL_FIND(slist_append, "curl_slist_append")
    AGGCTL_CURL_FIND(slist_free_all, "curl_slist_free_all")
#undef AGGCTL_CURL_FIND
    if (missing) {
        snprintf(aggctl_curl.error, sizeof aggctl_curl.error, "the libcurl loaded (%s) lacks %s", tried, missing);
        return;
    }
    // Its global set-up is not thread-safe: done here, once, before any handle.
    aggctl_curl.global_init(CURL_GLOBAL_DEFAULT);
    aggctl_curl.loaded = 1;
}

const char *aggctl_curl_load_error(void) {
    pthread_once(&aggctl_curl_once, aggctl_curl_open);
    return aggctl_curl.loaded ? NULL : aggctl_curl.error;
}
