/*
 * memsample.h: what the soak programs measure of each node's memory.
 *
 * Inside a parallel region every thread of an ompdsm team runs on its own
 * node, that is in its own process, so a thread that reads its own
 * /proc/self/status reads the memory of its node.  What is measured is the
 * node's resident anonymous and shared memory, RssAnon + RssShmem (VmRSS
 * without RssFile): the C library's heap, the stacks, the shared region
 * of the DSM, UCX's buffers and shared-memory segments, everything a leak
 * can grow.  The pages of the executable and of the shared libraries
 * (RssFile) are left out: they come in the first time a code path runs,
 * whenever that is, and never because of a leak.
 *
 * The programs sample it at SAMPLES evenly spaced points of their run,
 * each thread into its own element of a shared table, and node 0 prints
 * the table on standard error at the end:
 *
 *     soak mem_kib node N: S1 S2 ... S10
 *
 * one line per node, in KiB.  Standard output carries only the program's
 * results, which must match libgomp's exactly; under libgomp all threads
 * share one process.  run-soak-tests.sh checks the growth between the
 * samples.
 *
 * The reading uses open/read, not stdio, so that sampling allocates
 * nothing, and on a buffer this thread has already written: read() stores
 * into it from the kernel, which would fail with EFAULT, without the
 * fault the DSM handles, on a shared page that is not writable yet.
 */
#ifndef SOAK_MEMSAMPLE_H
#define SOAK_MEMSAMPLE_H

#include <fcntl.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SAMPLES 10
#define MAX_THREADS 64

/* A row per thread: the rows of a small team share one page, which the
 * first sample brings in, so that the later ones touch no new page. */
static long mem_kib[MAX_THREADS][SAMPLES];

/* The value in KiB of FIELD (with its colon) in the status text, or -1. */
static long mem_field(const char *status, const char *field)
{
    const char *at = strstr(status, field);
    return at ? strtol(at + strlen(field), NULL, 10) : -1;
}

/* RssAnon + RssShmem of the calling process in KiB, or -1 if they cannot
 * be read. */
static long mem_resident_kib(void)
{
    char buf[8192];
    memset(buf, 0, sizeof buf);
    int fd = open("/proc/self/status", O_RDONLY);
    if (fd < 0)
        return -1;
    size_t n = 0;
    ssize_t got;
    while (n < sizeof buf - 1 && (got = read(fd, buf + n, sizeof buf - 1 - n)) > 0)
        n += (size_t)got;
    close(fd);
    buf[n] = '\0';
    long anon = mem_field(buf, "\nRssAnon:"), shmem = mem_field(buf, "\nRssShmem:");
    return anon < 0 || shmem < 0 ? -1 : anon + shmem;
}

/* Called by every thread of a team: sample number s of this thread's node. */
static void mem_sample(int s)
{
    int t = omp_get_thread_num();
    if (s >= 0 && s < SAMPLES && t < MAX_THREADS)
        mem_kib[t][s] = mem_resident_kib();
}

/* Called by the initial thread after the last sample. */
static void mem_report(double seconds)
{
    int threads = omp_get_max_threads();
    if (threads > MAX_THREADS)
        threads = MAX_THREADS;
    for (int t = 0; t < threads; t++) {
        fprintf(stderr, "soak mem_kib node %d:", t);
        for (int s = 0; s < SAMPLES; s++)
            fprintf(stderr, " %ld", mem_kib[t][s]);
        fprintf(stderr, "\n");
    }
    fprintf(stderr, "soak seconds: %.1f\n", seconds);
}

#endif
