/*
 * syscall_args_shared: system calls that read what they are given from
 * global variables the master set (so that the other nodes do not hold
 * their pages, or hold them read-only) and write results back there:
 * nanosleep and clock_nanosleep with a shared request must sleep, poll on
 * a shared array and select on shared sets and timeout must see standard
 * output writable, on every thread, as in one process.
 */
#include <omp.h>
#include <poll.h>
#include <stdio.h>
#include <sys/select.h>
#include <time.h>

static struct timespec req;
static struct pollfd pfd[3];
static fd_set wset;
static fd_set eset __attribute__((aligned(4096)));     /* empty, set by the master alone, a page of its own */
static struct timeval tv;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(void)
{
    int sleep_bad = 0, poll_bad = 0, select_bad = 0;
    /* Not a constant: built with _FORTIFY_SOURCE (syscall_args_fortified),
     * poll is then checked at run time, in __poll_chk. */
    volatile nfds_t npoll = 3;
    req.tv_nsec = 2000000;
    FD_ZERO(&eset);
    for (int i = 0; i < 3; i++) {
        pfd[i].fd = 1;
        pfd[i].events = POLLOUT;
    }
#pragma omp parallel reduction(+ : sleep_bad, poll_bad, select_bad)
    {
        double t0 = now();
        if (nanosleep(&req, NULL) != 0 || clock_nanosleep(CLOCK_MONOTONIC, 0, &req, NULL) != 0 ||
            now() - t0 < 0.004)
            sleep_bad++;
#pragma omp critical
        {
            if (poll(pfd, npoll, 1000) != 3)
                poll_bad++;
            for (int i = 0; i < 3; i++)
                if (pfd[i].revents != POLLOUT)
                    poll_bad++;
            FD_ZERO(&wset);
            FD_SET(1, &wset);
            tv.tv_sec = 1;
            tv.tv_usec = 0;
            if (select(2, NULL, &wset, &eset, &tv) != 1 || !FD_ISSET(1, &wset) || FD_ISSET(1, &eset))
                select_bad++;
        }
    }
    printf("threads that failed: nanosleep %d poll %d select %d\n", sleep_bad, poll_bad, select_bad);
    return 0;
}
