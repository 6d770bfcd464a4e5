/*
 * syscall_results_shared: system calls that write their results into
 * global variables which the threads of every node have read (so that the
 * master's copies of their pages are read-only or not held): stat, fstat,
 * getcwd, readlink, pipe, clock_gettime, getrusage, uname and waitpid must
 * succeed and fill them, as they do in one process.
 */
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char cwd[4096], link_target[256];
static struct stat st, fst;
static int fds[2], status;
static struct timespec ts;
static struct rusage ru;
static struct utsname un;
static long seen;

int main(void)
{
#pragma omp parallel for reduction(+ : seen)
    for (int i = 0; i < 64; i++)
        seen += cwd[i] + link_target[i] + (long)st.st_size + (long)fst.st_size + fds[i % 2] + status +
                (long)ts.tv_sec + ru.ru_maxrss + un.sysname[i];

    char here[4096];
    int cwd_ok = getcwd(cwd, sizeof cwd) != NULL && getcwd(here, sizeof here) != NULL && !strcmp(cwd, here);
    int stat_ok = stat("/", &st) == 0 && S_ISDIR(st.st_mode);
    int pipe_ok = pipe(fds) == 0 && fds[0] > 2 && fds[1] > 2;
    int fstat_ok = pipe_ok && fstat(fds[0], &fst) == 0 && S_ISFIFO(fst.st_mode);
    ssize_t n = readlink("/proc/self/exe", link_target, sizeof link_target - 1);
    int readlink_ok = n > 0 && link_target[0] == '/';
    int clock_ok = clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) == 0 && clock_gettime(CLOCK_MONOTONIC, &ts) == 0 &&
                   ts.tv_sec + ts.tv_nsec > 0;
    int rusage_ok = getrusage(RUSAGE_SELF, &ru) == 0 && ru.ru_maxrss > 0;
    int uname_ok = uname(&un) == 0 && !strcmp(un.sysname, "Linux");
    pid_t child = fork();
    if (child == 0)
        _exit(7);
    int wait_ok = child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 7;
    printf("getcwd %d stat %d pipe %d fstat %d readlink %d clock_gettime %d getrusage %d uname %d waitpid %d\n",
           cwd_ok, stat_ok, pipe_ok, fstat_ok, readlink_ok, clock_ok, rusage_ok, uname_ok, wait_ok);
    return 0;
}
