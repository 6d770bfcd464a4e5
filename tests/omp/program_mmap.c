/*
 * program_mmap: memory the program maps itself, used by the threads of
 * every node: an anonymous mapping filled and summed by parallel loops
 * (then grown with mremap), a file mapped privately and summed in
 * parallel, and a shared writable mapping of a file changed in parallel,
 * written back by msync and munmap (the file no longer than it was) and
 * read back with pread.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define N 300000

int main(void)
{
    long *a = mmap(NULL, N * sizeof *a, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (a == MAP_FAILED)
        return 1;
    long zeros = 0;
#pragma omp parallel for reduction(+ : zeros)
    for (int i = 0; i < N; i++) {
        zeros += a[i] == 0;
        a[i] = i % 1000;
    }
    long s = 0;
#pragma omp parallel for reduction(+ : s)
    for (int i = 0; i < N; i++)
        s += a[i];
    a = mremap(a, N * sizeof *a, 2 * N * sizeof *a, MREMAP_MAYMOVE);
    if (a == MAP_FAILED)
        return 1;
    long grown = 0;
#pragma omp parallel for reduction(+ : grown)
    for (int i = 0; i < 2 * N; i++)
        grown += a[i];
    printf("anonymous: %ld zeros, sum %ld, after mremap %ld, munmap %d\n", zeros, s, grown,
           munmap(a, 2 * N * sizeof *a));

    FILE *f = tmpfile();
    for (int i = 0; i < N; i++) {
        int v = (i * 7) % 1001;
        fwrite(&v, sizeof v, 1, f);
    }
    fflush(f);
    int fd = fileno(f);
    const int *in = mmap(NULL, N * sizeof *in, PROT_READ, MAP_PRIVATE, fd, 0);
    if (in == MAP_FAILED)
        return 1;
    long fs = 0;
#pragma omp parallel for reduction(+ : fs)
    for (int i = 0; i < N; i++)
        fs += in[i];
    printf("private file mapping: sum %ld\n", fs);
    munmap((void *)in, N * sizeof *in);

    int *io = mmap(NULL, N * sizeof *io, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (io == MAP_FAILED)
        return 1;
#pragma omp parallel for
    for (int i = 0; i < N; i++)
        io[i] = 2 * io[i] + 1;
    int synced = msync(io, N * sizeof *io, MS_SYNC);
#pragma omp parallel for
    for (int i = 0; i < N / 2; i++)
        io[i] += 1;
    int unmapped = munmap(io, N * sizeof *io);
    int *back = malloc(N * sizeof *back);
    ssize_t got = pread(fd, back, N * sizeof *back, 0);
    long bs = 0;
    for (int i = 0; i < N; i++)
        bs += back[i];
    struct stat st;
    fstat(fd, &st);
    printf("shared file mapping: msync %d munmap %d, file %ld bytes, read back %zd, sum %ld\n", synced, unmapped,
           (long)st.st_size, got, bs);
    fclose(f);
    return 0;
}
