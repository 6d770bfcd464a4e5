/*
 * wake_latency: what a thread that sleeps while it waits pays to be woken.
 *
 *   wake_latency [ROUNDS]
 *
 * Two processes, as two nodes of a job on one host, each bound to a CPU of
 * its own when there are two: the waker stamps the time and wakes the
 * sleeper through a futex in shared memory; the sleeper reads the clock as
 * soon as it runs again.  The waker pauses 2 ms between rounds, so that
 * the sleeper's CPU goes idle as it does in a barrier that waits.  Prints
 * the 10th, 50th and 90th percentiles in microseconds.  OMPDSM_SPIN_US's
 * default (dsm/config.c) is chosen against this figure: a wait shorter than
 * the wake-up is cheaper spent polling.
 */
#include <linux/futex.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct shared {
    _Atomic uint32_t round;
    _Atomic uint64_t stamp_ns;
};

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void bind_to(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    (void)sched_setaffinity(0, sizeof set, &set);
}

static int by_value(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static void sleeper(struct shared *s, int rounds)
{
    uint64_t *lat = malloc((size_t)rounds * sizeof *lat);
    if (!lat) {
        perror("wake_latency");
        exit(1);
    }
    for (int i = 1; i <= rounds; i++) {
        uint32_t seen;
        while ((seen = atomic_load(&s->round)) < (uint32_t)i)
            syscall(SYS_futex, &s->round, FUTEX_WAIT, seen, NULL, NULL, 0);
        lat[i - 1] = now_ns() - atomic_load(&s->stamp_ns);
    }
    qsort(lat, (size_t)rounds, sizeof *lat, by_value);
    printf("futex_wake_us p10 %.1f median %.1f p90 %.1f (%d rounds)\n", lat[rounds / 10] / 1e3,
           lat[rounds / 2] / 1e3, lat[rounds * 9 / 10] / 1e3, rounds);
    free(lat);
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 500;
    if (rounds < 10 || rounds > 1000000) {
        fprintf(stderr, "usage: wake_latency [ROUNDS]  (10 to 1000000, default 500)\n");
        return 2;
    }
    struct shared *s = mmap(NULL, sizeof *s, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (s == MAP_FAILED) {
        perror("wake_latency: mmap");
        return 1;
    }
    bool two = sysconf(_SC_NPROCESSORS_ONLN) > 1;
    pid_t child = fork();
    if (child < 0) {
        perror("wake_latency: fork");
        return 1;
    }
    if (child == 0) {
        if (two)
            bind_to(1);
        sleeper(s, rounds);
        return 0;
    }
    if (two)
        bind_to(0);
    for (int i = 1; i <= rounds; i++) {
        usleep(2000);
        atomic_store(&s->stamp_ns, now_ns());
        atomic_store(&s->round, (uint32_t)i);
        syscall(SYS_futex, &s->round, FUTEX_WAKE, 1, NULL, NULL, 0);
    }
    int status;
    waitpid(child, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
