/*
 * boot_node.c: a node of the bootstrap tests (run_boot_tests.sh).
 *
 * Every node joins the job, all-gathers its rank and checks every slot, then
 * all-gathers data of a length that differs per node (rank + 1 bytes of value
 * rank, so that a misplaced byte or a wrong length shows), and finalizes.
 *
 * Failure modes, chosen by the environment, let the script check how the
 * launcher supervises a job:
 *   BOOT_TEST_SEGV=R      node R dereferences NULL after the first collective
 *   BOOT_TEST_EXIT3=R     node R exits with status 3 after the first collective
 *   BOOT_TEST_BADTOKEN=1  node 0 joins with a wrong token (must be refused)
 *   BOOT_TEST_SLEEP=S     every node sleeps S seconds after joining
 *   BOOT_TEST_LATE=R      node R sleeps 30 s before joining
 */
#include "../../net/boot.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int env_rank(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? atoi(v) : -1;
}

static void check(int ok, int rank, const char *what)
{
    if (!ok) {
        fprintf(stderr, "boot_node %d: FAILED: %s\n", rank, what);
        exit(2);
    }
}

static void gather_ranks(int rank, int size)
{
    size_t lens[4096];
    int *all = boot_allgather(BOOT_TAG_TEST, &rank, sizeof rank, lens);
    for (int r = 0; r < size; r++) {
        check(lens[r] == sizeof(int), rank, "length of a rank slot");
        check(all[r] == r, rank, "content of a rank slot");
    }
    free(all);
}

static void gather_variable(int rank, int size)
{
    size_t lens[4096];
    unsigned char mine[4096];
    memset(mine, rank & 0xff, (size_t)rank + 1);
    unsigned char *all = boot_allgather(BOOT_TAG_TEST + 1, mine, (size_t)rank + 1, lens);
    size_t at = 0;
    for (int r = 0; r < size; r++) {
        check(lens[r] == (size_t)r + 1, rank, "length of a variable slot");
        for (int i = 0; i <= r; i++)
            check(all[at++] == (r & 0xff), rank, "content of a variable slot");
    }
    free(all);
}

/* The launcher must see a node killed by SIGSEGV: neither AddressSanitizer
 * (which would report the fault and exit with status 1) nor
 * UndefinedBehaviorSanitizer (which would report the store) may take it,
 * in a build configured with --enable-sanitizers. */
__attribute__((no_sanitize("null"), noinline)) static void store_to_null(void)
{
    volatile int *volatile null = NULL;
    *null = 0;
}

#ifdef __SANITIZE_ADDRESS__
const char *__asan_default_options(void);

const char *__asan_default_options(void)
{
    return "handle_segv=0";
}
#endif

int main(void)
{
    int rank = 0, size = 1;
    int me = env_rank("OMPDSM_RANK");
    if (getenv("BOOT_TEST_BADTOKEN") && me == 0)
        setenv("OMPDSM_JOB_TOKEN", "00000000000000000000000000000000", 1);
    if (me >= 0 && me == env_rank("BOOT_TEST_LATE"))
        sleep(30);
    boot_init(&rank, &size);
    if (getenv("BOOT_TEST_SLEEP"))
        sleep((unsigned)atoi(getenv("BOOT_TEST_SLEEP")));
    gather_ranks(rank, size);
    if (rank == env_rank("BOOT_TEST_SEGV"))
        store_to_null();
    if (rank == env_rank("BOOT_TEST_EXIT3"))
        exit(3);
    gather_variable(rank, size);
    boot_finalize();
    printf("ok rank %d of %d\n", rank, size);
    return 0;
}
