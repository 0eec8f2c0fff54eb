// libsodium for Swift, loaded on first use.
//
// Opened with dlopen the first time a command is given a key file, not linked: a machine without
// libsodium runs every command on plaintext stores, and one given a key gets a one-line error saying what
// to install. The few functions aggctl uses are declared here (no libsodium headers are needed to build)
// and reached through one table filled when the library is opened.
#ifndef AGGCTL_CSODIUM_H
#define AGGCTL_CSODIUM_H

#include <stddef.h>

typedef struct {
    int (*init)(void);
    int (*aead_encrypt)(unsigned char *c, unsigned long long *clen, const unsigned char *m, unsigned long long mlen,
                        const unsigned char *ad, unsigned long long adlen, const unsigned char *nsec,
                        const unsigned char *npub, const unsigned char *k);
    int (*aead_decrypt)(unsigned char *m, unsigned long long *mlen, unsigned char *nsec, const unsigned char *c,
                        unsigned long long clen, const unsigned char *ad, unsigned long long adlen,
                        const unsigned char *npub, const unsigned char *k);
    void (*random)(void *buffer, size_t size);
    int (*sha256)(unsigned char *out, const unsigned char *in, unsigned long long inlen);
    void (*memzero)(void *pointer, size_t length);
    /// Set once every function was found and the library initialised.
    int loaded;
    char error[512];
} aggctl_sodium_table;

/// The table, filled on first use by aggctl_sodium_load_error() (sodium_loader.c).
extern aggctl_sodium_table aggctl_sodium;

/// Loads libsodium when it is not loaded yet. NULL when it is usable, else why not (one line).
const char *aggctl_sodium_load_error(void);

// Each of these may be called only after aggctl_sodium_load_error() returned NULL.
static inline int aggctl_sodium_seal(unsigned char *c, unsigned long long *clen, const unsigned char *m,
                                     unsigned long long mlen, const unsigned char *ad, unsigned long long adlen,
                                     const unsigned char *npub, const unsigned char *k) {
    return aggctl_sodium.aead_encrypt(c, clen, m, mlen, ad, adlen, NULL, npub, k);
}
static inline int aggctl_sodium_open(unsigned char *m, unsigned long long *mlen, const unsigned char *c,
                                     unsigned long long clen, const unsigned char *ad, unsigned long long adlen,
                                     const unsigned char *npub, const unsigned char *k) {
    return aggctl_sodium.aead_decrypt(m, mlen, NULL, c, clen, ad, adlen, npub, k);
}
static inline void aggctl_sodium_random(void *buffer, size_t size) { aggctl_sodium.random(buffer, size); }
static inline int aggctl_sodium_sha256(unsigned char *out, const unsigned char *in, unsigned long long inlen) {
    return aggctl_sodium.sha256(out, in, inlen);
}

#endif
