/*
 * exit.c: how the job ends when the program calls exit().
 *
 * The ordinary end: node 0 leaves main() (or calls exit) outside parallel
 * regions.  Its exit status travels to every node with a last barrier
 * (parallel.c), which also writes out every node's buffered output (every
 * release does, dsm_flush_output), and every node finalizes and exits with
 * that status; ompdsm-run takes it for the job's.
 *
 * Inside a parallel region (any thread, as libgomp allows) the nodes cannot
 * meet at a barrier: the others are busy in the region.  The node that
 * calls exit(status) then writes out its output, tells the launcher that
 * the job ends with that status (boot_exit: nodes that leave now are no
 * failure), and tells every other node, whose progress thread writes out
 * that node's output and acknowledges; once all have, it leaves with the
 * status, and ompdsm-run stops the others and exits with it.  A node that
 * has acknowledged also leaves by itself a moment later (under mpirun,
 * which does not stop the others when a node exits with status 0); not at
 * once, as its acknowledgement must first go out.  Output another thread
 * is printing at that moment may be cut, as in a process whose thread
 * calls exit() while another prints.  Statistics are not printed.
 *
 * The program's exit handlers (atexit, on_exit, destructors) and its
 * stdio buffers are node 0's: main() registered and filled them there.  So
 * a thread of another node that calls exit() publishes its writes (a
 * flush), writes out its output and asks node 0 to exit() with its status
 * for it, as libgomp runs the handlers on the thread that calls exit();
 * node 0 does, on a thread of its own, which then ends the job as above.
 * The asking thread waits for the end.
 */
#include "omp_rt.h"

#include "../dsm/dsm.h"
#include "../net/boot.h"
#include "../net/net.h"
#include "../util/log.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define LEAVE_AFTER_MS 1000 /* a node told to leave leaves by itself after this */

struct job_exit {
    uint64_t cookie;
    int32_t status, pad;
};

/* The program's stdout and stderr, taken at start: the variables stdout
 * and stderr may live in the shared globals, which the progress thread
 * must not touch. */
static FILE *out, *err;

void omp_exit_init(FILE *o, FILE *e)
{
    out = o;
    err = e;
}

/* In the progress thread: a stream another thread of this node is writing
 * right now (its lock held) is left alone rather than waited for. */
static void try_flush(FILE *f)
{
    if (f && ftrylockfile(f) == 0) {
        fflush_unlocked(f);
        funlockfile(f);
    }
}

static void *leave_later(void *arg)
{
    struct timespec t = { .tv_sec = LEAVE_AFTER_MS / 1000, .tv_nsec = LEAVE_AFTER_MS % 1000 * 1000000L };
    nanosleep(&t, NULL);
    _exit((int)(intptr_t)arg);
}

static void on_job_exit(int src, void *body, size_t len)
{
    struct job_exit m;
    if (len != sizeof m)
        dsm_fatal("malformed exit message from node %d", src);
    memcpy(&m, body, sizeof m);
    try_flush(out);
    try_flush(err);
    net_send_done(src, m.cookie);
    pthread_t t;
    if (pthread_create(&t, NULL, leave_later, (void *)(intptr_t)m.status))
        _exit(m.status);
    pthread_detach(t);
}

/* At node 0: exit() for a thread of another node; the first request only
 * (two nodes calling exit() at once are two threads doing so). */
static void *exit_for(void *arg)
{
    dsm_fault_thread_init();
    exit((int)(intptr_t)arg);
}

static void on_exit_for(int src, void *body, size_t len)
{
    static atomic_bool taken;
    struct job_exit m;
    if (len != sizeof m || omp_rt.node != 0)
        dsm_fatal("malformed exit request from node %d", src);
    memcpy(&m, body, sizeof m);
    if (!atomic_exchange(&taken, true))
        omp_thread_start(exit_for, (void *)(intptr_t)m.status, "thread that runs exit() for another node");
}

void omp_exit_register(void)
{
    net_register(OP_JOB_EXIT, on_job_exit);
    net_register(OP_EXIT_FOR, on_exit_for);
}

_Noreturn void omp_exit_at_node0(int status)
{
    omp_rt_flush();
    fflush(NULL);
    struct job_exit m = { .status = status };
    net_send(0, OP_EXIT_FOR, &m, sizeof m, NULL, 0);
    for (;;)
        pause();
}

_Noreturn void omp_exit_job(int status)
{
    fflush(NULL);
    boot_exit(status);
    struct net_wait w;
    net_wait_init(&w, (uint32_t)omp_rt.nodes - 1);
    struct job_exit m = { .cookie = (uint64_t)(uintptr_t)&w, .status = status };
    for (int n = 0; n < omp_rt.nodes; n++)
        if (n != omp_rt.node)
            net_send(n, OP_JOB_EXIT, &m, sizeof m, NULL, 0);
    net_wait(&w);
    _exit(status);
}
