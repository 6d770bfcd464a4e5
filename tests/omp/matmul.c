/*
 * matmul: C = A * B for 120 x 120 malloc'd matrices of small integer-valued
 * doubles; each entry is a sum of exact products, so C equals the
 * sequential result exactly.  Prints the trace, the total and a few
 * entries.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define N 120

int main(void)
{
    double *A = malloc(N * N * sizeof *A);
    double *B = malloc(N * N * sizeof *B);
    double *C = malloc(N * N * sizeof *C);
    if (!A || !B || !C)
        return 1;

#pragma omp parallel for
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            A[i * N + j] = (double)((i * 3 + j * 5) % 11 - 5);
            B[i * N + j] = (double)((i * 7 + j) % 13 - 6);
        }
#pragma omp parallel for schedule(dynamic, 4)
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            double s = 0;
            for (int k = 0; k < N; k++)
                s += A[i * N + k] * B[k * N + j];
            C[i * N + j] = s;
        }
    double trace = 0, total = 0;
    for (int i = 0; i < N; i++) {
        trace += C[i * N + i];
        for (int j = 0; j < N; j++)
            total += C[i * N + j];
    }
    printf("trace = %.1f total = %.1f\n", trace, total);
    printf("C[0][0] = %.1f C[57][91] = %.1f C[119][119] = %.1f\n", C[0], C[57 * N + 91], C[N * N - 1]);
    free(A);
    free(B);
    free(C);
    return 0;
}
