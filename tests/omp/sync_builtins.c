/*
 * sync_builtins: GCC's legacy __sync builtins on shared variables, as older
 * OpenMP programs use them: counters bumped with __sync_fetch_and_add and
 * __sync_sub_and_fetch on several integer sizes, a flag word built with
 * __sync_fetch_and_or, a maximum kept with the usual compare-and-swap loop
 * that reads the variable again with a plain read after a failed swap, a
 * test-and-set taken and released by every thread in turn, and threads
 * reading, with a plain read, the counter each has just incremented, many
 * times over (two threads of a node whose results reach the node's copy
 * out of order, or a fetch of the page under way as the result comes back,
 * must not hide a thread's own increment from it).  Every update must
 * count once, across nodes too.
 */
#include <omp.h>
#include <stdio.h>

#define N 20000
#define ROUNDS 200

static long hits;
static int down = 4 * N;
static short small;
static unsigned long long flags;
static long maximum = -1;
static volatile int spin;
static long taken;
static int seen_own = 1;

int main(void)
{
#pragma omp parallel for schedule(static)
    for (int i = 0; i < N; i++) {
        __sync_fetch_and_add(&hits, 2);
        __sync_sub_and_fetch(&down, 4);
        __sync_add_and_fetch(&small, 1);
        __sync_fetch_and_or(&flags, 1ULL << (i % 64));
        long old = maximum;
        while (i > old && !__sync_bool_compare_and_swap(&maximum, old, i))
            old = maximum;
        if (i % 50 == 0) {
            while (__sync_lock_test_and_set(&spin, 1))
                ;
            __sync_fetch_and_add(&taken, 1);
            __sync_lock_release(&spin);
        }
    }
    long val_cas = __sync_val_compare_and_swap(&maximum, N - 1, -5);

#pragma omp parallel
    for (int r = 0; r < ROUNDS; r++) {
        long before = __sync_fetch_and_add(&hits, 1);
        if (hits <= before)
            __sync_fetch_and_and(&seen_own, 0);
    }

    printf("hits %ld down %d small %d flags %llx\n", hits - ROUNDS * omp_get_max_threads(), down, small,
           flags);
    printf("maximum %ld then %ld taken %ld seen own %d\n", val_cas, maximum, taken, seen_own);
    return 0;
}
