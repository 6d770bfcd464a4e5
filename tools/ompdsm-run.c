/*
 * ompdsm-run.c: the local launcher.  Starts N nodes of a program on this
 * machine, serves their bootstrap collectives, and supervises them.
 *
 * Owns the nodes (child processes) and one bootstrap connection per node.
 * The wire format is the one of net/boot_wire.h, which the library's
 * bootstrap includes too (this program does not link the library).
 *
 * Everything happens in one poll loop: the listening socket, connections that
 * have not yet said HELLO ("strangers"), node connections, and a self-pipe on
 * which the signal handler writes the number of every signal (SIGCHLD,
 * SIGINT, SIGTERM).  Deadlines (job timeout, boot timeout, HELLO timeout)
 * are poll timeouts; nothing ever spins.
 *
 * Invariants:
 *   - a node counts as alive until waitpid() has returned its pid; the
 *     launcher never exits while a node is alive (no orphans: teardown()
 *     reaps every child, and each child has PR_SET_PDEATHSIG in case the
 *     launcher itself is killed);
 *   - the first failure wins: fail() prints one line naming the node and the
 *     cause, tears the job down, and exits; later deaths (nodes that notice
 *     the teardown) are not reported;
 *   - the end of the program is no failure: a node that has finalized, or
 *     any node once one has announced exit(status) inside a parallel region
 *     (BOOT_TAG_EXIT), leaves with the program's status, which becomes ours;
 *     the other nodes of a job ended by BOOT_TAG_EXIT are stopped without a
 *     word once the announcing node is gone (it waited until every node had
 *     written out its output);
 *   - a collective completes when every node has a complete request pending;
 *     the same reply buffer is then queued to every node (reference counted),
 *     written without blocking so that a stuck node cannot stall supervision.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdnoreturn.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../net/boot_wire.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "0.1"
#endif

#define MAX_REQUEST (256u << 20)        /* bytes of one node in one collective */
#define HELLO_TIMEOUT_MS 10000
#define KILL_GRACE_MS 2000
#define MAX_STRANGERS 64

struct reply {
    int refs;
    size_t len;
    unsigned char bytes[];
};

struct node {
    pid_t pid;
    bool alive;                 /* started and not yet reaped */
    bool reaped;                /* reaped in the batch being judged, with its status */
    int status;
    int fd;                     /* bootstrap connection, -1 if none (yet) */
    bool connected, finalized;
    unsigned char hdr[BOOT_REQ_HDR_LEN];
    size_t hdr_got;
    uint32_t tag;
    uint64_t len, got;
    unsigned char *data;
    bool pending;               /* a complete request waits for the others */
    struct reply *out;          /* reply being written, from out_off on */
    size_t out_off;
};

struct stranger {
    int fd;                     /* -1: free slot */
    unsigned char buf[BOOT_HELLO_LEN];
    size_t got;
    long long deadline;
};

static struct {
    int np;
    const char *bind_addr, *timeout_arg, *boot_timeout_arg, *exec_prefix;
    double timeout, boot_timeout;
    char **argv;
    bool bind_core;
    int ncpus, *cpus;           /* --bind-to core: the CPUs we may run on */
    int threads;                /* --threads-per-node, 0 if not given */
    char token[BOOT_TOKEN_LEN + 1];
    char boot_env[INET6_ADDRSTRLEN + 16];
    int listen_fd, sig_pipe[2];
    struct node *nodes;
    struct stranger strangers[MAX_STRANGERS];
    int nconnected, nalive;
    long long job_deadline, boot_deadline;
    char *program;              /* PROGRAM, as found in PATH */
    bool ending;                /* a node announced exit(status) (BOOT_TAG_EXIT) */
    int announcer;              /* that node */
    int status;                 /* the program's exit status, ours at the end */
} job = { .listen_fd = -1, .sig_pipe = { -1, -1 } };

static void teardown(void);

/* ---- messages and time -------------------------------------------------- */

static void say(const char *fmt, va_list ap)
{
    char buf[1024];
    vsnprintf(buf, sizeof buf, fmt, ap);
    fprintf(stderr, "ompdsm-run: %s\n", buf);
}

static void note(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say(fmt, ap);
    va_end(ap);
}

/* Command-line mistakes: nothing has been started yet. */
static noreturn void usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say(fmt, ap);
    va_end(ap);
    fputs("Try 'ompdsm-run --help'.\n", stderr);
    exit(2);
}

/* The one failure path once nodes run: report, stop every node, exit. */
static noreturn void fail(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say(fmt, ap);
    va_end(ap);
    teardown();
    exit(code);
}

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- command line -------------------------------------------------------- */

