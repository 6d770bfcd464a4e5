/*
 * fork.c: fork() in a program whose memory is shared.
 *
 * The program's global variables, its heap and node 0's main() stack are
 * mappings of memory files (MAP_SHARED), which a child process inherits as
 * they are: shared with its parent, not copied.  A child that ran on the
 * parent's stack overwrote the frames its parent returned to (a program
 * that forked a child which only called _exit(7) stopped with "stack
 * smashing detected", and read another status), and a child's writes to
 * global variables were its parent's.
 *
 * So fork() runs the C library's fork on a private stack of the runtime.
 * The child maps each shared segment again, privately (copy on write),
 * before it runs anything else of the program; the parent waits for that
 * before it goes back to its stack.  In the child every page of those
 * segments reads as this node's copy had it (what the node did not hold
 * reads as zeros or as it was when the node last held it) and may be
 * written; nothing there is shared any more, the child takes no part in
 * the job, and its exit() runs the program's handlers only.  As after any
 * fork of a process with threads, the child should only exec or _exit
 * (system() and popen() do not fork this way and need none of this).
 */
#include "omp_rt.h"

#include "../dsm/dsm.h"
#include "../util/log.h"
#include "../util/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>
#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/common_interface_defs.h>
#endif

#define API __attribute__((visibility("default")))

enum { FORK_STACK = 256 * 1024 };

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct {
    ucontext_t back, there;
    char *stack;
    int ready[2];               /* the child writes a byte once it has its own memory */
    pid_t pid;
    int err;
    void *fake;                 /* AddressSanitizer's view of the program's stack */
    const void *stack_bottom;
    size_t stack_size;
} fk;
static pid_t node_pid;          /* the node's process; another pid is a forked child */

bool omp_rt_forked_child(void)
{
    return node_pid && getpid() != node_pid;
}

void omp_fork_init(void)
{
    node_pid = getpid();
}

static void fork_there(void)
{
#ifdef __SANITIZE_ADDRESS__
    __sanitizer_finish_switch_fiber(NULL, &fk.stack_bottom, &fk.stack_size);
#endif
    REAL(fork);
    fk.pid = real_fork();
    fk.err = errno;
    char c = 0;
    if (fk.pid == 0) {
        dsm_segments_privatize((uintptr_t)fk.back.uc_mcontext.gregs[REG_RSP]);
        if (write(fk.ready[1], &c, 1) != 1)
            _exit(127);
    } else if (fk.pid > 0) {
        while (read(fk.ready[0], &c, 1) < 0 && errno == EINTR)
            ;
    }
#ifdef __SANITIZE_ADDRESS__
    __sanitizer_start_switch_fiber(NULL, fk.stack_bottom, fk.stack_size);
#endif
}

API pid_t fork(void)
{
    REAL(fork);
    if (!node_pid || omp_rt_forked_child())
        return real_fork();
    pthread_mutex_lock(&mu);
    if (!fk.stack)
        fk.stack = xmalloc(FORK_STACK);
    if (pipe2(fk.ready, O_CLOEXEC))
        dsm_fatal("fork: cannot make a pipe: %s", strerror(errno));
    if (getcontext(&fk.there))
        dsm_fatal("fork: getcontext failed");
    fk.there.uc_stack.ss_sp = fk.stack;
    fk.there.uc_stack.ss_size = FORK_STACK;
    fk.there.uc_link = &fk.back;
    makecontext(&fk.there, fork_there, 0);
    /* getcontext returns again when fork_there is done (uc_link); not
     * swapcontext, which AddressSanitizer warns about. */
    volatile bool back = false;
    if (getcontext(&fk.back))
        dsm_fatal("fork: getcontext failed");
    if (!back) {
        back = true;
#ifdef __SANITIZE_ADDRESS__
        __sanitizer_start_switch_fiber(&fk.fake, fk.stack, FORK_STACK);
#endif
        setcontext(&fk.there);
        dsm_fatal("fork: setcontext failed");
    }
#ifdef __SANITIZE_ADDRESS__
    __sanitizer_finish_switch_fiber(fk.fake, NULL, NULL);
#endif
    pid_t pid = fk.pid;
    int err = fk.err;
    close(fk.ready[0]);
    close(fk.ready[1]);
    pthread_mutex_unlock(&mu);
    errno = err;
    return pid;
}
