/*
 * target_teams.c: a program written for an offload device, run where there
 * is none (as libgomp runs it, on the host): target regions with map,
 * firstprivate and thread_limit clauses, `target teams distribute parallel
 * for` with a reduction, host `teams` with `distribute`, target data,
 * update and enter/exit data, `target nowait` ordered by depend clauses
 * among tasks, and the device memory routines.  The firstprivate copies
 * are read by every thread of a parallel region inside the target region,
 * on every node.
 * Run over tcp too.
 */
#include <errno.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

enum { N = 20000, TEAMS = 4, ROWS = 6, COLS = 5 };

struct coeffs {
    double scale[8];
    int shift;
};

static double checksum(const double *v, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += v[i] * (double)(i % 7 + 1);
    return s;
}

static void offload_loops(double *a, double *b)
{
    double sum = 0;
#pragma omp target teams distribute parallel for map(to : a[0:N]) map(from : b[0:N]) reduction(+ : sum) \
    num_teams(TEAMS)
    for (int i = 0; i < N; i++) {
        b[i] = 2.0 * a[i] + 1.0;
        sum += b[i];
    }
    printf("target teams distribute parallel for: sum %.1f checksum %.1f\n", sum, checksum(b, N));

    struct coeffs c = { .shift = 3 };
    for (int k = 0; k < 8; k++)
        c.scale[k] = 0.5 * (k + 1);
    int offset = 7;
#pragma omp target map(tofrom : b[0:N]) firstprivate(c, offset)
    {
        c.shift += offset;              /* the region's own copy */
#pragma omp parallel for
        for (int i = 0; i < N; i++)
            b[i] = b[i] * c.scale[i % 8] + c.shift;
    }
    printf("target firstprivate: shift after %d checksum %.1f\n", c.shift, checksum(b, N));
}

static void host_teams(double *a)
{
    int per_team[TEAMS] = { 0 }, league = 0;
#pragma omp teams num_teams(TEAMS)
    {
        if (omp_get_team_num() == 0)
            league = omp_get_num_teams();
#pragma omp distribute parallel for
        for (int i = 0; i < N; i++) {
            a[i] += omp_get_team_num();
#pragma omp atomic
            per_team[omp_get_team_num()]++;
        }
    }
    printf("host teams: league %d, iterations per team", league);
    for (int t = 0; t < TEAMS; t++)
        printf(" %d", per_team[t]);
    printf(", checksum %.1f\n", checksum(a, N));

    omp_set_num_teams(5);
    omp_set_teams_thread_limit(2);
    int limit = 0;
#pragma omp teams
    {
        if (omp_get_team_num() == 0)
            league = omp_get_num_teams();
#pragma omp parallel
        if (omp_get_team_num() == 1 && omp_get_thread_num() == 0)
            limit = omp_get_thread_limit();
    }
    printf("teams with the ICVs: league %d, thread limit %d\n", league, limit);
}

static void data_regions(double *a)
{
    double x = 0, y = 0;
#pragma omp target data map(tofrom : a[0:N])
    {
#pragma omp target
        for (int i = 0; i < N; i++)
            a[i] = i % 11;
#pragma omp target update from(a[0:N])
    }
#pragma omp target enter data map(to : a[0:N])
#pragma omp target exit data map(from : a[0:N])
#pragma omp parallel
#pragma omp single
    {
#pragma omp target nowait depend(out : x) map(tofrom : x)
        x = 40;
#pragma omp task depend(inout : x) shared(x)
        x += 2;
#pragma omp target nowait depend(in : x) depend(out : y) map(to : x) map(tofrom : y)
        y = x * 10;
#pragma omp taskwait
    }
    printf("target data: checksum %.1f; nowait with depend: x %.0f y %.0f\n", checksum(a, N), x, y);
}

static void device_routines(void)
{
    int host = omp_get_initial_device(), inside = 0, limit = 0;
#pragma omp target map(from : inside, limit) thread_limit(3)
    {
        inside = omp_is_initial_device();
#pragma omp parallel
        if (omp_get_thread_num() == 0)
            limit = omp_get_thread_limit();
    }
    printf("devices %d, initial device %d, in target initial %d, thread limit %d\n", omp_get_num_devices(),
           host == omp_get_device_num(), inside, limit);

    double *d = omp_target_alloc(ROWS * COLS * sizeof *d, host);
    double src[ROWS * COLS];
    for (int i = 0; i < ROWS * COLS; i++)
        src[i] = i;
    int copied = omp_target_memcpy(d, src, sizeof src, 0, 0, host, host);
    size_t volume[2] = { 2, 3 }, dst_off[2] = { 0, 0 }, src_off[2] = { 1, 2 }, dims[2] = { ROWS, COLS };
    double sub[ROWS * COLS] = { 0 };
    int rect = omp_target_memcpy_rect(sub, d, sizeof *d, 2, volume, dst_off, src_off, dims, dims, host, host);
    printf("target memory: memcpy %d rect %d (%.0f %.0f %.0f / %.0f %.0f %.0f) present %d associate %s\n",
           copied, rect, sub[0], sub[1], sub[2], sub[COLS], sub[COLS + 1], sub[COLS + 2],
           omp_target_is_present(d, host),
           omp_target_associate_ptr(src, d, sizeof src, 0, host) == EINVAL ? "EINVAL" : "accepted");
    omp_target_free(d, host);
    omp_set_default_device(2);
    printf("default device %d\n", omp_get_default_device());
}

int main(void)
{
    double *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b);
    if (!a || !b)
        return 1;
    for (int i = 0; i < N; i++)
        a[i] = i % 13;
    offload_loops(a, b);
    host_teams(a);
    data_regions(a);
    device_routines();
    free(a);
    free(b);
    return 0;
}