static const char help_text[] =
"NAME\n"
"    ompdsm-run - run an ompdsm program as several nodes on this machine\n"
"\n"
"SYNOPSIS\n"
"    ompdsm-run [OPTIONS] -np N PROGRAM [ARGS...]\n"
"\n"
"DESCRIPTION\n"
"    Starts N processes (nodes) of PROGRAM, which is found in PATH if its\n"
"    name has no slash.  Every node gets the same argv and the same\n"
"    environment, and the same address-space layout (address randomisation\n"
"    is turned off for the nodes); the node number travels through a private\n"
"    bootstrap channel, a TCP connection to ompdsm-run guarded by a random\n"
"    per-job token.  Node 0 reads the standard input; the other nodes read\n"
"    /dev/null.  Standard output and error are shared by all nodes.\n"
"\n"
"    If a node dies (killed by a signal, non-zero exit status, or exit\n"
"    before the end of the job), ompdsm-run names it, stops the other nodes\n"
"    (SIGTERM, then SIGKILL after 2 seconds) and exits with a status\n"
"    derived from the failed node.  No node outlives ompdsm-run.  The end\n"
"    of the program (main() returns, or exit() is called, also inside a\n"
"    parallel region) is no failure: every node writes out its output and\n"
"    ompdsm-run exits silently with the program's status.  PROGRAM must be\n"
"    built with ompdsm-cc (or linked with -lompdsm); ompdsm-run refuses\n"
"    one that is not.\n"
"\n"
"OPTIONS\n"
"    -np N, -n N, --np N\n"
"        Number of nodes, 1 to 4096.  Required.\n"
"    --bind ADDR\n"
"        Address on which the bootstrap channel listens (default\n"
"        127.0.0.1).  The nodes connect to it.\n"
"    --timeout SEC\n"
"        Stop the job if it runs longer than SEC seconds; exit status 124.\n"
"    --boot-timeout SEC\n"
"        Stop the job if some node has not joined within SEC seconds\n"
"        (default: OMPDSM_BOOT_TIMEOUT, or 30).\n"
"    --threads-per-node T\n"
"        Run T OpenMP threads on each node, 1 to 1024: a team has up to\n"
"        N x T threads (sets OMPDSM_THREADS_PER_NODE for every node).\n"
"        Without this option or the variable, OMP_NUM_THREADS=k gives\n"
"        each node k / N threads, rounded up; without it either, each\n"
"        node runs a thread per CPU it may run on, the nodes sharing the\n"
"        CPUs they have in common: N nodes started here without binding\n"
"        run n / N threads each (at least 1), where n is the number of\n"
"        CPUs ompdsm-run may run on.\n"
"    --bind-to core|none\n"
"        core: bind node i to T CPUs (T threads per node; by default\n"
"        n / N, at least 1),\n"
"        the (i*T mod n)-th to the (i*T+T-1 mod n)-th of the n CPUs\n"
"        ompdsm-run may run on (all online CPUs unless it was started\n"
"        under taskset or in a restricted cpuset), so node 0 runs on the\n"
"        first such CPUs, node 1 on the next, and so on, wrapping around\n"
"        when there are more threads than CPUs.  The binding is made\n"
"        before the node's program (or --exec-prefix command) starts and\n"
"        covers every thread of the node.  none (the default): no\n"
"        binding.\n"
"    --exec-prefix 'CMD [ARG...]'\n"
"        Start each node as CMD ARG... PROGRAM ARGS... instead of PROGRAM\n"
"        ARGS...  The string is split into words at blanks (no quoting);\n"
"        in every word %r is replaced by the node number and %% by %.  CMD\n"
"        must end by executing its arguments in the same process (exec),\n"
"        as env, taskset, numactl and ip netns exec do, so that\n"
"        ompdsm-run supervises the node itself.  Use it to run each node\n"
"        in its own network namespace (see EXAMPLES) or under a tool.\n"
"        Every node must still get the same environment: give any\n"
"        per-node setting values of one length.\n"
"    -h, --help\n"
"        Print this help and exit.\n"
"    --version\n"
"        Print the version and exit.\n"
"\n"
"ENVIRONMENT\n"
"    OMPDSM_* variables (region size, page size, home policy, statistics,\n"
"    ...) are passed through unchanged to every node; see the table in the\n"
"    README.  OMPDSM_BOOT_TIMEOUT is also read by ompdsm-run itself.\n"
"    OMPDSM_NODE_TIMEOUT (default 30 seconds) bounds how long the nodes\n"
"    wait for a node that stops responding without dying (a stopped or\n"
"    hung process); a node that dies is seen at once.\n"
"    ompdsm-run sets OMPDSM_BOOTSTRAP, OMPDSM_JOB_TOKEN, OMPDSM_RANK and\n"
"    OMPDSM_SIZE for each node; they are not meant to be set by users.\n"
"\n"
"EXIT STATUS\n"
"    X        the program's: what main() returned or exit() was given\n"
"             (also inside a parallel region, on any node)\n"
"    X        a node failed with status X\n"
"    128+S    a node was killed by signal S, or ompdsm-run received S\n"
"    1        a node left early, a node did not join in time, a\n"
"             bootstrap protocol error, or PROGRAM was not built with\n"
"             ompdsm-cc (nor linked with -lompdsm)\n"
"    2        bad command line\n"
"    124      --timeout expired\n"
"    127      PROGRAM cannot be executed\n"
"\n"
"EXAMPLES\n"
"    ompdsm-run -np 4 ./jacobi 1024\n"
"    OMPDSM_STATS=1 ompdsm-run -np 2 --timeout 60 ./prog\n"
"    ompdsm-run -np 2 --bind-to core ./prog\n"
"\n"
"    Nodes in network namespaces ns0, ns1 (each with a device eth0 and\n"
"    a route to 10.1.0.254, the address of the launcher's side), over\n"
"    UCX tcp:\n"
"    UCX_TLS=tcp UCX_NET_DEVICES=eth0 ompdsm-run -np 2 --bind 10.1.0.254 \\\n"
"        --exec-prefix 'ip netns exec ns%r' ./prog\n";

static int parse_count(const char *what, const char *s, int max)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < 1 || v > max)
        usage_error("invalid number of %s '%s' (must be 1 to %d)", what, s, max);
    return (int)v;
}

static double parse_seconds(const char *what, const char *s)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v) || v <= 0 || v > 1e9)
        usage_error("invalid %s '%s' (must be a positive number of seconds)", what, s);
    return v;
}

/* Matches argv[*i] against an option taking a value, as "NAME VALUE" or
 * "NAME=VALUE".  Returns the value, or NULL if argv[*i] is another option. */
static const char *opt_value(int argc, char **argv, int *i, const char *name)
{
    size_t n = strlen(name);
    const char *a = argv[*i];
    if (strncmp(a, name, n) != 0)
        return NULL;
    if (a[n] == '=')
        return a + n + 1;
    if (a[n] != '\0')
        return NULL;
    if (*i + 1 >= argc)
        usage_error("option '%s' needs a value", name);
    return argv[++*i];
}

