/*
 * task_done_before_wait: the tasks a thread waits for may all be done,
 * some on other nodes, before it reaches taskwait or the end of its
 * taskgroup; it must see what they wrote all the same.  And a task held
 * back by a depend clause until a sibling is done must see what that
 * sibling wrote, wherever each ran.  The creating thread holds copies of
 * the arrays (it reads them before making the tasks) and sleeps after
 * making them, so that the other threads run them all meanwhile.
 */
#include <omp.h>
#include <stdio.h>
#include <time.h>

#define N 48
#define P 512           /* a result a page: the pages have several homes */
#define ROUNDS 12

static long work(int i, int r)
{
    long v = 0;
    for (int k = 0; k < 20000; k++)
        v += (k ^ i) % 7 + r;
    return v;
}

static void nap(void)
{
    struct timespec ts = { 0, 30 * 1000 * 1000 };
    nanosleep(&ts, NULL);
}

int main(void)
{
    static long out[N][P], a[N][P], b[N][P], in_group[N][P];
    long held = 0;
    int unseen_wait = 0, unseen_group = 0, wrong_dep = 0;
    for (int r = 1; r <= ROUNDS; r++) {
#pragma omp parallel
#pragma omp single
        {
            for (int i = 0; i < N; i++)
                held += out[i][0] + a[i][0] + b[i][0] + in_group[i][0];
            for (int i = 0; i < N; i++) {
#pragma omp task firstprivate(r)
                out[i][0] = work(i, r);
#pragma omp task firstprivate(r) depend(out: a[i][0])
                a[i][0] = work(i, r);
#pragma omp task depend(in: a[i][0])
                b[i][0] = a[i][0] + 1;
            }
            nap();
#pragma omp taskwait
            for (int i = 0; i < N; i++) {
                unseen_wait += out[i][0] != work(i, r);
                wrong_dep += b[i][0] != work(i, r) + 1;
            }
#pragma omp taskgroup
            {
                for (int i = 0; i < N; i++) {
#pragma omp task firstprivate(r)
                    in_group[i][0] = work(i, r) + 2;
                }
                nap();
            }
            for (int i = 0; i < N; i++)
                unseen_group += in_group[i][0] != work(i, r) + 2;
        }
    }
    printf("results not seen after taskwait: %d\n", unseen_wait);
    printf("results not seen after taskgroup: %d\n", unseen_group);
    printf("tasks that missed what the task they depend on wrote: %d\n", wrong_dep);
    printf("(%s)\n", held >= 0 ? "arrays read before" : "?");
    return 0;
}
