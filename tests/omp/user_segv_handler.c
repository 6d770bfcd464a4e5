/*
 * user_segv_handler: a program that installs a SIGSEGV handler of its own,
 * with sigaction() in main() and with signal() in every thread, and probes
 * whether addresses are readable with sigsetjmp and a read that faults.
 * The DSM's own faults on shared pages must go on working around it (the
 * parallel loops write and read shared arrays after the handler is in
 * place), the program's handler must get the faults that are its own, on
 * every node, and sigaction() and signal() must report the handler the
 * program set last; a handler set with SA_RESETHAND runs once.
 */
#include <omp.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#define N 50000

static __thread sigjmp_buf probe_env;
static __thread volatile int in_probe;
static long values[N];

static void on_fault(int sig, siginfo_t *si, void *uc)
{
    (void)si;
    (void)uc;
    if (in_probe)
        siglongjmp(probe_env, sig);
    signal(sig, SIG_DFL);
}

static void on_fault_plain(int sig)
{
    on_fault(sig, NULL, NULL);
}

/* 1 if a long can be read at p, 0 if reading it faults. */
static int readable(const volatile long *p)
{
    in_probe = 1;
    int ok = 0;
    if (sigsetjmp(probe_env, 1) == 0) {
        (void)*p;
        ok = 1;
    }
    in_probe = 0;
    return ok;
}

int main(void)
{
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGSEGV, NULL, &old);
    printf("sigaction reports the handler set: %d\n", (old.sa_flags & SA_SIGINFO) && old.sa_sigaction == on_fault);
    printf("master: bad address readable %d, shared array readable %d\n", readable((long *)16), readable(values));

#pragma omp parallel for schedule(static)
    for (int i = 0; i < N; i++)
        values[i] = 3L * i;

    int bad = 0, good = 0;
#pragma omp parallel reduction(+ : bad, good)
    {
        signal(SIGSEGV, on_fault_plain);
        bad += readable((long *)24);
        good += readable(&values[(omp_get_thread_num() * 977) % N]);
    }
    printf("threads: bad addresses readable %d, shared values readable %d of %d\n", bad, good,
           omp_get_max_threads());
    void (*previous)(int) = signal(SIGSEGV, SIG_DFL);
    printf("signal reports the last handler: %d\n", previous == on_fault_plain);

    /* A handler for one fault (SA_RESETHAND): the disposition is the
     * default again once it ran, with the flags the program gave. */
    sa.sa_flags = SA_SIGINFO | SA_RESETHAND;
    sigaction(SIGSEGV, &sa, NULL);
    int once = readable((long *)32);
    sigaction(SIGSEGV, NULL, &old);
    printf("one-shot handler: readable %d, then default %d, flags kept %d\n", once, old.sa_handler == SIG_DFL,
           (old.sa_flags & SA_RESETHAND) != 0);

    long sum = 0;
#pragma omp parallel for reduction(+ : sum)
    for (int i = 0; i < N; i++)
        sum += values[i];
    printf("sum %ld\n", sum);
    return 0;
}
