/*
 * exit_in_region: the last thread of a parallel region calls exit(5)
 * while the others wait at a barrier: the job's status is 5, as with
 * libgomp, every line printed before (by node 0 before the region, by
 * every thread in it) comes out, and then what the exit handler main()
 * registered prints, with the value the exiting thread stored last, with
 * nothing said on standard error (tests/output).
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static int last_word;

static void at_end(void)
{
    printf("exit handler: last word %d\n", last_word);
}

int main(void)
{
    atexit(at_end);
    for (int i = 0; i < 20; i++)
        printf("before %d\n", i);
#pragma omp parallel
    {
        int me = omp_get_thread_num(), nt = omp_get_num_threads();
        for (int t = 0; t < nt; t++) {
            if (t == me)
                printf("thread turn %d\n", t);
#pragma omp barrier
        }
        if (me == nt - 1) {
            last_word = 100 + me;
            exit(5);
        }
#pragma omp barrier
        printf("not reached\n");
    }
    printf("not reached either\n");
    return 0;
}
