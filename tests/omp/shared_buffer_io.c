/*
 * shared_buffer_io: the master writes arrays that the loops of every node
 * filled to a file and reads them back into shared memory, with stdio
 * (fwrite, fread) and with the system calls (write, pwrite, writev, read,
 * pread, readv); a pipe carries a shared buffer in pieces; threads of every
 * node fwrite their blocks to the master's file in an ordered loop; a
 * long shared string goes out through puts and fputs.  The kernel copies
 * these buffers without a fault in user space: every count and every byte
 * must be what libgomp's run gives.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#define N (1 << 19)
#define PIPED (200 * 1000)
#define PIECE 50000
#define TEXT 20000

static double sum(const double *v, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += v[i];
    return s;
}

static void fill(double *a, double *b, double k)
{
#pragma omp parallel for
    for (int i = 0; i < N; i++) {
        a[i] = i * k;
        b[i] = -1;
    }
}

int main(void)
{
    double *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b);
    size_t bytes = N * sizeof *a;

    fill(a, b, 0.25);
    FILE *f = tmpfile();
    size_t w = fwrite(a, sizeof *a, N, f);
    rewind(f);
    size_t r = fread(b, sizeof *b, N, f);
    printf("fwrite %zu fread %zu sum %.2f\n", w, r, sum(b, N));

    fill(a, b, 0.5);
    int fd = fileno(f);
    if (ftruncate(fd, 0))
        return 1;
    ssize_t ww = pwrite(fd, a, bytes, 0);
    ssize_t rr = pread(fd, b, bytes, 0);
    printf("pwrite %zd pread %zd sum %.2f\n", ww, rr, sum(b, N));

    fill(a, b, 0.75);
    lseek(fd, 0, SEEK_SET);
    struct iovec out[2] = { { a, bytes / 2 }, { a + N / 2, bytes / 2 } };
    ww = writev(fd, out, 2);
    lseek(fd, 0, SEEK_SET);
    struct iovec in[2] = { { b + N / 2, bytes / 2 }, { b, bytes / 2 } };
    rr = readv(fd, in, 2);
    printf("writev %zd readv %zd sum %.2f\n", ww, rr, sum(b, N));

    fill(a, b, 1.0);
    lseek(fd, 0, SEEK_SET);
    ww = write(fd, a, bytes);
    lseek(fd, 0, SEEK_SET);
    rr = read(fd, b, bytes);
    printf("write %zd read %zd sum %.2f\n", ww, rr, sum(b, N));
    fclose(f);

    /* A pipe, in pieces that it holds: each read asks for all the rest. */
    unsigned char *piped = malloc(PIPED), *got = malloc(PIPED);
#pragma omp parallel for
    for (int i = 0; i < PIPED; i++) {
        piped[i] = (unsigned char)(i * 7 + i / 256);
        got[i] = 0;
    }
    int p[2];
    if (pipe(p))
        return 1;
    size_t len = 0;
    for (size_t sent = 0; sent < PIPED; sent += PIECE) {
        size_t n = PIPED - sent < PIECE ? PIPED - sent : PIECE;
        if (write(p[1], piped + sent, n) != (ssize_t)n)
            return 1;
        while (len < sent + n) {
            ssize_t k = read(p[0], got + len, PIPED - len);
            if (k <= 0)
                return 1;
            len += (size_t)k;
        }
    }
    close(p[0]);
    close(p[1]);
    printf("pipe %zu bytes, %s\n", len, memcmp(piped, got, PIPED) ? "different" : "equal");

    /* Blocks of a shared array from the threads of every node, in order. */
    fill(a, b, 2.0);
    f = tmpfile();
#pragma omp parallel for ordered schedule(static, 1)
    for (int blk = 0; blk < 8; blk++) {
#pragma omp ordered
        fwrite(a + blk * (N / 8), sizeof *a, N / 8, f);
    }
    rewind(f);
    r = fread(b, sizeof *b, N, f);
    fclose(f);
    printf("blocks %zu sum %.2f\n", r, sum(b, N));

    char *text = malloc(TEXT);
#pragma omp parallel for
    for (int i = 0; i < TEXT - 1; i++)
        text[i] = (char)('a' + i % 26);
    text[TEXT - 1] = 0;
    puts(text);
    fputs(text, stdout);
    putchar('\n');
    return 0;
}
