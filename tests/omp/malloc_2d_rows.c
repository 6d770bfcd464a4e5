/*
 * malloc_2d_rows: a 2-D array built as an array of separately malloc'd row
 * pointers is shared: threads write rows through the pointer table, then
 * a second loop reads across rows (transposed access), and the results
 * match the sequential program.  Rows are also reallocated bigger inside
 * a parallel loop and the old contents must survive.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define R 150
#define C 97

int main(void)
{
    long **m = malloc(R * sizeof *m);
    for (int i = 0; i < R; i++)
        m[i] = malloc(C * sizeof **m);

#pragma omp parallel for schedule(dynamic, 5)
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++)
            m[i][j] = (long)i * C + j;
    static long colsum[C];
#pragma omp parallel for
    for (int j = 0; j < C; j++) {
        long s = 0;
        for (int i = 0; i < R; i++)
            s += m[i][j];
        colsum[j] = s;
    }
#pragma omp parallel for schedule(static, 7)
    for (int i = 0; i < R; i++) {
        m[i] = realloc(m[i], 2 * C * sizeof **m);
        for (int j = C; j < 2 * C; j++)
            m[i][j] = -m[i][j - C];
    }
    long total = 0, check = 0;
    for (int j = 0; j < C; j++)
        total += colsum[j];
    for (int i = 0; i < R; i++)
        for (int j = 0; j < 2 * C; j++)
            check += m[i][j] * (j < C ? 1 : -1);
    printf("column sums total = %ld\n", total);
    printf("colsum[0] = %ld colsum[96] = %ld\n", colsum[0], colsum[C - 1]);
    printf("after realloc: %s\n", check == 2 * total ? "ok" : "WRONG");
    for (int i = 0; i < R; i++)
        free(m[i]);
    free(m);
    return 0;
}
