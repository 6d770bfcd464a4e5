/*
 * The progress thread runs at OMPDSM_PROGRESS_NICE (default -10), or at
 * the process's nice value where lowering it is not permitted (without
 * root, CAP_SYS_NICE or an RLIMIT_NICE).  Every node finds its thread named
 * ompdsm-progress in /proc/self/task and checks its nice value.
 */
#include "check.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* The nice value of this process's progress thread. */
static int progress_nice(void)
{
    DIR *d = opendir("/proc/self/task");
    CHECK(d, "cannot list /proc/self/task: %s", strerror(errno));
    struct dirent *e;
    int nice = 99;
    while ((e = readdir(d))) {
        char path[300], comm[32] = "";
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        if (fgets(comm, sizeof comm, f) && !strcmp(comm, "ompdsm-progress\n")) {
            errno = 0;
            nice = getpriority(PRIO_PROCESS, (id_t)atoi(e->d_name));
            CHECK(errno == 0, "getpriority of thread %s: %s", e->d_name, strerror(errno));
        }
        fclose(f);
    }
    closedir(d);
    CHECK(nice != 99, "no thread named ompdsm-progress");
    return nice;
}

int main(int argc, char **argv)
{
    ompdsm_init(&argc, &argv);
    const char *v = getenv("OMPDSM_PROGRESS_NICE");
    int want = v ? atoi(v) : -10, own = getpriority(PRIO_PROCESS, 0), got = progress_nice();
    /* Lowering a nice value needs a privilege; raising it never does. */
    struct rlimit rl;
    getrlimit(RLIMIT_NICE, &rl);
    bool may_lower = geteuid() == 0 || rl.rlim_cur == RLIM_INFINITY || 20 - (long)rl.rlim_cur <= want;
    if (want < own && !may_lower)
        CHECK(got == own, "progress thread at nice %d, wanted the process's %d (not permitted to lower)", got, own);
    else
        CHECK(got == want, "progress thread at nice %d, wanted %d", got, want);
    ompdsm_barrier();
    if (ompdsm_node() == 0)
        printf("progress_nice: %d nodes, progress threads at nice %d\n", ompdsm_nodes(), got);
    ompdsm_finalize();
    return 0;
}
