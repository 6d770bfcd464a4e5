/*
 * orphaned_worksharing: worksharing constructs (for, single, sections,
 * barrier, critical) in a function called from inside a parallel region
 * bind to that region's team; called outside any region they run
 * sequentially with the same result.
 */
#include <omp.h>
#include <stdio.h>

static long data[500];
static long total;
static int singles;

static void phase(int n)
{
#pragma omp for
    for (int i = 0; i < n; i++)
        data[i] = (long)i * i;
#pragma omp single
    singles++;
#pragma omp sections
    {
#pragma omp section
        data[0] += 1;
#pragma omp section
        data[1] += 2;
    }
#pragma omp for reduction(+ : total)
    for (int i = 0; i < n; i++)
        total += data[i];
#pragma omp barrier
}

int main(void)
{
#pragma omp parallel
    phase(500);
    long in_region = total;
    total = 0;
    phase(500);
    printf("in region: total = %ld, singles = %d\n", in_region, singles);
    printf("sequential: total = %ld\n", total);
    return 0;
}
