// How long a sleeping thread takes to start running once another thread wakes it, on this machine: 50
// wake-ups 3 ms apart (long enough for the woken thread's core to go idle), deciles in microseconds.
// With "spin", the woken thread busy-waits instead of sleeping, for comparison.
//
//   cc -O2 -o /tmp/wake_latency Benchmarks/wake_latency.c -lpthread && /tmp/wake_latency [spin]
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

enum { rounds = 50 };
static sem_t wake;
static atomic_long woke_at;
static atomic_int go;

static long now(void) {
    struct timespec time;
    clock_gettime(CLOCK_MONOTONIC, &time);
    return time.tv_sec * 1000000000L + time.tv_nsec;
}

static void *sleeper(void *unused) {
    (void)unused;
    for (;;) {
        sem_wait(&wake);
        woke_at = now();
    }
    return NULL;
}

static void *spinner(void *unused) {
    (void)unused;
    for (;;) {
        while (!atomic_load(&go)) {
        }
        go = 0;
        woke_at = now();
    }
    return NULL;
}

static int ascending(const void *a, const void *b) {
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    int spin = argc > 1;
    pthread_t thread;
    sem_init(&wake, 0, 0);
    pthread_create(&thread, NULL, spin ? spinner : sleeper, NULL);
    long latency[rounds];
    for (int round = 0; round < rounds; round++) {
        usleep(3000);
        woke_at = 0;
        long start = now();
        if (spin) {
            go = 1;
        } else {
            sem_post(&wake);
        }
        while (!woke_at) {
        }
        latency[round] = woke_at - start;
    }
    qsort(latency, rounds, sizeof latency[0], ascending);
    printf("%s, deciles (us):", spin ? "spinning" : "asleep");
    for (int decile = 0; decile < 10; decile++) printf(" %ld", latency[decile * rounds / 10] / 1000);
    printf("; max %ld\n", latency[rounds - 1] / 1000);
    return 0;
}
