#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <spawn.h>
#if defined(__linux__)
#include <sched.h>
#include <malloc.h>
#endif
#include "CShims.h"
#include <dlfcn.h>
#include <stdlib.h>

void *aggctl_memmem(const void *haystack, size_t haystack_length, const void *needle, size_t needle_length) {
    return memmem(haystack, haystack_length, needle, needle_length);
}

int aggctl_spawn_close_others(posix_spawn_file_actions_t *actions, posix_spawnattr_t *attributes, int lowest) {
#if defined(__APPLE__)
    (void)actions;
    (void)lowest;
    short flags = 0;
    int result = posix_spawnattr_getflags(attributes, &flags);
    if (result != 0) return result;
    return posix_spawnattr_setflags(attributes, flags | POSIX_SPAWN_CLOEXEC_DEFAULT);
#elif defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
    (void)attributes;
    return posix_spawn_file_actions_addclosefrom_np(actions, lowest);
#else
    (void)actions;
    (void)attributes;
    (void)lowest;
    return ENOSYS;
#endif
}

int aggctl_affinity_cpus(void) {
#if defined(__linux__)
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) != 0) return 0;
    return CPU_COUNT(&set);
#else
    return 0;
#endif
}

int aggctl_limit_malloc_arenas(int count) {
#if defined(__GLIBC__)
    return mallopt(M_ARENA_MAX, count);
#else
    (void)count;
    return 0;
#endif
}

void *aggctl_open_library(const char *variable, const char *const *names, const char **tried) {
    const char *chosen = getenv(variable);
    if (chosen && chosen[0]) {
        *tried = chosen;
        return dlopen(chosen, RTLD_NOW | RTLD_LOCAL);
    }
    *tried = names[0];
    void *library = NULL;
    for (int index = 0; names[index] && !library; index++) library = dlopen(names[index], RTLD_NOW | RTLD_LOCAL);
    return library;
}
