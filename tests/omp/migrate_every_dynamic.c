/* env: OMP_SCHEDULE=dynamic,7 OMPDSM_MIGRATE=every:2 */
/*
 * migrate_every_dynamic: homes migrate at every second region or loop end
 * while a dynamic schedule deals rows to whichever node asks first, so the
 * pages of the malloc'd arrays keep changing hands.  A 1-D heat equation on
 * rows of a 2-D array, with a sum reduction each step; the final field and
 * the per-step sums must equal libgomp's exactly (integer arithmetic).
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define ROWS 64
#define COLS 700
#define STEPS 12

int main(void)
{
    long *cur = malloc(sizeof(long) * ROWS * COLS), *next = malloc(sizeof(long) * ROWS * COLS);
    if (!cur || !next)
        return 1;
    for (int r = 0; r < ROWS; r++)
        for (int c = 0; c < COLS; c++)
            cur[r * COLS + c] = (r * 31 + c * 17) % 1000;
    for (int s = 0; s < STEPS; s++) {
        long total = 0;
#pragma omp parallel for schedule(runtime) reduction(+ : total)
        for (int r = 0; r < ROWS; r++) {
            for (int c = 0; c < COLS; c++) {
                long left = cur[r * COLS + (c + COLS - 1) % COLS], right = cur[r * COLS + (c + 1) % COLS];
                long up = cur[((r + ROWS - 1) % ROWS) * COLS + c];
                next[r * COLS + c] = (left + right + up + 2 * cur[r * COLS + c]) / 5;
                total += next[r * COLS + c];
            }
        }
        long *t = cur;
        cur = next;
        next = t;
        printf("step %d total %ld\n", s, total);
    }
    unsigned long h = 0;    /* unsigned: the hash wraps around */
    for (int i = 0; i < ROWS * COLS; i++)
        h = h * 31 + (unsigned long)cur[i];
    printf("hash %lu\n", h);
    free(cur);
    free(next);
    return 0;
}
