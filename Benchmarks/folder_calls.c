// What the kernel charges for listing a store folder, without aggctl around it: reading its names
// (readdir) and examining each entry (fstatat) on one thread and on two. The floor of a warm listing.
//
//   cc -O2 -pthread Benchmarks/folder_calls.c -o /tmp/folder_calls && /tmp/folder_calls STORE_FOLDER
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

enum { most = 100000 };
static char (*names)[256];
static int count;
static int folder;

static double milliseconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec * 1e3 + now.tv_nsec / 1e6;
}

static void *examine(void *half) {
    long which = (long)half;
    struct stat info;
    for (int i = which * count / 2; i < (which + 1) * count / 2; i++) fstatat(folder, names[i], &info, AT_SYMLINK_NOFOLLOW);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: folder_calls FOLDER\n");
        return 2;
    }
    names = malloc(sizeof(*names) * most);
    for (int round = 0; round < 4; round++) {
        double start = milliseconds();
        DIR *directory = opendir(argv[1]);
        if (!directory) {
            perror(argv[1]);
            return 1;
        }
        struct dirent *entry;
        count = 0;
        while ((entry = readdir(directory)) && count < most) {
            if (entry->d_name[0] != '.') strcpy(names[count++], entry->d_name);
        }
        double listed = milliseconds();
        folder = dirfd(directory);
        examine((void *)0);
        examine((void *)1);
        double one = milliseconds();
        pthread_t other;
        pthread_create(&other, NULL, examine, (void *)1);
        examine((void *)0);
        pthread_join(other, NULL);
        double two = milliseconds();
        printf("%d entries: readdir %.3f ms, fstatat on one thread %.3f ms, on two %.3f ms\n", count, listed - start,
               one - listed, two - one);
        closedir(directory);
    }
    return 0;
}
