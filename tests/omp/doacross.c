/* env: OMP_SCHEDULE=guided,2 */
/*
 * doacross.c: loops with cross-iteration dependences (ordered(n) with
 * `ordered depend(sink: ...)` and `ordered depend(source)`): a 2-D
 * wavefront whose rows are dealt round-robin, so that every element waits
 * for the row before it, run by another thread (another node at 2 nodes
 * and more); a 1-D recurrence with a dynamic schedule that prints each
 * step in the ordered part (the output must come in iteration order from
 * every node); an unsigned long long loop with the runtime schedule
 * (guided here); a collapsed loop with a third dependence dimension.
 * Every result depends on the dependences being honoured, memory
 * included: a value read before its writer's post would change it.
 * Run over tcp too.
 */
#include <stdio.h>

enum { N = 96, M = 80 };

static double grid[N][M];

static double wavefront(void)
{
    for (int i = 0; i < N; i++)
        for (int j = 0; j < M; j++)
            grid[i][j] = (i == 0 || j == 0) ? 1.0 + (i + j) % 3 : 0.0;
#pragma omp parallel for ordered(2) schedule(static, 1)
    for (int i = 1; i < N; i++)
        for (int j = 1; j < M; j++) {
#pragma omp ordered depend(sink : i - 1, j) depend(sink : i, j - 1)
            grid[i][j] = 0.5 * (grid[i - 1][j] + grid[i][j - 1]) + 0.001 * i * j;
#pragma omp ordered depend(source)
        }
    double s = 0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < M; j++)
            s += grid[i][j] * (1 + (i * 7 + j) % 5);
    return s;
}

static void recurrence(void)
{
    static long b[200];
    b[0] = 1;
#pragma omp parallel for ordered(1) schedule(dynamic, 3)
    for (long k = 1; k < 200; k++) {
        long x = k * k % 97;        /* independent work before the wait */
#pragma omp ordered depend(sink : k - 1)
        b[k] = (b[k - 1] * 31 + x) % 1000003;
        if (k % 20 == 0)
            printf("recurrence step %ld: %ld\n", k, b[k]);
#pragma omp ordered depend(source)
    }
    printf("recurrence: %ld\n", b[199]);
}

static void unsigned_runtime(void)
{
    static unsigned long long c[64];
    const unsigned long long base = 1ULL << 63;
    c[0] = 7;
#pragma omp parallel for ordered(1) schedule(runtime)
    for (unsigned long long k = base + 1; k < base + 64; k++) {
#pragma omp ordered depend(sink : k - 1)
        c[k - base] = (c[k - base - 1] * 5 + (k & 0xff)) % 100003;
#pragma omp ordered depend(source)
    }
    printf("unsigned, runtime schedule: %llu\n", c[63]);
}

static void collapsed(void)
{
    static double t[9][4][6];
    for (int i = 0; i < 9; i++)
        for (int j = 0; j < 4; j++)
            for (int k = 0; k < 6; k++)
                t[i][j][k] = i == 0 || k == 0 ? 1.0 + j : 0.0;
#pragma omp parallel for collapse(2) ordered(3)
    for (int i = 1; i < 9; i++)
        for (int j = 0; j < 4; j++)
            for (int k = 1; k < 6; k++) {
#pragma omp ordered depend(sink : i - 1, j, k) depend(sink : i, j, k - 1)
                t[i][j][k] = t[i - 1][j][k] + 0.5 * t[i][j][k - 1];
#pragma omp ordered depend(source)
            }
    double s = 0;
    for (int i = 0; i < 9; i++)
        for (int j = 0; j < 4; j++)
            for (int k = 0; k < 6; k++)
                s += t[i][j][k] * (i + 1);
    printf("collapsed, three dimensions: %.6f\n", s);
}

int main(void)
{
    printf("wavefront: %.6f\n", wavefront());
    recurrence();
    unsigned_runtime();
    collapsed();
    return 0;
}
