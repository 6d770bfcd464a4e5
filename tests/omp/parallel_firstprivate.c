/*
 * parallel_firstprivate: each thread's copy of a firstprivate variable
 * (scalar, array and struct) starts with the value of the original at the
 * start of the region; changes stay private to the thread.
 */
#include <omp.h>
#include <stdio.h>

struct pt { int x, y; double w; };

int main(void)
{
    int s = 7;
    int arr[5] = {1, 2, 3, 4, 5};
    struct pt p = {3, -4, 0.5};
    int bad = 0;

#pragma omp parallel firstprivate(s, arr, p) reduction(+ : bad)
    {
        int me = omp_get_thread_num();
        bad += s != 7 || arr[0] != 1 || arr[4] != 5 || p.x != 3 || p.y != -4 || p.w != 0.5;
        s += me;
        arr[2] = me;
        p.w = me;
#pragma omp barrier
        bad += s != 7 + me || arr[2] != me || p.w != me;
    }
    printf("copies initialised and private: %s\n", bad == 0 ? "ok" : "WRONG");
    printf("originals: s=%d arr=%d,%d,%d,%d,%d p=%d,%d,%.1f\n", s, arr[0], arr[1], arr[2], arr[3],
           arr[4], p.x, p.y, p.w);
    return 0;
}
