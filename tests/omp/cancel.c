/* env: OMP_CANCELLATION=true */
/*
 * cancel.c: cancellation with OMP_CANCELLATION=true.  A region cancelled
 * by thread 0 while the others wait in a barrier (none of them passes it),
 * and one cancelled while the others run a loop whose end is a
 * cancellation point; a search loop cancelled where the key is found,
 * followed by a loop that may cancel and does not (it must run every
 * iteration: the earlier cancellation must not leak into it); sections and
 * a taskgroup cancelled; and regions after all of them, which run whole.
 * What ran between a cancel and the threads noticing it is not printed:
 * OpenMP leaves it open.
 * Run over tcp too.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

enum { N = 100000 };

static int find(const int *v, int key)
{
    int found = -1;
#pragma omp parallel shared(found)
#pragma omp for
    for (int i = 0; i < N; i++) {
        if (v[i] == key) {
#pragma omp critical
            found = i;
#pragma omp cancel for
        }
#pragma omp cancellation point for
    }
    return found;
}

/* A loop that cancels, then in the same region one that may and does not. */
static long sum_unless_negative(const int *v)
{
    long sum = 0;
    int seen = 0;
#pragma omp parallel
    {
        long mine = 0;
#pragma omp for
        for (int i = 0; i < N; i++) {
            if (v[i] == 5) {
#pragma omp atomic write
                seen = 1;
#pragma omp cancel for
            }
        }
#pragma omp for
        for (int i = 0; i < N; i++) {
            if (v[i] < 0) {
#pragma omp cancel for
            }
#pragma omp cancellation point for
            mine += v[i];
        }
#pragma omp atomic
        sum += mine;
    }
    return seen ? sum : -1;
}

int main(void)
{
    printf("cancellation %d\n", omp_get_cancellation());

    int passed = 0;
#pragma omp parallel
    {
        if (omp_get_thread_num() == 0) {
#pragma omp cancel parallel
        }
#pragma omp barrier
#pragma omp atomic
        passed++;
    }
    printf("cancel parallel before a barrier: %d threads passed it\n", passed);

    int *v = malloc(N * sizeof *v);
    if (!v)
        return 1;
    for (int i = 0; i < N; i++)
        v[i] = (int)((i * 7919L) % N);
    int ends = 0;
#pragma omp parallel
    {
        if (omp_get_thread_num() == 0) {
#pragma omp cancel parallel
        }
#pragma omp for
        for (int i = 0; i < N; i++)
            v[i] += 0;
#pragma omp atomic
        ends++;
    }
    printf("cancel parallel during a loop: %d threads went past its end\n", ends);

    printf("search: key %d at %d\n", 4242, find(v, 4242));
    printf("search: key %d at %d\n", 17, find(v, 17));
    printf("sum with nothing to cancel: %ld\n", sum_unless_negative(v));

    int first = 0;
#pragma omp parallel
#pragma omp sections
    {
#pragma omp section
        {
#pragma omp cancel sections
            first = 1;
        }
#pragma omp section
        {
#pragma omp cancellation point sections
        }
    }
    printf("cancelled section went on: %d\n", first);

    int ran = 0, after_cancel = 0;
#pragma omp parallel
#pragma omp single
    {
#pragma omp taskgroup
        {
#pragma omp task shared(ran, after_cancel)
            {
#pragma omp cancel taskgroup
#pragma omp atomic
                after_cancel++;
            }
            for (int i = 0; i < 50; i++) {
#pragma omp task shared(ran)
                {
#pragma omp atomic
                    ran++;
                }
            }
        }
    }
    printf("cancel taskgroup: the cancelling task went on %d, at most all tasks ran %d\n", after_cancel,
           ran <= 50);

    long total = 0;
#pragma omp parallel for reduction(+ : total)
    for (int i = 0; i < N; i++)
        total += v[i] % 3;
    printf("a region after them all: %ld\n", total);
    free(v);
    return 0;
}
