// Opens libsodium with dlopen on first use and fills the table CSodium.h declares (see there why).
#include "CSodium.h"

#include <dlfcn.h>
#include "CShims.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

aggctl_sodium_table aggctl_sodium;
static pthread_once_t aggctl_sodium_once = PTHREAD_ONCE_INIT;

static void aggctl_sodium_load(void) {
    // AGGCTL_LIBSODIUM names the library to load instead (a path or a soname): for systems that keep it
    // elsewhere, and for tests of a machine without it.
    const char *names[] = {"libsodium.so.23", "libsodium.so.26", "libsodium.so", "libsodium.26.dylib",
                           "libsodium.23.dylib", "/opt/homebrew/lib/libsodium.dylib", "/usr/local/lib/libsodium.dylib",
                           NULL};
    const char *tried = NULL;
    void *library = aggctl_open_library("AGGCTL_LIBSODIUM", names, &tried);
    if (!library) {
        const char *why = dlerror();
        snprintf(aggctl_sodium.error, sizeof aggctl_sodium.error,
                 "libsodium could not be loaded (%s): %s; encrypted records need it "
                 "(Debian and Ubuntu: apt install libsodium23)",
                 tried, why ? why : "not found");
        return;
    }
    const char *missing = NULL;
#define AGGCTL_SODIUM_FIND(field, symbol)                                                \
    if (!missing && !(*(void **)(&aggctl_sodium.field) = dlsym(library, symbol))) missing = symbol;
    AGGCTL_SODIUM_FIND(init, "sodium_init")
    AGGCTL_SODIUM_FIND(aead_encrypt, "crypto_aead_chacha20poly1305_ietf_encrypt")
    AGGCTL_SODIUM_FIND(aead_decrypt, "crypto_aead_chacha20poly1305_ietf_decrypt")
    AGGCTL_SODIUM_FIND(random, "randombytes_buf")
    AGGCTL_SODIUM_FIND(sha256, "crypto_hash_sha256")
    AGGCTL_SODIUM_FIND(memzero, "sodium_memzero")
#undef AGGCTL_SODIUM_FIND
    if (missing) {
        snprintf(aggctl_sodium.error, sizeof aggctl_sodium.error, "the libsodium loaded (%s) lacks %s", tried, missing);
        return;
    }
    // 0: initialised now, 1: already; -1: it cannot run (no source of randomness).
    if (aggctl_sodium.init() < 0) {
        snprintf(aggctl_sodium.error, sizeof aggctl_sodium.error, "libsodium (%s) could not initialise", tried);
        return;
    }
    aggctl_sodium.loaded = 1;
}

const char *aggctl_sodium_load_error(void) {
    pthread_once(&aggctl_sodium_once, aggctl_sodium_load);
    return aggctl_sodium.loaded ? NULL : aggctl_sodium.error;
}
