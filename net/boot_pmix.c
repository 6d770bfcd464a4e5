/*
 * boot_pmix.c: the bootstrap through PMIx, for nodes started by a PMIx
 * launcher (Open MPI's mpirun, Slurm's srun --mpi=pmix) instead of
 * ompdsm-run.
 *
 * The launcher's PMIx server names the job (a namespace) and this process
 * (its rank in the namespace); the job's size is the namespace's
 * PMIX_JOB_SIZE.  An all-gather is one round of the PMIx key-value store:
 * every node puts its data under a key of its own for this collective,
 * commits, and joins a fence that collects the data of every node; then it
 * reads every node's value locally.  PMIx never forgets a key, so every call
 * uses a new one ("ompdsm.<tag>.<call>"): a late reader can never see the
 * value of an earlier round, and a node that skipped a round would wait in
 * the fence rather than read stale data.  The store keeps every value until
 * the job ends; the bootstrap carries a few small collectives, so that is
 * a few kilobytes per node of the job.
 *
 * Invariants:
 *   - pmix_calls counts the collectives of this process; every node makes
 *     the same calls in the same order (boot.h), so the counters agree;
 *   - one collective at a time: pmix_lock is held from the put to the last
 *     get, so the counter and the fence order match across nodes;
 *   - every PMIx failure is fatal.  A fence or get fails only if the
 *     launcher is tearing the job down, and no half-done collective can be
 *     resumed.
 *
 * Waiting is the PMIx client's: a fence blocks on a condition variable
 * until the client's progress thread (an event loop that sleeps in epoll)
 * delivers the result.  Nothing here polls.
 *
 * Death of a node is the launcher's business: mpirun and srun end the whole
 * job when a process dies or exits non-zero, so there is no connection to
 * watch (boot_fd() is -1).
 */
#include "boot_pmix.h"
#include "../util/log.h"
#include "../util/xalloc.h"

#include <errno.h>
#include <pmix.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <unistd.h>

#define FENCE_FAILED_WAIT_S 5

extern char **environ;

static pmix_proc_t pmix_me;             /* namespace and rank of this node */
static int pmix_size;
static unsigned long pmix_calls;
static pthread_mutex_t pmix_lock = PTHREAD_MUTEX_INITIALIZER;

static void check(pmix_status_t rc, const char *what)
{
    if (rc != PMIX_SUCCESS)
        dsm_fatal("%s failed: %s", what, PMIx_Error_string(rc));
}

bool boot_pmix_present(void)
{
    return getenv("PMIX_NAMESPACE") != NULL || getenv("PMIX_RANK") != NULL;
}

/* ---- same addresses on every node --------------------------------------- */

/* The arguments of this process, as the kernel keeps them in
 * /proc/self/cmdline (each ended by a NUL), as a NULL-terminated argv.
 * Never freed: execve follows. */
static char **own_argv(void)
{
    FILE *f = fopen("/proc/self/cmdline", "r");
    if (f == NULL)
        dsm_fatal("cannot read /proc/self/cmdline to restart without address randomisation: %s",
                  strerror(errno));
    char **argv = NULL;
    size_t argc = 0;
    for (;;) {
        argv = xrealloc(argv, (argc + 1) * sizeof *argv);
        char *arg = NULL;
        size_t cap = 0;
        if (getdelim(&arg, &cap, '\0', f) < 0) {
            free(arg);
            break;
        }
        argv[argc++] = arg;
    }
    fclose(f);
    argv[argc] = NULL;
    return argv;
}

/* ompdsm-run starts its nodes with randomisation off (see its source); a
 * PMIx launcher does not, so the node does it itself, before it has done
 * anything else: the new image starts afresh with the same pid, arguments
 * and environment, and the launcher does not notice. */
void boot_pmix_fix_addresses(void)
{
    int pers = personality(0xffffffff);
    if (pers == -1)
        dsm_fatal("cannot read the process personality: %s", strerror(errno));
    if (pers & ADDR_NO_RANDOMIZE)
        return;
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n < 0 || (size_t)n >= sizeof exe - 1)
        dsm_fatal("cannot find the program's path in /proc/self/exe to restart it without address "
                  "randomisation");
    exe[n] = '\0';
    char **argv = own_argv();
    if (personality((unsigned long)pers | ADDR_NO_RANDOMIZE) == -1)
        dsm_fatal("cannot turn address-space randomisation off (personality: %s); the nodes of an "
                  "OpenMP program need the same addresses", strerror(errno));
    execve(exe, argv, environ);
    dsm_fatal("cannot restart %s without address randomisation: %s", exe, strerror(errno));
}