static void parse_args(int argc, char **argv)
{
    const char *v;
    int i = 1;
    job.bind_addr = "127.0.0.1";
    job.boot_timeout_arg = getenv("OMPDSM_BOOT_TIMEOUT");
    for (; i < argc && argv[i][0] == '-'; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(help_text, stdout);
            exit(0);
        } else if (strcmp(a, "--version") == 0) {
            printf("ompdsm-run (ompdsm) %s\n", PACKAGE_VERSION);
            exit(0);
        } else if ((v = opt_value(argc, argv, &i, "-np")) ||
                   (v = opt_value(argc, argv, &i, "-n")) ||
                   (v = opt_value(argc, argv, &i, "--np"))) {
            job.np = parse_count("nodes", v, BOOT_MAX_NODES);
        } else if ((v = opt_value(argc, argv, &i, "--threads-per-node"))) {
            job.threads = parse_count("threads per node", v, 1024);
        } else if ((v = opt_value(argc, argv, &i, "--bind"))) {
            job.bind_addr = v;
        } else if ((v = opt_value(argc, argv, &i, "--timeout"))) {
            job.timeout_arg = v;
        } else if ((v = opt_value(argc, argv, &i, "--boot-timeout"))) {
            job.boot_timeout_arg = v;
        } else if ((v = opt_value(argc, argv, &i, "--bind-to"))) {
            if (strcmp(v, "core") != 0 && strcmp(v, "none") != 0)
                usage_error("invalid --bind-to '%s' (must be core or none)", v);
            job.bind_core = strcmp(v, "core") == 0;
        } else if ((v = opt_value(argc, argv, &i, "--exec-prefix"))) {
            job.exec_prefix = v;
        } else {
            usage_error("unknown option '%s'", a);
        }
    }
    if (job.np == 0)
        usage_error("missing the number of nodes (-np N)");
    if (i >= argc)
        usage_error("missing the program to run");
    if (job.threads) {
        char t[16];
        snprintf(t, sizeof t, "%d", job.threads);
        setenv("OMPDSM_THREADS_PER_NODE", t, 1);
    }
    if (job.timeout_arg)
        job.timeout = parse_seconds("timeout", job.timeout_arg);
    job.boot_timeout = job.boot_timeout_arg && *job.boot_timeout_arg
        ? parse_seconds("boot timeout", job.boot_timeout_arg) : 30;
    job.argv = argv + i;
}

/* Fails the way execvp would, but before any node is started; records the
 * path found in job.program. */
static void check_program(const char *prog)
{
    int err = ENOENT;
    if (strchr(prog, '/')) {
        struct stat st;
        if (stat(prog, &st) == 0)
            err = S_ISDIR(st.st_mode) ? EISDIR : access(prog, X_OK) ? errno : 0;
        job.program = strdup(prog);
    } else if (*prog) {
        const char *path = getenv("PATH");
        char buf[PATH_MAX];
        if (path == NULL)
            path = "/bin:/usr/bin";
        for (const char *p = path; err != 0; p++) {
            const char *end = strchrnul(p, ':');
            int n = (int)(end - p);
            struct stat st;
            snprintf(buf, sizeof buf, "%.*s%s%s", n, p, n ? "/" : "", prog);
            if (stat(buf, &st) == 0 && S_ISREG(st.st_mode))
                err = access(buf, X_OK) == 0 ? 0 : EACCES;
            if (err == 0)
                job.program = strdup(buf);
            if (*end == '\0')
                break;
            p = end;
        }
    }
    if (err) {
        fprintf(stderr, "ompdsm-run: cannot execute '%s': %s\n", prog, strerror(err));
        exit(127);
    }
}

/* ---- is PROGRAM an ompdsm program? ----------------------------------------- */

static bool read_at(int fd, void *buf, size_t len, uint64_t off)
{
    return pread(fd, buf, len, (off_t)off) == (ssize_t)len;
}

/* The file offset of virtual address v, from the loadable segments. */
static bool file_offset(const Elf64_Phdr *ph, int n, uint64_t v, uint64_t *off)
{
    for (int i = 0; i < n; i++)
        if (ph[i].p_type == PT_LOAD && v >= ph[i].p_vaddr && v < ph[i].p_vaddr + ph[i].p_filesz) {
            *off = v - ph[i].p_vaddr + ph[i].p_offset;
            return true;
        }
    return false;
}

/* Whether a DT_NEEDED entry of the dynamic section names libompdsm. */
static bool needs_ompdsm(int fd, const Elf64_Phdr *ph, int n, const Elf64_Phdr *dyn)
{
    size_t count = (size_t)(dyn->p_filesz / sizeof(Elf64_Dyn));
    Elf64_Dyn *d = calloc(count + 1, sizeof *d);
    uint64_t strtab = 0, strsz = 0, off;
    bool found = false;
    if (d == NULL || !read_at(fd, d, count * sizeof *d, dyn->p_offset))
        count = 0;
    for (size_t i = 0; i < count; i++) {
        if (d[i].d_tag == DT_STRTAB)
            strtab = d[i].d_un.d_ptr;
        else if (d[i].d_tag == DT_STRSZ)
            strsz = d[i].d_un.d_val;
    }
    char *str = strsz && strsz < (64u << 20) ? malloc(strsz + 1) : NULL;
    if (str && file_offset(ph, n, strtab, &off) && read_at(fd, str, strsz, off)) {
        str[strsz] = '\0';
        for (size_t i = 0; i < count && !found; i++)
            if (d[i].d_tag == DT_NEEDED && d[i].d_un.d_val < strsz)
                found = strncmp(str + d[i].d_un.d_val, "libompdsm", 9) == 0;
    }
    free(str);
    free(d);
    return found;
}

/* Whether the file holds the name of the variable that tells a node where
 * the launcher is: a program that carries the bootstrap client itself (the
 * bootstrap tests' node) joins the job without libompdsm. */
static bool has_bootstrap_client(int fd)
{
    static const char key[] = "OMPDSM_BOOTSTRAP";
    char buf[65536 + sizeof key];
    size_t keep = 0;
    ssize_t n;
    while ((n = read(fd, buf + keep, sizeof buf - keep)) > 0) {
        size_t len = keep + (size_t)n;
        if (memmem(buf, len, key, sizeof key - 1))
            return true;
        keep = len < sizeof key ? len : sizeof key - 1;
        memmove(buf, buf + len - keep, keep);
    }
    return false;
}

