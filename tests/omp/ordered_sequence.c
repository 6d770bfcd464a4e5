/*
 * ordered_sequence: the ordered region of iteration i sees the writes of
 * the ordered regions of all earlier iterations: a shared running value
 * updated only inside the ordered region follows the sequential
 * recurrence x = 3x + i (mod 1000003), and the iterations enter in
 * order.
 */
#include <omp.h>
#include <stdio.h>

#define N 300

int main(void)
{
    static int order[N];
    long x = 1;
    int next = 0, inorder = 1;

#pragma omp parallel for ordered schedule(dynamic, 2) reduction(&& : inorder)
    for (int i = 0; i < N; i++) {
        long local = (long)i * i;     /* work outside the ordered part */
#pragma omp ordered
        {
            inorder = inorder && next == i;
            order[next++] = i;
            x = (3 * x + i + local % 7) % 1000003;
        }
    }
    int ok = 1;
    for (int i = 0; i < N; i++)
        ok &= order[i] == i;
    printf("entered in order: %s\n", ok && inorder && next == N ? "ok" : "WRONG");
    printf("x = %ld\n", x);
    return 0;
}
