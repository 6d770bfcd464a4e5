/*
 * team_size: a team asked for with num_threads(k), omp_set_num_threads(k)
 * or (for the first region) the thread count has exactly k threads, for
 * every k up to omp_get_max_threads(), and every construct works in it:
 * barriers, static/dynamic/guided/ordered loops, reductions, sections,
 * single with copyprivate, critical, atomic and locks; a region of every
 * thread after a smaller one sees what the smaller one wrote.
 * Run over tcp too.
 */
#include <omp.h>
#include <stdio.h>

#define N 1000

static int seen[64];
static long data[N];

static void check_team(int k, int via_set)
{
    int nt = -1, ids = 0, crit = 0, atom = 0, lock_sum = 0, bar_ok = 1;
    long red = 0, dyn = 0, gui = 0, sec = 0, cp = -1, ord_bad = 0, ord_next = 0;
    long bad_iter = -1, bad_seen = -1, bad_thread = -1;    /* the first out-of-turn ordered part */
    omp_lock_t lock;
    omp_init_lock(&lock);
    for (int i = 0; i < 64; i++)
        seen[i] = 0;
    if (via_set)
        omp_set_num_threads(k);
#pragma omp parallel num_threads(via_set ? 0 + omp_get_max_threads() : k) reduction(+ : red)
    {
        int me = omp_get_thread_num();
#pragma omp single
        nt = omp_get_num_threads();
        seen[me] = 1;
#pragma omp barrier
        int all = 0;
        for (int i = 0; i < 64; i++)
            all += seen[i];
        if (all != omp_get_num_threads()) {
#pragma omp atomic write
            bar_ok = 0;
        }
#pragma omp barrier
#pragma omp for
        for (int i = 0; i < N; i++) {
            data[i] = i * (k + 1);
            red += i;
        }
#pragma omp for schedule(dynamic, 7) reduction(+ : dyn)
        for (int i = 0; i < N; i++)
            dyn += data[i];
#pragma omp for schedule(guided) reduction(+ : gui)
        for (int i = 0; i < N; i++)
            gui += data[N - 1 - i];
#pragma omp for ordered schedule(dynamic, 3)
        for (int i = 0; i < 60; i++) {
#pragma omp ordered
            {
                if (ord_next != i && !ord_bad++) {
                    bad_iter = i;
                    bad_seen = ord_next;
                    bad_thread = omp_get_thread_num();
                }
                ord_next = i + 1;
            }
        }
#pragma omp sections reduction(+ : sec)
        {
#pragma omp section
            sec += 1;
#pragma omp section
            sec += 10;
#pragma omp section
            sec += 100;
        }
        long mine;
#pragma omp single copyprivate(mine)
        mine = 42 + k;
        if (mine != 42 + k) {
#pragma omp critical
            cp = mine;
        }
#pragma omp critical
        crit += me + 1;
#pragma omp atomic
        atom += 2;
        omp_set_lock(&lock);
        lock_sum += 1;
        omp_unset_lock(&lock);
        (void)ids;
    }
    omp_destroy_lock(&lock);
    char ord[96] = "ok";
    if (ord_bad)
        snprintf(ord, sizeof ord, "WRONG(%ld out of turn, first: iteration %ld by thread %ld read %ld)", ord_bad,
                 bad_iter, bad_thread, bad_seen);
    printf("k=%d %s: threads=%d barrier=%s red=%ld dyn=%ld gui=%ld ordered=%s sections=%ld copyprivate=%s\n", k,
           via_set ? "omp_set_num_threads" : "num_threads", nt, bar_ok ? "ok" : "WRONG", red, dyn, gui, ord, sec,
           cp == -1 ? "ok" : "WRONG");
    printf("k=%d critical=%d atomic=%d lock=%d\n", k, crit, atom, lock_sum);
}

int main(void)
{
    int max = omp_get_max_threads();
    for (int k = 1; k <= max; k++)
        check_team(k, 0);
    for (int k = max; k >= 1; k--)
        check_team(k, 1);
    omp_set_num_threads(max);
    long sum = 0;
#pragma omp parallel for reduction(+ : sum)
    for (int i = 0; i < N; i++)
        sum += data[i];
    printf("full team after smaller ones: max=%d sum=%ld\n", omp_get_max_threads(), sum);
    return 0;
}
