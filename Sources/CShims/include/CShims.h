// C declarations Swift's Glibc module leaves out.
#ifndef AGGCTL_CSHIMS_H
#define AGGCTL_CSHIMS_H
#include <stddef.h>

// memmem (a GNU extension on glibc, standard on macOS): finds a byte string in a buffer.
void *aggctl_memmem(const void *haystack, size_t haystack_length, const void *needle, size_t needle_length);

#endif
