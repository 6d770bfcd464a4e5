/*
 * task_reduction: task reductions.  A taskgroup with task_reduction of
 * several operators and types, its tasks (made in a single, so they may
 * run on any node) taking part with in_reduction; a user-defined
 * reduction; an array; nested taskgroups whose tasks take part in the
 * outer reduction; every thread making its own taskgroup; taskloop
 * reduction, with and without iterations; reduction(task, ...) on a
 * parallel region, whose threads and tasks both take part, and on a
 * worksharing loop, sections and scope.  The tasks spin a little so
 * that other nodes steal some of them.
 * Run over tcp too.
 */
#include <omp.h>
#include <stdio.h>

struct pair {
    long lo, hi;
};
#pragma omp declare reduction(span : struct pair : omp_out.lo = omp_in.lo < omp_out.lo ? omp_in.lo : omp_out.lo, \
                              omp_out.hi = omp_in.hi > omp_out.hi ? omp_in.hi : omp_out.hi)                 \
    initializer(omp_priv = (struct pair){ 1L << 40, -(1L << 40) })

static long work(long i)
{
    volatile long x = 0;
    for (long k = 0; k < 20000; k++)
        x += k ^ i;
    return x & 1;
}

int main(void)
{
    int values[300];
    for (int i = 0; i < 300; i++)
        values[i] = (i * 37) % 101;

    long sum = 0;
    double prod = 1;
    int top = -1;
    struct pair span = { 1L << 40, -(1L << 40) };
    long hist[8] = { 0 };
#pragma omp parallel
#pragma omp single
#pragma omp taskgroup task_reduction(+ : sum) task_reduction(* : prod) task_reduction(max : top) \
    task_reduction(span : span) task_reduction(+ : hist)
    for (int i = 0; i < 300; i++) {
#pragma omp task in_reduction(+ : sum) in_reduction(* : prod) in_reduction(max : top) in_reduction(span : span) \
    in_reduction(+ : hist) firstprivate(i)
        {
            sum += values[i] * values[i] + work(i);
            if (i % 30 == 0)
                prod *= 1.5;
            if (values[i] > top)
                top = values[i];
            if (values[i] < span.lo)
                span.lo = values[i];
            if (values[i] > span.hi)
                span.hi = values[i];
            hist[values[i] % 8]++;
        }
    }
    printf("taskgroup: sum %ld prod %.4f max %d span %ld..%ld hist", sum, prod, top, span.lo, span.hi);
    for (int k = 0; k < 8; k++)
        printf(" %ld", hist[k]);
    printf("\n");

    long nested = 0;
#pragma omp parallel
#pragma omp single
#pragma omp taskgroup task_reduction(+ : nested)
    for (int k = 0; k < 16; k++) {
#pragma omp task in_reduction(+ : nested) firstprivate(k)
        {
            nested += k + work(k);
#pragma omp taskgroup
            {
#pragma omp task in_reduction(+ : nested) firstprivate(k)
                nested += 100 * k;
            }
        }
    }
    printf("nested taskgroups: %ld\n", nested);

    long per_thread = 0;
    int threads = 0;
#pragma omp parallel reduction(+ : per_thread, threads)
    {
        long mine = 0;
        int me = omp_get_thread_num();
#pragma omp taskgroup task_reduction(+ : mine)
        for (int k = 0; k < 10; k++) {
#pragma omp task in_reduction(+ : mine) firstprivate(k)
            mine += me * 1000 + k;
        }
        per_thread += mine - 1000L * 10 * me;
        threads++;
    }
    printf("a taskgroup per thread: %ld\n", per_thread / threads);

    long u = 0, none = 0;
    double h = 0;
#pragma omp parallel
#pragma omp single
    {
#pragma omp taskloop reduction(+ : u) grainsize(7)
        for (int i = 0; i < 1000; i++)
            u += i + work(i);
#pragma omp taskloop reduction(+ : h) num_tasks(5)
        for (int i = 1; i <= 100; i++)
            h += 1.0 / i;
#pragma omp taskloop reduction(+ : none)
        for (int i = 0; i < 0; i++)
            none += i;
    }
    printf("taskloop: %ld %.6f %ld\n", u, h, none);

    long t = 0;
    double half = 0;
    int team = 0;
#pragma omp parallel reduction(task, + : t) reduction(task, + : half) reduction(+ : team)
    {
#pragma omp single
        for (int i = 0; i < 100; i++) {
#pragma omp task in_reduction(+ : t) in_reduction(+ : half) firstprivate(i)
            {
                t += i + 2 * work(i);
                half += 0.5;
            }
        }
        t += 1000;
        team++;
    }
    printf("parallel with task reductions: %ld %.1f\n", t - 1000L * team, half);

    long lt = 0, sl = 0, st = 0, ct = 0;
    double ld = 0;
#pragma omp parallel
    {
#pragma omp for reduction(task, + : lt) reduction(task, + : ld) schedule(dynamic, 3)
        for (int i = 0; i < 100; i++) {
#pragma omp task in_reduction(+ : lt) in_reduction(+ : ld) firstprivate(i)
            {
                lt += i + 2 * work(i);
                ld += 0.25;
            }
        }
#pragma omp for reduction(task, + : sl)
        for (int i = 0; i < 50; i++) {
#pragma omp task in_reduction(+ : sl) firstprivate(i)
            sl += 2 * i;
        }
#pragma omp sections reduction(task, + : st)
        {
#pragma omp section
            for (int k = 0; k < 5; k++) {
#pragma omp task in_reduction(+ : st) firstprivate(k)
                st += k;
            }
#pragma omp section
            {
#pragma omp task in_reduction(+ : st)
                st += 100;
            }
        }
#pragma omp scope reduction(task, + : ct)
        {
#pragma omp task in_reduction(+ : ct)
            ct += 3;
        }
    }
    printf("worksharing with task reductions: for %ld %.2f, static for %ld, sections %ld, scope %ld per thread\n",
           lt, ld, sl, st, ct / omp_get_max_threads());
    return 0;
}
