/*
 * master_frames_shared: the master thread's locals at every depth of its
 * stack are shared with the team when a pointer to them is: locals of
 * main, of the region's body, of a function the body calls (which then
 * meets an orphaned barrier), and of a task.  The master changes them
 * between barriers; every thread must read the new values after the
 * barrier.  (The runtime's own frames lie just below the program's on the
 * same stack pages, and change at every call: only the program's count.)
 */
#include <omp.h>
#include <stdio.h>

enum { ROUNDS = 200, WORDS = 24 };

static long *volatile published;     /* the master's local, for the team */

/* Called by every thread of the region: the master publishes a local of
 * this frame, deeper than the region's body, and the team reads it after
 * an orphaned barrier. */
static long deep(int round)
{
    long local[WORDS];
    if (omp_get_thread_num() == 0) {
        for (int w = 0; w < WORDS; w++)
            local[w] = round * 100 + w;
        published = local;
    }
#pragma omp barrier
    long sum = 0;
    for (int w = 0; w < WORDS; w++)
        sum += published[w];
#pragma omp barrier
    return sum;
}

int main(void)
{
    long in_main = 0;
    long bad = 0, deep_bad = 0, body_bad = 0;
#pragma omp parallel reduction(+ : bad, deep_bad, body_bad)
    {
        long in_body = -1;
        long *volatile body_ptr = NULL;
        (void)body_ptr;
        for (int r = 0; r < ROUNDS; r++) {
#pragma omp master
            in_main = r;
#pragma omp barrier
            bad += in_main != r;
            long want = 0;
            for (int w = 0; w < WORDS; w++)
                want += r * 100 + w;
            deep_bad += deep(r) != want;
            /* the body's own local, published by the master through a
             * shared pointer of main */
            if (omp_get_thread_num() == 0) {
                in_body = 7 * r;
                published = &in_body;
            }
#pragma omp barrier
            body_bad += *published != 7 * r;
#pragma omp barrier
        }
    }
    long task_bad = 0;
#pragma omp parallel
#pragma omp single
    for (int r = 0; r < 50; r++) {
        long in_task_creator = r;
#pragma omp task shared(in_task_creator) firstprivate(r)
        in_task_creator += r;
#pragma omp taskwait
        task_bad += in_task_creator != 2 * r;
    }
    printf("main %ld, deep frames %ld, body %ld, task %ld stale reads\n", bad, deep_bad, body_bad, task_bad);
    return bad || deep_bad || body_bad || task_bad;
}
