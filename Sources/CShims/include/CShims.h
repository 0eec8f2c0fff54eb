// C declarations Swift's Glibc module leaves out.
#ifndef AGGCTL_CSHIMS_H
#define AGGCTL_CSHIMS_H
#include <stddef.h>
#include <spawn.h>

// memmem (a GNU extension on glibc, standard on macOS): finds a byte string in a buffer.
void *aggctl_memmem(const void *haystack, size_t haystack_length, const void *needle, size_t needle_length);

// Makes a spawned child close every descriptor from `lowest` up, whatever this process has open (a
// concurrent thread's pipes, sockets, the state lock): posix_spawn_file_actions_addclosefrom_np on glibc
// 2.34 and later. On macOS, where that does not exist, sets POSIX_SPAWN_CLOEXEC_DEFAULT on `attributes`
// instead (descriptors set up by `actions` stay open). Returns 0, or an errno value.
int aggctl_spawn_close_others(posix_spawn_file_actions_t *actions, posix_spawnattr_t *attributes, int lowest);

// The CPUs in this process's affinity mask (sched_getaffinity and CPU_COUNT, which glibc declares only
// with _GNU_SOURCE); 0 where there is no such mask (macOS) or it cannot be read.
int aggctl_affinity_cpus(void);

// Caps glibc's malloc arenas at `count` (mallopt M_ARENA_MAX), for a long-running process whose many
// threads would each keep an arena; returns 1 when set, 0 where there is no such setting (macOS).
int aggctl_limit_malloc_arenas(int count);

/// Opens a system library on first use, for the loaders of libcurl, libsodium and libmicrohttpd: the one
/// `variable` names (a path or a soname: a system that keeps it elsewhere, or a test of a machine without
/// it), else the first of `names` (NULL-ended) that opens. `tried` is set to what was asked for (the
/// variable's value, or the first name), for the error; NULL when nothing opened (dlerror() says why).
void *aggctl_open_library(const char *variable, const char *const *names, const char **tried);

#endif