/* 1 if the 64-bit ELF executable at path can join a job (it loads
 * libompdsm, or carries the bootstrap client), 0 if it cannot, -1 if that
 * cannot be told (a script, another format). */
static int uses_ompdsm(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    Elf64_Ehdr eh;
    int verdict = -1;
    if (fd < 0)
        return -1;
    if (read_at(fd, &eh, sizeof eh, 0) && memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 &&
        eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_phentsize == sizeof(Elf64_Phdr) && eh.e_phnum < 256) {
        Elf64_Phdr ph[256];
        if (read_at(fd, ph, eh.e_phnum * sizeof *ph, eh.e_phoff)) {
            verdict = 0;
            for (int i = 0; i < eh.e_phnum && verdict == 0; i++)
                if (ph[i].p_type == PT_DYNAMIC)
                    verdict = needs_ompdsm(fd, ph, eh.e_phnum, &ph[i]);
            if (verdict == 0 && has_bootstrap_client(fd))
                verdict = 1;
        }
    }
    close(fd);
    return verdict;
}

/* A program that does not use libompdsm would run whole on every node,
 * each alone, and never join the job: say so before starting anything. */
static void check_ompdsm_program(void)
{
    if (job.program && uses_ompdsm(job.program) == 0) {
        note("'%s' was not built with ompdsm-cc (it does not use libompdsm): build it with ompdsm-cc, "
             "or link it with -lompdsm and call ompdsm_init()", job.argv[0]);
        exit(1);
    }
}

/* ---- setup --------------------------------------------------------------- */

static void make_token(void)
{
    unsigned char raw[BOOT_TOKEN_LEN / 2];
    if (getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw) {
        note("cannot get random bytes for the job token: %s", strerror(errno));
        exit(1);
    }
    for (size_t i = 0; i < sizeof raw; i++)
        snprintf(job.token + 2 * i, 3, "%02x", raw[i]);
}

/* Listens on an ephemeral port of --bind and records "ADDR:PORT". */
static void listen_bootstrap(void)
{
    struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
                              .ai_flags = AI_PASSIVE | AI_NUMERICSERV }, *ai;
    int rc = getaddrinfo(job.bind_addr, "0", &hints, &ai);
    if (rc != 0)
        usage_error("cannot use --bind '%s': %s", job.bind_addr, gai_strerror(rc));
    int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0 || bind(fd, ai->ai_addr, ai->ai_addrlen) < 0 || listen(fd, SOMAXCONN) < 0) {
        note("cannot listen on %s: %s", job.bind_addr, strerror(errno));
        exit(1);
    }
    freeaddrinfo(ai);
    struct sockaddr_storage sa;
    socklen_t salen = sizeof sa;
    char host[INET6_ADDRSTRLEN], port[8];
    if (getsockname(fd, (struct sockaddr *)&sa, &salen) < 0 ||
        getnameinfo((struct sockaddr *)&sa, salen, host, sizeof host, port, sizeof port,
                    NI_NUMERICHOST | NI_NUMERICSERV) != 0) {
        note("cannot get the bootstrap address: %s", strerror(errno));
        exit(1);
    }
    /* Zero-padded, so that every job gives its nodes environments of one size. */
    snprintf(job.boot_env, sizeof job.boot_env,
             sa.ss_family == AF_INET6 ? "[%s]:%05d" : "%s:%05d", host, atoi(port));
    job.listen_fd = fd;
}

static void on_signal(int sig)
{
    int saved = errno;
    unsigned char b = (unsigned char)sig;
    ssize_t w = write(job.sig_pipe[1], &b, 1);
    (void)w;
    errno = saved;
}

/* The nodes get the dispositions the launcher was started with; a signal the
 * launcher's caller ignores (SIGINT in a background job) stays ignored. */
static const int caught[] = { SIGCHLD, SIGINT, SIGTERM };
static struct sigaction inherited[3];

static void install_signals(void)
{
    if (pipe2(job.sig_pipe, O_CLOEXEC | O_NONBLOCK) < 0) {
        note("pipe: %s", strerror(errno));
        exit(1);
    }
    struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESTART | SA_NOCLDSTOP };
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < 3; i++) {
        sigaction(caught[i], NULL, &inherited[i]);
        if (caught[i] == SIGCHLD || inherited[i].sa_handler != SIG_IGN)
            sigaction(caught[i], &sa, NULL);
    }
}

static void set_env_number(const char *name, int v)
{
    char buf[16];
    snprintf(buf, sizeof buf, "%05d", v);
    setenv(name, buf, 1);
}

/* --bind-to core: the CPUs this process may run on, in increasing order.
 * Taken from our own affinity rather than the online CPUs so that a
 * launcher started under taskset or in a cpuset binds within its share. */
static void read_cpus(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) < 0) {
        note("cannot read the CPU affinity for --bind-to core: %s", strerror(errno));
        exit(1);
    }
    job.cpus = malloc(CPU_SETSIZE * sizeof *job.cpus);
    if (job.cpus == NULL) {
        note("out of memory");
        exit(1);
    }
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &set))
            job.cpus[job.ncpus++] = c;
}

/* In the child: binds node `rank` to its CPUs, one per OpenMP thread;
 * every thread the program starts later inherits the binding. */
static void bind_node(int rank)
{
    cpu_set_t set;
    const char *t = getenv("OMPDSM_THREADS_PER_NODE");
    int share = job.ncpus / job.np > 0 ? job.ncpus / job.np : 1;
    int threads = t && atoi(t) > 0 ? atoi(t) : share, first = job.cpus[rank * threads % job.ncpus];
    CPU_ZERO(&set);
    for (int k = 0; k < threads; k++)
        CPU_SET(job.cpus[(rank * threads + k) % job.ncpus], &set);
    if (sched_setaffinity(0, sizeof set, &set) < 0) {
        fprintf(stderr, "ompdsm-run: node %d: cannot bind to CPU %d and the next %d: %s\n",
                rank, first, threads - 1, strerror(errno));
        _exit(1);
    }
}

