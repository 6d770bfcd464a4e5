/*
 * sig_user.c: the program's own SIGSEGV handler.
 *
 * The DSM takes every SIGSEGV: its page faults are how it learns of an
 * access to shared memory.  A program that installs a SIGSEGV handler of
 * its own (a crash reporter printing a backtrace, a probe that reads an
 * address under sigsetjmp) would replace it, and the next fault on a
 * shared page would reach the program's handler instead.  So, once the
 * DSM's handler is in place, sigaction() and signal() for SIGSEGV only
 * record the program's handler: the DSM's handler passes it every fault
 * outside shared memory (fault.c), and the calls report the handler the
 * program last set, as they would without the DSM.  Every other signal,
 * and SIGSEGV before the DSM starts and after it stops, goes to the C
 * library.  (AddressSanitizer's sigaction, which comes first, passes the
 * program's calls on to this one.)
 */
#include "dsm.h"
#include "../util/log.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static bool taken;                        /* the DSM's handler is installed */
static struct sigaction program;          /* the program's SIGSEGV disposition */

static int (*next_sigaction)(int, const struct sigaction *, struct sigaction *);

int dsm_real_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    if (!next_sigaction)
        next_sigaction = (int (*)(int, const struct sigaction *, struct sigaction *))dlsym(RTLD_NEXT, "sigaction");
    if (!next_sigaction)
        dsm_fatal("cannot find the C library's sigaction");
    return next_sigaction(sig, act, old);
}

void dsm_sig_take(const struct sigaction *before)
{
    pthread_mutex_lock(&mu);
    program = *before;
    taken = true;
    pthread_mutex_unlock(&mu);
}

void dsm_sig_give_back(struct sigaction *now)
{
    pthread_mutex_lock(&mu);
    *now = program;
    taken = false;
    pthread_mutex_unlock(&mu);
}

void dsm_sig_deliver(struct sigaction *out)
{
    pthread_mutex_lock(&mu);
    *out = program;
    if (program.sa_flags & SA_RESETHAND)
        program.sa_handler = SIG_DFL;   /* the kernel keeps the flags */
    pthread_mutex_unlock(&mu);
}

__attribute__((visibility("default"))) int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    pthread_mutex_lock(&mu);
    if (sig != SIGSEGV || !taken) {
        pthread_mutex_unlock(&mu);
        return dsm_real_sigaction(sig, act, old);
    }
    if (old)
        *old = program;
    if (act)
        program = *act;
    pthread_mutex_unlock(&mu);
    return 0;
}

__attribute__((visibility("default"))) sighandler_t signal(int sig, sighandler_t handler)
{
    struct sigaction act = { .sa_handler = handler, .sa_flags = SA_RESTART }, old;
    sigemptyset(&act.sa_mask);
    if (sigaction(sig, &act, &old))
        return SIG_ERR;
    return (old.sa_flags & SA_SIGINFO) ? (sighandler_t)(void (*)(void))old.sa_sigaction : old.sa_handler;
}
