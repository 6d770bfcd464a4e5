/*
 * profiled_follow: a schedule(runtime) loop whose node 1 becomes slower
 * for real in the middle of the run and later fast again; the blocks must
 * follow both changes.
 *
 *   profiled_follow EXECS ITERS ON OFF [HOG [ARG...]]
 *
 * At the start of execution ON, thread 1 starts the command HOG (the test
 * gives tools/cpu-share, which takes half of the CPU it runs on); the
 * child inherits the CPU binding of thread 1's node.  At the start of
 * execution OFF thread 1 stops it.  Without HOG nothing is started (the
 * libgomp reference run).  Prints one line per execution,
 *     exec E block B0 B1 ... ns N0 N1 ...
 * (the iterations each thread got, and the nanoseconds each took per
 * iteration, from its first iteration's start to its last one's end), then
 * "checksum C", which must not depend on the schedule.
 */
#include <omp.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

#define MAX_THREADS 8
#define MAX_EXECS 1000

extern char **environ;

static long blocks[MAX_EXECS][MAX_THREADS];
static double ns[MAX_EXECS][MAX_THREADS];

static double work(int i)
{
    double x = i * 1e-3;
    for (int k = 0; k < 20000; k++)
        x = x * 0.999 + 1e-3 * (double)((i + k) % 7);
    return x;
}

static pid_t start_hog(char **argv)
{
    pid_t pid;
    int err = posix_spawn(&pid, argv[0], NULL, NULL, argv, environ);
    if (err) {
        fprintf(stderr, "profiled_follow: cannot start %s (error %d)\n", argv[0], err);
        exit(1);
    }
    return pid;
}

static void stop_hog(pid_t pid)
{
    int status;
    kill(pid, SIGTERM);
    waitpid(pid, &status, 0);
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: profiled_follow EXECS ITERS ON OFF [HOG [ARG...]]\n");
        return 2;
    }
    int execs = atoi(argv[1]), iters = atoi(argv[2]), on = atoi(argv[3]), off = atoi(argv[4]);
    char **hog = argc > 5 ? &argv[5] : NULL;
    if (execs < 1 || execs > MAX_EXECS || iters < 1 || on < 0 || off < on) {
        fprintf(stderr, "profiled_follow: bad arguments\n");
        return 2;
    }
    double *out = malloc(sizeof(double) * (size_t)iters);
    if (!out)
        return 1;
    pid_t child = 0;
    int nthreads = 1;
    for (int e = 0; e < execs; e++) {
#pragma omp parallel
        {
            int t = omp_get_thread_num();
            if (t == 1 && hog && e == on)
                child = start_hog(hog);
            if (t == 1 && child && e == off) {
                stop_hog(child);
                child = 0;
            }
            long n = 0;
            double first = 0, last = 0;
#pragma omp for schedule(runtime) nowait
            for (int i = 0; i < iters; i++) {
                if (!n)
                    first = omp_get_wtime();
                out[i] = work(i);
                n++;
                last = omp_get_wtime();
            }
            if (t < MAX_THREADS) {
                blocks[e][t] = n;
                ns[e][t] = n ? (last - first) * 1e9 / (double)n : 0;
            }
            if (t == 0)
                nthreads = omp_get_num_threads();
        }
    }
    if (child)
        stop_hog(child);
    for (int e = 0; e < execs; e++) {
        printf("exec %d block", e);
        for (int t = 0; t < nthreads && t < MAX_THREADS; t++)
            printf(" %ld", blocks[e][t]);
        printf(" ns");
        for (int t = 0; t < nthreads && t < MAX_THREADS; t++)
            printf(" %.0f", ns[e][t]);
        printf("\n");
    }
    double sum = 0;
    for (int i = 0; i < iters; i++)
        sum += out[i];
    printf("checksum %.12e\n", sum);
    free(out);
    return 0;
}
