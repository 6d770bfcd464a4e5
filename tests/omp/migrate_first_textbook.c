/* env: OMP_SCHEDULE=static OMPDSM_MIGRATE=first */
/*
 * migrate_first_textbook: with OMPDSM_MIGRATE=first, every worksharing loop
 * migrates the pages it writes at the end of its first execution, also
 * when it is written the textbook way: the master initialises two arrays,
 * each loop is its own `#pragma omp parallel for schedule(runtime)` with
 * bounds known at run time only, which GCC runs as a region whose body
 * starts the loop, and the loops' bounds differ by one.  Afterwards,
 * every page of b inside a thread's block must be homed at that thread's
 * node, not only a's (the first loop's); with several threads per node
 * too, whose blocks lie side by side on their node.  The check runs on ompdsm only
 * (ompdsm_home_of is a weak reference, absent under libgomp); the output is
 * the same either way.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

extern int ompdsm_home_of(const void *addr) __attribute__((weak));
extern int ompdsm_node(void) __attribute__((weak));

enum { PAGE_DOUBLES = 512 };
static volatile int size = 1 << 20;

int main(void)
{
    int n = size;   /* a bound GCC does not know: it runs each loop as a region that starts it */
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    if (!a || !b)
        return 1;
    for (int i = 0; i < n; i++)
        a[i] = b[i] = 1.0;
    for (int it = 0; it < 3; it++) {
#pragma omp parallel for schedule(runtime)
        for (int i = 0; i < n - 1; i++)
            a[i] = a[i] * 0.5 + b[i];
#pragma omp parallel for schedule(runtime)
        for (int i = 0; i < n; i++)
            b[i] = a[i] - b[i] * 0.25;
    }
    long misplaced = 0;
    if (ompdsm_home_of) {
#pragma omp parallel reduction(+ : misplaced)
        {
            int t = omp_get_thread_num(), nt = omp_get_num_threads();
            long lo = n / nt * t + (t < n % nt ? t : n % nt), len = n / nt + (t < n % nt);
            for (long i = (lo + PAGE_DOUBLES - 1) / PAGE_DOUBLES * PAGE_DOUBLES; i + PAGE_DOUBLES <= lo + len;
                 i += PAGE_DOUBLES)
                misplaced += ompdsm_home_of(&b[i]) != ompdsm_node();
        }
    }
    double sum = 0;
    for (int i = 0; i < n; i++)
        sum += a[i] + 2 * b[i];
    printf("checksum %.12e%s\n", sum, misplaced ? " (pages of b not at their writers)" : "");
    if (misplaced)
        fprintf(stderr, "%ld pages of b are not homed at the node that writes them\n", misplaced);
    free(a);
    free(b);
    return misplaced != 0;
}
