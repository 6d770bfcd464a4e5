/*
 * Data the master sets up alone, then read by every thread in several
 * parallel loops: a node other than node 0 must fetch the pages its
 * threads read once, not again in the next loops.  It used to fetch them
 * three times: its copies were suspect at its first acquire (it registered
 * as a sharer only at its release, after reading them), and the home
 * announced them at its next release (it held them writable, unshared,
 * and could not tell whether it wrote them after the read).  A node now
 * registers before it reads, and the home write-protects at a barrier's
 * end the pages registered for meanwhile, without announcing them.
 *
 * LOOPS loops each sum the array (schedule(static): the same blocks every
 * time); the sums must be equal to the sequential one.  Under ompdsm each
 * thread then reports its node's pages fetched (ompdsm_get_stats): no node
 * but 0 may have fetched more than 2.5 times its share of the array's
 * pages (and a read-ahead window).  Once is the rule, twice the exception:
 * pages read before node 0 arrived at the loop's barrier are announced by
 * its release there (it may have written them after the read) and fetched
 * again.  The previous library fetched 3 times.  libgomp has no
 * ompdsm_get_stats (a
 * weak reference: NULL there), and the verdict is then yes; the output is
 * libgomp's.
 */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* include/ompdsm.h's, whose third field is the node's pages fetched; a
 * buffer larger than the structure stands for it (libgomp's build has no
 * ompdsm.h to include). */
void ompdsm_get_stats(void *out) __attribute__((weak));
int ompdsm_node(void) __attribute__((weak));
int ompdsm_nodes(void) __attribute__((weak));

enum { N = 1 << 19, LOOPS = 6, MAX_THREADS = 64, PAGE_DOUBLES = 512, WINDOW = 16 };

static long fetched[MAX_THREADS];
static int node_of[MAX_THREADS];

int main(void)
{
    double *a = malloc(N * sizeof *a);
    if (!a)
        return 2;
    double want = 0;
    for (int i = 0; i < N; i++) {
        a[i] = (double)(i % 1000) * 0.5;
        want += a[i];
    }
    int same = 1;
    for (int l = 0; l < LOOPS; l++) {
        double s = 0;
#pragma omp parallel for schedule(static) reduction(+ : s)
        for (int i = 0; i < N; i++)
            s += a[i];
        same &= s == want;
    }
    int nt = 1;
#pragma omp parallel
    {
        int t = omp_get_thread_num();
        if (t == 0)
            nt = omp_get_num_threads();
        if (t < MAX_THREADS && ompdsm_get_stats) {
            uint64_t st[64];
            ompdsm_get_stats(st);
            fetched[t] = (long)st[2];
            node_of[t] = ompdsm_node();
        }
    }
    int nodes = ompdsm_nodes ? ompdsm_nodes() : 1;
    long worst = 0, share = N / PAGE_DOUBLES / nodes;
    for (int t = 0; t < nt && t < MAX_THREADS; t++)
        if (node_of[t] != 0 && fetched[t] > worst)
            worst = fetched[t];
    int once = worst <= share * 5 / 2 + WINDOW;
    printf("every loop's sum is the sequential one: %s\n", same ? "yes" : "no");
    printf("the master's data fetched at most twice: %s\n", once ? "yes" : "no");
    if (!once)
        fprintf(stderr, "setup_fetched_once: a node fetched %ld pages, its share is %ld\n", worst, share);
    free(a);
    return 0;
}
