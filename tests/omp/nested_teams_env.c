/* env: OMP_NESTED=true OMP_MAX_ACTIVE_LEVELS=2 */
/*
 * nested_teams_env: nesting turned on by the environment (OMP_NESTED,
 * OMP_MAX_ACTIVE_LEVELS=2), the way programs that nest loops are usually
 * run: a `parallel for` over the rows of a matrix the master set up, whose
 * body is a `parallel for` over the row's columns, three sweeps that each
 * read the matrix the sweep before wrote (threads of the same node and of
 * different nodes write neighbouring words of the same pages), and a third
 * level, beyond OMP_MAX_ACTIVE_LEVELS, that runs one thread.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define ROWS 300
#define COLS 1000

int main(void)
{
    double *a = malloc(sizeof(double) * ROWS * COLS), *b = malloc(sizeof(double) * ROWS * COLS);
    if (!a || !b)
        return 1;
    for (int i = 0; i < ROWS * COLS; i++)
        a[i] = (double)(i % 97);
    printf("nested %d max active levels %d\n", omp_get_nested(), omp_get_max_active_levels());
    int third = 0, inner_teams = 0;
    for (int sweep = 0; sweep < 3; sweep++) {
        double *from = sweep % 2 ? b : a, *to = sweep % 2 ? a : b;
#pragma omp parallel for
        for (int i = 0; i < ROWS; i++) {
#pragma omp parallel for num_threads(2)
            for (int j = 0; j < COLS; j++) {
                double up = from[(i + ROWS - 1) % ROWS * COLS + j], left = from[i * COLS + (j + COLS - 1) % COLS];
                to[i * COLS + j] = 0.5 * from[i * COLS + j] + 0.25 * (up + left) + sweep;
                if (j == 0 && i == 0 && sweep == 0) {
#pragma omp parallel num_threads(2)
                    {
#pragma omp atomic
                        third++;
                    }
                }
                if (j == 0 && omp_get_num_threads() == 2 && omp_get_active_level() == omp_get_level()) {
#pragma omp atomic
                    inner_teams++;
                }
            }
        }
    }
    double sum = 0;
    for (int i = 0; i < ROWS * COLS; i++)
        sum += b[i] * (i % 13 + 1);
    printf("checksum %.6e\nthird-level threads %d\ninner teams of 2 (rows x sweeps) %d\n", sum, third, inner_teams);
    free(a);
    free(b);
    return 0;
}
