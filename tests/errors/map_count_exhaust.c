/* map_count_exhaust.c: rows of one page each, dealt to the threads in turn
 * (schedule(static,1)), in an array of 800 MB: at each node every other
 * page of the array is valid, one memory mapping each, more than
 * vm.max_map_count's default 65,530 allows. */
#include <stdio.h>
#include <stdlib.h>

#define ROWS 200000L
#define COLS 512

int main(void)
{
    double *a = malloc(ROWS * COLS * sizeof *a);
    if (!a)
        return 2;
    for (long r = 0; r < ROWS; r++)
        a[r * COLS] = 0;
#pragma omp parallel for schedule(static, 1)
    for (long r = 0; r < ROWS; r++)
        a[r * COLS] += (double)(r % 7);
    double s = 0;
    for (long r = 0; r < ROWS; r++)
        s += a[r * COLS];
    printf("%.1f\n", s);
    return 0;
}
