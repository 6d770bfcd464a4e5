/*
 * sleep_region.c: a job that holds still so that it can be inspected from
 * outside.  Every node writes its share of a shared array and reads the
 * others' (so that UCX has set up whatever it shares between the nodes),
 * then node 0 prints "ready" and every node sleeps inside the parallel
 * region for the number of seconds given (default 5), while
 * run-security-tests.sh looks at the job's shared-memory objects and
 * sockets.  Exits 0 if every node saw every other node's writes.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define N (64 * 1024)

static long data[N];

int main(int argc, char **argv)
{
    unsigned seconds = argc > 1 ? (unsigned)atoi(argv[1]) : 5;
    long bad = 0;
#pragma omp parallel reduction(+ : bad)
    {
        int me = omp_get_thread_num(), n = omp_get_num_threads();
        for (int i = me; i < N; i += n)
            data[i] = i + 1;
#pragma omp barrier
        for (int i = 0; i < N; i++)
            bad += data[i] != i + 1;
#pragma omp barrier
#pragma omp master
        {
            printf("ready\n");
            fflush(stdout);
        }
        sleep(seconds);
    }
    printf("%s\n", bad ? "wrong" : "ok");
    return bad != 0;
}
