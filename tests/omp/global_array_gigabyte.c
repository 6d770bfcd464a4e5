/*
 * global_array_gigabyte: a global array of 640 MB (static, in .bss), one
 * double written in every page by a `parallel for`, then summed.  Each node
 * holds the pages of its blocks with protections that differ from page to
 * page where their homes do, and each change of protection is a memory
 * mapping of its own, of which a process may have 65,530 by default
 * (vm.max_map_count): homes that alternated page by page stopped this job
 * at 2 nodes.  The sums must be libgomp's.
 */
#include <omp.h>
#include <stdio.h>

#define N (80L * 1000 * 1000)
#define STRIDE 512

static double a[N];

int main(void)
{
    for (int round = 1; round <= 2; round++) {
#pragma omp parallel for
        for (long i = 0; i < N; i += STRIDE)
            a[i] = (double)(i / STRIDE) * round;
        double sum = 0;
#pragma omp parallel for reduction(+ : sum)
        for (long i = 0; i < N; i += STRIDE)
            sum += a[i];
        printf("round %d: sum %.1f\n", round, sum);
    }
    return 0;
}