/* The word of --exec-prefix with %r replaced by `rank` and %% by %. */
static char *expand_word(const char *w, size_t len, int rank)
{
    char *out = malloc(2 * len + 1), *o = out;   /* "%r" becomes at most 4 digits */
    if (out == NULL)
        return NULL;
    for (size_t i = 0; i < len; i++) {
        if (w[i] == '%' && i + 1 < len && w[i + 1] == 'r') {
            o += sprintf(o, "%d", rank);
            i++;
        } else if (w[i] == '%' && i + 1 < len && w[i + 1] == '%') {
            *o++ = '%';
            i++;
        } else {
            *o++ = w[i];
        }
    }
    *o = '\0';
    return out;
}

/* The argv node `rank` executes: the words of --exec-prefix, if any, then
 * the program and its arguments.  Built in the child, which is about to
 * exec, so nothing is freed. */
static char **node_argv(int rank)
{
    size_t nargs = 0, nwords = 0;
    while (job.argv[nargs])
        nargs++;
    const char *p = job.exec_prefix ? job.exec_prefix : "";
    char **av = malloc((strlen(p) / 2 + 1 + nargs + 1) * sizeof *av);
    if (av == NULL)
        return NULL;
    while (*(p += strspn(p, " \t"))) {
        size_t len = strcspn(p, " \t");
        if ((av[nwords++] = expand_word(p, len, rank)) == NULL)
            return NULL;
        p += len;
    }
    memcpy(av + nwords, job.argv, (nargs + 1) * sizeof *av);
    return av;
}

/* In the child: becomes node `rank`.  Never returns. */
static noreturn void exec_node(int rank, pid_t launcher, const sigset_t *old_mask)
{
    for (int i = 0; i < 3; i++)
        sigaction(caught[i], &inherited[i], NULL);
    sigprocmask(SIG_SETMASK, old_mask, NULL);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != launcher)      /* the launcher died before prctl */
        _exit(1);
    if (rank != 0) {
        int fd = open("/dev/null", O_RDONLY);
        if (fd >= 0 && fd != STDIN_FILENO) {
            dup2(fd, STDIN_FILENO);
            close(fd);
        }
    }
    setenv("OMPDSM_BOOTSTRAP", job.boot_env, 1);
    setenv("OMPDSM_JOB_TOKEN", job.token, 1);
    set_env_number("OMPDSM_RANK", rank);
    set_env_number("OMPDSM_SIZE", job.np);
    /* Identical layouts let the program's globals live at one address on all nodes. */
    int pers = personality(0xffffffff);
    if (pers != -1)
        personality((unsigned long)pers | ADDR_NO_RANDOMIZE);
    if (job.bind_core)
        bind_node(rank);
    char **av = node_argv(rank);
    if (av == NULL) {
        fprintf(stderr, "ompdsm-run: node %d: out of memory\n", rank);
        _exit(1);
    }
    execvp(av[0], av);
    fprintf(stderr, "ompdsm-run: node %d: cannot execute '%s': %s\n",
            rank, av[0], strerror(errno));
    _exit(127);
}

/* Signals stay blocked across fork so that no handler runs in the child
 * before it has restored the defaults. */
static void start_nodes(void)
{
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGCHLD);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    pid_t self = getpid();
    fflush(NULL);
    for (int r = 0; r < job.np; r++) {
        sigprocmask(SIG_BLOCK, &block, &old);
        pid_t pid = fork();
        if (pid == 0)
            exec_node(r, self, &old);
        if (pid > 0) {
            job.nodes[r].pid = pid;
            job.nodes[r].alive = true;
            job.nalive++;
        }
        sigprocmask(SIG_SETMASK, &old, NULL);
        if (pid < 0)
            fail(1, "cannot start node %d: %s", r, strerror(errno));
    }
}

/* ---- teardown and reaping ------------------------------------------------ */

static int rank_of(pid_t pid)
{
    for (int r = 0; r < job.np; r++)
        if (job.nodes[r].alive && job.nodes[r].pid == pid)
            return r;
    return -1;
}

/* Reaps the nodes that have exited, recording their status for
 * judge_exits() if asked. */
static void reap(bool block, bool record)
{
    int st;
    pid_t pid;
    while (job.nalive > 0 && (pid = waitpid(-1, &st, block ? 0 : WNOHANG)) > 0) {
        int r = rank_of(pid);
        if (r < 0)
            continue;
        job.nodes[r].alive = false;
        job.nalive--;
        if (record) {
            job.nodes[r].status = st;
            job.nodes[r].reaped = true;
        }
    }
}

static void signal_nodes(int sig)
{
    for (int r = 0; r < job.np; r++)
        if (job.nodes[r].alive)
            kill(job.nodes[r].pid, sig);
}

/* Returns a terminating signal read from the self-pipe, 0 if none; notes
 * SIGCHLD in *child. */
static int drain_signals(bool *child)
{
    unsigned char buf[64];
    ssize_t n;
    int term = 0;
    while ((n = read(job.sig_pipe[0], buf, sizeof buf)) > 0)
        for (ssize_t i = 0; i < n; i++) {
            if (buf[i] == SIGCHLD)
                *child = true;
            else
                term = buf[i];
        }
    return term;
}

static void close_connections(void)
{
    if (job.listen_fd >= 0)
        close(job.listen_fd);
    job.listen_fd = -1;
    for (int i = 0; i < MAX_STRANGERS; i++)
        if (job.strangers[i].fd >= 0) {
            close(job.strangers[i].fd);
            job.strangers[i].fd = -1;
        }
    for (int r = 0; r < job.np; r++)
        if (job.nodes[r].fd >= 0) {
            close(job.nodes[r].fd);
            job.nodes[r].fd = -1;
        }
}

