/*
 * start.c: how an OpenMP program starts and ends on every node.
 *
 * ompdsm-cc links the program with -Wl,--wrap=main and a small static
 * object whose __wrap_main() calls omp_rt_start() with the real main and the
 * bounds of the executable's writable data.  Then, on every node:
 *   1. the DSM starts, with the program's globals as a shared segment whose
 *      home is node 0;
 *   2. node 0 runs main() on a stack in the shared region (homed at node 0),
 *      so the shared locals of main that parallel regions use are reachable
 *      from every node;
 *   3. the other nodes wait for parallel regions (parallel.c), on a thread
 *      other than their initial one (tls_mirror.c says why);
 *   4. when node 0 exits (main returns or exit() is called) outside parallel
 *      regions, the exit status travels to every node with a last barrier;
 *      all leave the job and exit with that status.  exit() inside a
 *      parallel region, on any node, ends the job another way (exit.c).
 *
 * main() never returns to the C library's start-up on the original stack:
 * run_main() calls exit() with its status, as the C library would, from the
 * shared stack.  So there is no context to switch back to, and the switch
 * is a setcontext(), which AddressSanitizer leaves alone (it warns about
 * every swapcontext()).  It is told about the new stack instead
 * (sanitizer_switch_stack), so that it knows which stack main() runs on.
 */
#include "loop.h"
#include "omp_rt.h"

#include "ompdsm.h"
#include "../dsm/dsm.h"
#include "../profiler/prof.h"
#include "../util/log.h"

#include <dlfcn.h>
#include <link.h>

#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/common_interface_defs.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <stdnoreturn.h>
#include <sys/auxv.h>
#include <ucontext.h>
#include <unistd.h>

#define MAIN_STACK_SIZE (64UL << 20)

struct omp_rt omp_rt;

static struct {
    int (*main)(int, char **, char **);
    int argc;
    char **argv, **envp;
    ucontext_t callee;
} boot;

/* Tells AddressSanitizer that this thread leaves its stack for good and
 * continues on [stack, stack + size) (start), and that it got there
 * (finish).  Otherwise ASan would go on believing that main() runs on the
 * thread's original stack: before a noreturn call such as exit() it could
 * not clear the redzones it poisoned on the shared stack, and would warn
 * that false reports may follow. */
static void sanitizer_switch_stack_start(void *stack, size_t size)
{
#ifdef __SANITIZE_ADDRESS__
    __sanitizer_start_switch_fiber(NULL, stack, size);
#else
    (void)stack;
    (void)size;
#endif
}

static void sanitizer_switch_stack_finish(void)
{
#ifdef __SANITIZE_ADDRESS__
    __sanitizer_finish_switch_fiber(NULL, NULL, NULL);
#endif
}

static noreturn void run_main(void)
{
    sanitizer_switch_stack_finish();
    exit(boot.main(boot.argc, boot.argv, boot.envp));
}

/* Runs main() on a stack in the shared region; never returns. */
static noreturn void main_on_shared_stack(void *stack, size_t size)
{
    if (getcontext(&boot.callee))
        dsm_fatal("getcontext failed");
    boot.callee.uc_stack.ss_sp = stack;
    boot.callee.uc_stack.ss_size = size;
    boot.callee.uc_link = NULL;
    makecontext(&boot.callee, run_main, 0);
    sanitizer_switch_stack_start(stack, size);
    setcontext(&boot.callee);
    dsm_fatal("setcontext failed");
}

/* A node other than 0: its first OpenMP thread waits for regions; it
 * leaves the job from there. */
static void *first_thread(void *arg)
{
    (void)arg;
    dsm_fault_thread_init();
    int status = omp_rt_worker_loop();
    omp_pool_quiesce();
    prof_report();
    ompdsm_finalize();
    /* Not exit(): the program's destructors and atexit handlers belong
     * to node 0, which runs main(). */
    fflush(NULL);
    _exit(status);
}