/* ---- API ---------------------------------------------------------------- */

static int job_size(void)
{
    pmix_proc_t job;
    pmix_value_t *v = NULL;
    PMIX_LOAD_PROCID(&job, pmix_me.nspace, PMIX_RANK_WILDCARD);
    check(PMIx_Get(&job, PMIX_JOB_SIZE, NULL, 0, &v), "PMIx_Get(PMIX_JOB_SIZE)");
    if (v->type != PMIX_UINT32 || v->data.uint32 < 1 || v->data.uint32 > (uint32_t)INT32_MAX)
        dsm_fatal("PMIx: the job size of namespace %s is not a positive 32-bit number", pmix_me.nspace);
    int size = (int)v->data.uint32;
    PMIX_VALUE_RELEASE(v);
    return size;
}

void boot_pmix_init(int *rank, int *size)
{
    pmix_status_t rc = PMIx_Init(&pmix_me, NULL, 0);
    if (rc != PMIX_SUCCESS)
        dsm_fatal("PMIx_Init failed (%s), although PMIX_NAMESPACE/PMIX_RANK say that a PMIx launcher "
                  "started this process: its PMIx server is gone or unreachable",
                  PMIx_Error_string(rc));
    dsm_log_node = (int)pmix_me.rank;
    pmix_size = job_size();
    if (pmix_me.rank >= (pmix_rank_t)pmix_size)
        dsm_fatal("PMIx: rank %u is outside the job of %d processes", pmix_me.rank, pmix_size);
    *rank = (int)pmix_me.rank;
    *size = pmix_size;
}

static void put_and_fence(const char *key, const void *data, size_t len)
{
    pmix_value_t v = { .type = PMIX_BYTE_OBJECT };
    v.data.bo.bytes = (char *)data;     /* PMIx_Put copies it */
    v.data.bo.size = len;
    check(PMIx_Put(PMIX_GLOBAL, key, &v), "PMIx_Put");
    check(PMIx_Commit(), "PMIx_Commit");

    pmix_proc_t all;
    pmix_info_t collect;
    bool yes = true;
    PMIX_LOAD_PROCID(&all, pmix_me.nspace, PMIX_RANK_WILDCARD);
    PMIX_INFO_CONSTRUCT(&collect);
    PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    pmix_status_t rc = PMIx_Fence(&all, 1, &collect, 1);
    if (rc != PMIX_SUCCESS) {
        /* Another node has ended, and the launcher is ending the job and
         * will name the node that failed first.  A node that exited now
         * could be named instead, so give the launcher time to stop it. */
        sleep(FENCE_FAILED_WAIT_S);
        dsm_fatal("PMIx_Fence failed: %s (another node of the job has ended)", PMIx_Error_string(rc));
    }
    PMIX_INFO_DESTRUCT(&collect);
}

void *boot_pmix_allgather(uint32_t tag, const void *data, size_t len, size_t *lens)
{
    pthread_mutex_lock(&pmix_lock);
    char key[PMIX_MAX_KEYLEN + 1];
    snprintf(key, sizeof key, "ompdsm.%u.%lu", (unsigned)tag, ++pmix_calls);
    put_and_fence(key, data, len);

    /* After a collecting fence every value is in this node's copy of the
     * store: the gets do not leave the process. */
    pmix_value_t **v = xcalloc((size_t)pmix_size, sizeof *v);
    size_t total = 0;
    for (int r = 0; r < pmix_size; r++) {
        pmix_proc_t peer;
        PMIX_LOAD_PROCID(&peer, pmix_me.nspace, (pmix_rank_t)r);
        check(PMIx_Get(&peer, key, NULL, 0, &v[r]), "PMIx_Get");
        if (v[r]->type != PMIX_BYTE_OBJECT)
            dsm_fatal("PMIx: node %d's value of %s is not a byte object", r, key);
        total += v[r]->data.bo.size;
    }
    char *out = xmalloc(total);
    size_t at = 0;
    for (int r = 0; r < pmix_size; r++) {
        size_t n = v[r]->data.bo.size;
        if (n)
            memcpy(out + at, v[r]->data.bo.bytes, n);
        at += n;
        if (lens)
            lens[r] = n;
        PMIX_VALUE_RELEASE(v[r]);
    }
    free(v);
    pthread_mutex_unlock(&pmix_lock);
    return out;
}

void boot_pmix_finalize(void)
{
    pthread_mutex_lock(&pmix_lock);
    check(PMIx_Finalize(NULL, 0), "PMIx_Finalize");
    pthread_mutex_unlock(&pmix_lock);
}