/* Closing the connections wakes nodes blocked in a collective; SIGTERM the
 * rest (and SIGCONT, so that a stopped node gets it); SIGKILL what is left
 * after the grace period (or at once on a second SIGINT/SIGTERM); then reap
 * everything. */
static void teardown(void)
{
    close_connections();
    signal_nodes(SIGTERM);
    signal_nodes(SIGCONT);
    long long end = now_ms() + KILL_GRACE_MS;
    bool child = false;
    while (job.nalive > 0 && now_ms() < end) {
        struct pollfd p = { .fd = job.sig_pipe[0], .events = POLLIN };
        poll(&p, 1, (int)(end - now_ms()));
        if (drain_signals(&child))
            break;
        reap(false, false);
    }
    signal_nodes(SIGKILL);
    reap(true, false);
}

/* A node leaving with this status is part of the end of the program, not
 * a failure: it finalized, or a node announced exit(status) (BOOT_TAG_EXIT). */
static bool ordinary_end(int r, int st)
{
    if (WIFSIGNALED(st))
        return false;
    if (job.nodes[r].finalized && !job.ending)
        return true;
    return job.ending && (WEXITSTATUS(st) == job.status || WEXITSTATUS(st) == 0);
}

/* Judges the nodes reaped in one batch; the worst cause is reported: a
 * signal, then a non-zero status, then an exit before the end of the job.
 * A node that never joined the job and left with status 0 ran the whole
 * program alone: it was not built for ompdsm (a script that starts one;
 * check_ompdsm_program() catches the programs themselves). */
static void judge_exits(void)
{
    int worst = -1, worst_level = 0;
    for (int r = 0; r < job.np; r++) {
        if (!job.nodes[r].reaped)
            continue;
        job.nodes[r].reaped = false;
        int st = job.nodes[r].status, level = 0;
        if (!job.nodes[r].connected && WIFEXITED(st) && WEXITSTATUS(st) == 0)
            level = 4;
        else if (ordinary_end(r, st))
            level = 0;
        else if (WIFSIGNALED(st))
            level = 3;
        else if (WEXITSTATUS(st) != 0)
            level = 2;
        else if (!job.nodes[r].finalized && job.nalive > 0)
            level = 1;
        if (level == 0 && job.nodes[r].finalized && !job.ending && (r == 0 || job.status == 0))
            job.status = WEXITSTATUS(st);
        if (level > worst_level) {
            worst = r;
            worst_level = level;
        }
    }
    if (worst < 0)
        return;
    int st = job.nodes[worst].status;
    long pid = (long)job.nodes[worst].pid;
    if (worst_level == 4)
        fail(1, "node %d (pid %ld) ran '%s' without joining the job: it was not built with ompdsm-cc", worst,
             pid, job.argv[0]);
    if (worst_level == 3)
        fail(128 + WTERMSIG(st), "node %d (pid %ld) killed by signal %d (%s)",
             worst, pid, WTERMSIG(st), strsignal(WTERMSIG(st)));
    if (worst_level == 2)
        fail(WEXITSTATUS(st), "node %d (pid %ld) exited with status %d",
             worst, pid, WEXITSTATUS(st));
    fail(1, "node %d (pid %ld) exited before the end of the job", worst, pid);
}

/* The node that announced exit(status) is gone, after every node wrote out
 * its output: the others, still in the parallel region, are stopped. */
static noreturn void end_announced(void)
{
    teardown();
    exit(job.status);
}

static void on_child_exit(void)
{
    reap(false, true);
    judge_exits();
    if (job.nalive == 0) {
        close_connections();
        exit(job.status);
    }
    if (job.ending && !job.nodes[job.announcer].alive)
        end_announced();
}

/* ---- HELLO --------------------------------------------------------------- */

static int free_stranger_slot(void)
{
    for (int i = 0; i < MAX_STRANGERS; i++)
        if (job.strangers[i].fd < 0)
            return i;
    return -1;
}

/* With every slot taken, connections wait in the listen backlog (the listener
 * is not polled then): closing them would make real nodes fail. */
static void accept_strangers(void)
{
    int i, fd;
    while ((i = free_stranger_slot()) >= 0 &&
           (fd = accept4(job.listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK)) >= 0) {
        /* Replies of a few bytes, each waited for: no Nagle delay. */
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &(int){ 1 }, sizeof(int));
        job.strangers[i] = (struct stranger){ .fd = fd,
                                              .deadline = now_ms() + HELLO_TIMEOUT_MS };
    }
}

static bool token_equal(const unsigned char *a, const char *b)
{
    unsigned char diff = 0;             /* constant time: no early exit */
    for (int i = 0; i < BOOT_TOKEN_LEN; i++)
        diff |= a[i] ^ (unsigned char)b[i];
    return diff == 0;
}

static void drop_stranger(struct stranger *s)
{
    close(s->fd);
    s->fd = -1;
}

/* A complete HELLO: either a node of this job joins, or the connection is
 * refused.  A right token with a wrong rank or size is a launcher/library
 * mismatch, not a stranger: that stops the job. */
static void judge_hello(struct stranger *s)
{
    uint32_t rank, size;
    memcpy(&rank, s->buf + BOOT_TOKEN_LEN, sizeof rank);
    memcpy(&size, s->buf + BOOT_TOKEN_LEN + sizeof rank, sizeof size);
    if (!token_equal(s->buf, job.token)) {
        ssize_t w = send(s->fd, &(char){ BOOT_REFUSED }, 1, MSG_NOSIGNAL);
        (void)w;
        drop_stranger(s);
        note("refused a bootstrap connection with a bad token");
        return;
    }
    if (size != (uint32_t)job.np)
        fail(1, "node %u says the job has %u nodes, but it has %d", rank, size, job.np);
    if (rank >= (uint32_t)job.np)
        fail(1, "a node says it is node %u, but the job has %d nodes", rank, job.np);
    if (job.nodes[rank].connected)
        fail(1, "node %u joined twice", rank);
    if (send(s->fd, &(char){ BOOT_ACCEPTED }, 1, MSG_NOSIGNAL) != 1) {
        drop_stranger(s);               /* it died; SIGCHLD will tell */
        return;
    }
    job.nodes[rank].fd = s->fd;
    job.nodes[rank].connected = true;
    job.nconnected++;
    s->fd = -1;
}