/* The node's first OpenMP thread is not its initial thread, whose block
 * of threadprivate variables mirrors node 0's (tls_mirror.c); the initial
 * thread waits until that one leaves the job for both. */
static noreturn void wait_for_regions(void)
{
    omp_thread_start(first_thread, NULL, "node's first OpenMP thread");
    for (;;)
        pause();
}

/* A node leaving through exit(): node 0 outside parallel regions (main
 * returned, or exit() was called) takes the others along, which wait for
 * regions; inside a region, on any node, see exit.c.  A child the program
 * forked leaves alone (fork.c). */
static void at_exit(int status, void *arg)
{
    (void)arg;
    if (omp_rt_forked_child())
        return;
    if (omp_rt.node != 0)
        omp_exit_at_node0(status);
    if (omp_rt.in_team)
        omp_exit_job(status);
    omp_rt_broadcast_exit(status);
    omp_pool_quiesce();
    omp_profiled_save();
    prof_report();
    ompdsm_finalize();
}

/* The end of the executable's writable data, when the program cannot name
 * it (data_end NULL): that of its last writable loadable segment, from its
 * program headers.  Past 2 GB of static data (-mcmodel=medium: .lbss) the
 * executable's _end is out of reach of wrap_main.c's small-model code. */
static uintptr_t exe_data_end(void)
{
    const ElfW(Phdr) *ph = (const ElfW(Phdr) *)getauxval(AT_PHDR);
    size_t n = getauxval(AT_PHNUM);
    uintptr_t base = 0, end = 0;
    for (size_t i = 0; i < n; i++)
        if (ph[i].p_type == PT_PHDR)
            base = (uintptr_t)ph - ph[i].p_vaddr;
    for (size_t i = 0; i < n; i++)
        if (ph[i].p_type == PT_LOAD && (ph[i].p_flags & PF_W) && base + ph[i].p_vaddr + ph[i].p_memsz > end)
            end = base + ph[i].p_vaddr + ph[i].p_memsz;
    if (!end)
        dsm_fatal("cannot find the program's writable data in its program headers");
    return end;
}

__attribute__((visibility("default"))) int omp_rt_start(int argc, char **argv, char **envp,
                                                      int (*real_main)(int, char **, char **),
                                                      char *data_start, char *data_end)
{
    Dl_info exe;
    if (dladdr((void *)real_main, &exe))
        omp_rt.exe_base = (uintptr_t)exe.dli_fbase;
    omp_exit_init(stdout, stderr);
    dsm_set_globals((uintptr_t)data_start, data_end ? (uintptr_t)data_end : exe_data_end());
    ompdsm_init(&argc, &argv);
    omp_rt.node = ompdsm_node();
    omp_rt.nodes = ompdsm_nodes();
    omp_rt.team = 1;
    /* The shared heap takes half of the region, main()'s stack comes out of
     * the other half. */
    if (dsm_cfg.region_size < 4 * (size_t)MAIN_STACK_SIZE)
        dsm_fatal("OMPDSM_REGION_SIZE=%zuM is too small for an OpenMP program: main()'s shared stack takes "
                  "%luM and the shared heap half of the region; use at least %luM",
                  dsm_cfg.region_size >> 20, MAIN_STACK_SIZE >> 20, 4 * (MAIN_STACK_SIZE >> 20));
    omp_env_load();
    omp_rt_flush_check_cpu();
    omp_heap_init();
    omp_rt_register();
    omp_task_register();
    void *stack = dsm_alloc_pinned(MAIN_STACK_SIZE);
    omp_tls_mirror_init();
    omp_files_init();
    omp_proc_state_init();
    omp_fork_init();
    on_exit(at_exit, NULL);
    if (omp_rt.node != 0)
        wait_for_regions();
    boot.main = real_main;
    boot.argc = argc;
    boot.argv = argv;
    boot.envp = envp;
    main_on_shared_stack(stack, MAIN_STACK_SIZE);
}
