/*
 * A real NULL dereference in a node is the program's own segfault: the DSM's
 * SIGSEGV handler passes it on, the node dies of SIGSEGV, and the launcher
 * reports it and stops the job instead of hanging.  (With AddressSanitizer
 * the handler it passes it on to is ASan's, which reports the fault and
 * exits with status 1.)  The last node crashes
 * while the others wait at a barrier it never reaches.
 */
#include "check.h"

/* A volatile pointer object: the compiler cannot see it is NULL and turn
 * the store into a trap instruction.  UndefinedBehaviorSanitizer, in a
 * sanitizer build, is not to catch it first: the fault is the point. */
__attribute__((no_sanitize("null"), noinline)) static void store_to_null(void)
{
    volatile int *volatile null = NULL;
    *null = 42;
}

int main(int argc, char **argv)
{
    ompdsm_init(&argc, &argv);
    int *shared = ompdsm_alloc(sizeof(int));
    *shared = 1;
    ompdsm_barrier();
    if (ompdsm_node() == ompdsm_nodes() - 1)
        store_to_null();
    ompdsm_barrier();
    printf("null_deref: survived the crash (wrong)\n");
    ompdsm_finalize();
    return 0;
}