static void stranger_readable(struct stranger *s)
{
    ssize_t n = recv(s->fd, s->buf + s->got, BOOT_HELLO_LEN - s->got, 0);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (n <= 0) {
        drop_stranger(s);
        return;
    }
    s->got += (size_t)n;
    if (s->got == BOOT_HELLO_LEN)
        judge_hello(s);
}

/* ---- collectives --------------------------------------------------------- */

static void release_reply(struct reply *rp)
{
    if (--rp->refs == 0)
        free(rp);
}

static void reset_request(struct node *n)
{
    free(n->data);
    n->data = NULL;
    n->hdr_got = 0;
    n->got = n->len = 0;
    n->pending = false;
}

/* The connection is gone.  If the node has not finalized, it is dying: its
 * exit status, which SIGCHLD brings shortly, says why. */
static void node_lost(struct node *n)
{
    close(n->fd);
    n->fd = -1;
    reset_request(n);
    if (n->out)
        release_reply(n->out);
    n->out = NULL;
}

static void node_writable(struct node *n)
{
    while (n->out) {
        ssize_t w = send(n->fd, n->out->bytes + n->out_off, n->out->len - n->out_off,
                         MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && errno == EAGAIN)
            return;
        if (w < 0) {
            node_lost(n);
            return;
        }
        n->out_off += (size_t)w;
        if (n->out_off == n->out->len) {
            release_reply(n->out);
            n->out = NULL;
        }
    }
}

static void queue_reply(struct node *n, struct reply *rp)
{
    rp->refs++;
    n->out = rp;
    n->out_off = 0;
    node_writable(n);
}

static struct reply *new_reply(size_t len)
{
    struct reply *rp = malloc(sizeof *rp + len);
    if (rp == NULL)
        fail(1, "out of memory for a bootstrap reply of %zu bytes", len);
    rp->refs = 1;                       /* ours, until queued everywhere */
    rp->len = len;
    return rp;
}

static void finalize_node(int r)
{
    struct node *n = &job.nodes[r];
    if (n->len != 0)
        fail(1, "node %d: malformed bootstrap finalize", r);
    n->finalized = true;
    reset_request(n);
    struct reply *rp = new_reply(sizeof(uint64_t));
    memset(rp->bytes, 0, sizeof(uint64_t));
    queue_reply(n, rp);
    release_reply(rp);
}

/* A node announces exit(status) inside a parallel region: the job ends
 * with that status (the first announced, if several nodes call exit). */
static void exit_node(int r)
{
    struct node *n = &job.nodes[r];
    int32_t st;
    if (n->len != sizeof st)
        fail(1, "node %d: malformed bootstrap exit", r);
    memcpy(&st, n->data, sizeof st);
    if (!job.ending) {
        job.ending = true;
        job.announcer = r;
        job.status = st & 0xff;
    }
    n->finalized = true;
    reset_request(n);
    struct reply *rp = new_reply(sizeof(uint64_t));
    memset(rp->bytes, 0, sizeof(uint64_t));
    queue_reply(n, rp);
    release_reply(rp);
}

/* A request header is complete: either a finalize or a collective's data. */
static void request_header(int r)
{
    struct node *n = &job.nodes[r];
    memcpy(&n->tag, n->hdr, sizeof n->tag);
    memcpy(&n->len, n->hdr + sizeof n->tag, sizeof n->len);
    if (n->tag == BOOT_TAG_FINALIZE) {
        finalize_node(r);
        return;
    }
    if (n->len > MAX_REQUEST)
        fail(1, "node %d: bootstrap request of %llu bytes is too large", r,
             (unsigned long long)n->len);
    n->data = malloc(n->len ? (size_t)n->len : 1);
    if (n->data == NULL)
        fail(1, "out of memory");
    n->pending = (n->len == 0);
}

static void node_readable(int r)
{
    struct node *n = &job.nodes[r];
    ssize_t got;
    if (n->pending || n->out) {         /* nothing may arrive but EOF */
        char c;
        got = recv(n->fd, &c, 1, MSG_PEEK);
        if (got > 0)
            fail(1, "node %d: bootstrap protocol error (data before the reply)", r);
    } else if (n->hdr_got < BOOT_REQ_HDR_LEN) {
        got = recv(n->fd, n->hdr + n->hdr_got, BOOT_REQ_HDR_LEN - n->hdr_got, 0);
        if (got > 0 && (n->hdr_got += (size_t)got) == BOOT_REQ_HDR_LEN)
            request_header(r);
    } else {
        got = recv(n->fd, n->data + n->got, (size_t)(n->len - n->got), 0);
        if (got > 0 && (n->got += (uint64_t)got) == n->len) {
            if (n->tag == BOOT_TAG_EXIT)
                exit_node(r);
            else
                n->pending = true;
        }
    }
    if (got == 0 || (got < 0 && errno != EAGAIN && errno != EINTR))
        node_lost(n);
}

