/*
 * cpu-share: takes a fixed share of the CPU it runs on, in short turns, so
 * that whatever else runs there is slowed down by that share for real.
 *
 *   cpu-share [-p PERCENT] [-t MICROSECONDS]
 *
 * The benchmark harness binds it to the CPU of the node it slows
 * (taskset).  It runs at real-time priority (SCHED_FIFO, needs root): every
 * turn of T microseconds it spins for PERCENT of T and sleeps the rest,
 * preempting whatever ran there the moment it wakes.  The node then gets
 * the rest of each turn, whether it computes for a long time or in short
 * bursts between barriers.  A plain busy loop at normal priority does not
 * do that: the scheduler lets a thread that just woke from a barrier run
 * ahead of it, so a node that computes in short bursts loses much less
 * than half of its CPU; and a cgroup quota (at least 1 ms per 2 ms) lets a
 * node that works less than half the time run at full speed, and stalls it
 * for up to a millisecond when it works more.  Turns of 400 us (200 us
 * each way) are short next to the milliseconds a Laplace sweep takes.
 *
 * Defaults: 50 percent, 400 us turns.  Runs until killed.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static long number(const char *s, long lo, long hi, const char *what)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || end == s || v < lo || v > hi) {
        fprintf(stderr, "cpu-share: bad %s '%s' (an integer in %ld..%ld)\n", what, s, lo, hi);
        exit(2);
    }
    return v;
}

int main(int argc, char **argv)
{
    long percent = 50, turn_us = 400;
    int c;
    while ((c = getopt(argc, argv, "p:t:h")) != -1) {
        switch (c) {
        case 'p': percent = number(optarg, 1, 95, "percentage"); break;
        case 't': turn_us = number(optarg, 20, 1000000, "turn length"); break;
        default:
            fprintf(stderr, "usage: cpu-share [-p PERCENT (1..95, default 50)] [-t MICROSECONDS (default 400)]\n");
            return c == 'h' ? 0 : 2;
        }
    }
    if (optind != argc) {
        fprintf(stderr, "cpu-share: unexpected argument '%s'\n", argv[optind]);
        return 2;
    }
    struct sched_param sp = { .sched_priority = 1 };
    if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
        fprintf(stderr, "cpu-share: cannot take real-time priority (SCHED_FIFO): %s (run as root)\n",
                strerror(errno));
        return 1;
    }
    long long on = turn_us * 1000 * percent / 100, turn = turn_us * 1000LL, start = now_ns();
    for (;;) {
        while (now_ns() < start + on)
            ;
        start += turn;
        struct timespec wake = { .tv_sec = start / 1000000000LL, .tv_nsec = start % 1000000000LL };
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &wake, NULL) == EINTR)
            ;
    }
}