/* Replies to a collective once every node has its request pending. */
static void serve_collective(void)
{
    int pending = 0, first = -1, done = -1;
    for (int r = 0; r < job.np; r++) {
        if (job.nodes[r].pending) {
            pending++;
            first = first < 0 ? r : first;
        }
        if (job.nodes[r].finalized && done < 0)
            done = r;
    }
    if (pending && done >= 0)
        fail(1, "node %d waits in bootstrap collective %u, but node %d has finalized",
             first, job.nodes[first].tag, done);
    if (pending < job.np)
        return;
    uint64_t total = 0;
    for (int r = 0; r < job.np; r++) {
        if (job.nodes[r].tag != job.nodes[0].tag)
            fail(1, "bootstrap collective mismatch: node 0 is in %u, node %d in %u",
                 job.nodes[0].tag, r, job.nodes[r].tag);
        total += job.nodes[r].len;
    }
    size_t head = sizeof total * (1 + (size_t)job.np);
    struct reply *rp = new_reply(head + (size_t)total);
    unsigned char *p = rp->bytes + head;
    memcpy(rp->bytes, &total, sizeof total);
    for (int r = 0; r < job.np; r++) {
        struct node *n = &job.nodes[r];
        memcpy(rp->bytes + sizeof total * (1 + (size_t)r), &n->len, sizeof n->len);
        memcpy(p, n->data, (size_t)n->len);
        p += n->len;
        reset_request(n);
    }
    for (int r = 0; r < job.np; r++)
        if (job.nodes[r].fd >= 0)
            queue_reply(&job.nodes[r], rp);
    release_reply(rp);
}

/* ---- the poll loop ------------------------------------------------------- */

static void check_deadlines(long long now)
{
    if (job.job_deadline && now >= job.job_deadline)
        fail(124, "the job ran longer than --timeout %s s; stopping it", job.timeout_arg);
    if (job.nconnected < job.np && now >= job.boot_deadline) {
        char missing[256] = "";
        size_t len = 0;
        for (int r = 0; r < job.np && len < sizeof missing - 16; r++)
            if (!job.nodes[r].connected)
                len += (size_t)snprintf(missing + len, sizeof missing - len, "%s%d",
                                        len ? ", " : "", r);
        if (job.np - job.nconnected > 1 && len >= sizeof missing - 16)
            strcat(missing, ", ...");
        fail(1, "node%s %s did not join the job within %g s (see --boot-timeout)",
             job.np - job.nconnected > 1 ? "s" : "", missing, job.boot_timeout);
    }
    for (int i = 0; i < MAX_STRANGERS; i++)
        if (job.strangers[i].fd >= 0 && now >= job.strangers[i].deadline) {
            drop_stranger(&job.strangers[i]);
            note("dropped a bootstrap connection that sent no hello");
        }
}

static int poll_timeout(long long now)
{
    long long next = LLONG_MAX;
    if (job.job_deadline)
        next = job.job_deadline;
    if (job.nconnected < job.np && job.boot_deadline < next)
        next = job.boot_deadline;
    for (int i = 0; i < MAX_STRANGERS; i++)
        if (job.strangers[i].fd >= 0 && job.strangers[i].deadline < next)
            next = job.strangers[i].deadline;
    if (next == LLONG_MAX)
        return -1;
    return next <= now ? 0 : (int)(next - now > INT_MAX ? INT_MAX : next - now);
}

/* pollfd i belongs to: 0 the signal pipe, 1 the listener, then strangers
 * (owner[i] = -1 - slot) and nodes (owner[i] = rank). */
static void poll_once(struct pollfd *fds, int *owner)
{
    int nfds = 0;
    fds[nfds++] = (struct pollfd){ .fd = job.sig_pipe[0], .events = POLLIN };
    fds[nfds++] = (struct pollfd){ .events = POLLIN,
        .fd = free_stranger_slot() >= 0 ? job.listen_fd : -1 };
    for (int i = 0; i < MAX_STRANGERS; i++)
        if (job.strangers[i].fd >= 0) {
            owner[nfds] = -1 - i;
            fds[nfds++] = (struct pollfd){ .fd = job.strangers[i].fd, .events = POLLIN };
        }
    for (int r = 0; r < job.np; r++)
        if (job.nodes[r].fd >= 0) {
            owner[nfds] = r;
            fds[nfds++] = (struct pollfd){ .fd = job.nodes[r].fd,
                .events = (short)(POLLIN | (job.nodes[r].out ? POLLOUT : 0)) };
        }
    if (poll(fds, (nfds_t)nfds, poll_timeout(now_ms())) < 0 && errno != EINTR)
        fail(1, "poll: %s", strerror(errno));
    check_deadlines(now_ms());

    bool child = false;
    int sig = (fds[0].revents & POLLIN) ? drain_signals(&child) : 0;
    if (sig)
        fail(128 + sig, "received %s; stopping the nodes", strsignal(sig));
    if (child)
        on_child_exit();
    if (fds[1].revents & POLLIN)
        accept_strangers();
    for (int i = 2; i < nfds; i++) {
        if (fds[i].revents == 0)
            continue;
        if (owner[i] < 0) {
            struct stranger *s = &job.strangers[-1 - owner[i]];
            if (s->fd == fds[i].fd)
                stranger_readable(s);
            continue;
        }
        struct node *n = &job.nodes[owner[i]];
        if (n->fd == fds[i].fd && (fds[i].revents & POLLOUT))
            node_writable(n);
        if (n->fd == fds[i].fd && (fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
            node_readable(owner[i]);
    }
    serve_collective();
}

int main(int argc, char **argv)
{
    parse_args(argc, argv);
    check_program(job.argv[0]);
    check_ompdsm_program();
    job.nodes = calloc((size_t)job.np, sizeof *job.nodes);
    struct pollfd *fds = calloc((size_t)job.np + MAX_STRANGERS + 2, sizeof *fds);
    int *owner = calloc((size_t)job.np + MAX_STRANGERS + 2, sizeof *owner);
    if (job.nodes == NULL || fds == NULL || owner == NULL) {
        note("out of memory");
        return 1;
    }
    for (int r = 0; r < job.np; r++)
        job.nodes[r].fd = -1;
    for (int i = 0; i < MAX_STRANGERS; i++)
        job.strangers[i].fd = -1;
    if (job.bind_core)
        read_cpus();
    make_token();
    listen_bootstrap();
    install_signals();
    long long start = now_ms();
    job.boot_deadline = start + (long long)(job.boot_timeout * 1000);
    if (job.timeout_arg)
        job.job_deadline = start + (long long)(job.timeout * 1000);
    start_nodes();
    for (;;)
        poll_once(fds, owner);
}
