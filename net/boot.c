/*
 * boot.c: the bootstrap client, one TCP connection to the launcher, and the
 * choice of bootstrap.
 *
 * A node started by ompdsm-run (OMPDSM_BOOTSTRAP is set) talks to it here;
 * one started by a PMIx launcher such as mpirun or srun uses PMIx instead
 * (boot_pmix.c); one started by hand runs alone.  The functions of boot.h at
 * the end of this file forward to the bootstrap in use.
 *
 * Owns the connection (boot_sock) and this node's rank and size as told by
 * the environment.  Invariants:
 *   - boot_sock is -1 exactly when ompdsm-run did not start the node (no
 *     OMPDSM_BOOTSTRAP: it runs alone or under PMIx) or after boot_finalize();
 *   - at most one request is in flight: boot_lock is held from the first byte
 *     of a request to the last byte of its reply, so replies can never be
 *     taken by the wrong caller;
 *   - any failure of the connection is fatal.  The launcher closes it only to
 *     abort the job, and a half-read reply cannot be resynchronised anyway.
 *
 * The wire format is described in boot.h.
 */
#include "boot.h"
#include "boot_pmix.h"
#include "../util/env.h"
#include "../util/log.h"
#include "../util/xalloc.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define CONNECT_TRIES 100       /* x 50 ms: the launcher listens before it forks */

static int boot_sock = -1;
static int boot_size = 1;
static pthread_mutex_t boot_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- environment -------------------------------------------------------- */

static const char *env_required(const char *name)
{
    const char *v = dsm_env(name);
    if (v == NULL)
        dsm_fatal("%s is not set (the node was not started by ompdsm-run?)", name);
    return v;
}

/* Decimal, possibly zero-padded; nothing else is accepted. */
static long env_decimal(const char *name, long min, long max)
{
    const char *v = env_required(name);
    long n = 0;
    for (const char *p = v; *p; p++) {
        if (*p < '0' || *p > '9' || n > max)
            dsm_fatal("%s='%s' is not a number in [%ld, %ld]", name, v, min, max);
        n = n * 10 + (*p - '0');
    }
    if (n < min || n > max)
        dsm_fatal("%s='%s' is not a number in [%ld, %ld]", name, v, min, max);
    return n;
}

static void env_token(char token[BOOT_TOKEN_LEN])
{
    const char *v = env_required("OMPDSM_JOB_TOKEN");
    size_t n = strlen(v);
    if (n != BOOT_TOKEN_LEN || strspn(v, "0123456789abcdefABCDEF") != n)
        dsm_fatal("OMPDSM_JOB_TOKEN is not %d hexadecimal digits", BOOT_TOKEN_LEN);
    memcpy(token, v, BOOT_TOKEN_LEN);
}

/* Splits "ADDR:PORT" or "[V6ADDR]:PORT" into host and port (in place). */
static void split_address(char *s, char **host, char **port)
{
    char *colon;
    if (s[0] == '[') {
        char *close = strchr(s, ']');
        if (close == NULL || close[1] != ':')
            dsm_fatal("OMPDSM_BOOTSTRAP='%s' is not ADDR:PORT", s);
        *close = '\0';
        *host = s + 1;
        colon = close + 1;
    } else {
        colon = strrchr(s, ':');
        if (colon == NULL)
            dsm_fatal("OMPDSM_BOOTSTRAP='%s' is not ADDR:PORT", s);
        *colon = '\0';
        *host = s;
    }
    *port = colon + 1;
    if (**host == '\0' || **port == '\0')
        dsm_fatal("OMPDSM_BOOTSTRAP is not ADDR:PORT");
}

/* ---- connection --------------------------------------------------------- */

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

/* The launcher listens before it starts any node, so a refused connection
 * is unexpected; still retry briefly, in case the machine is overloaded. */
static int connect_launcher(const char *addr_env)
{
    char *copy = xstrdup(addr_env), *host, *port;
    split_address(copy, &host, &port);

    struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
                              .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV };
    struct addrinfo *ai;
    int rc = getaddrinfo(host, port, &hints, &ai);
    if (rc != 0)
        dsm_fatal("OMPDSM_BOOTSTRAP='%s': %s", addr_env, gai_strerror(rc));
    free(copy);

    int err = 0;
    for (int i = 0; i < CONNECT_TRIES; i++) {
        int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
            dsm_fatal("bootstrap socket: %s", strerror(errno));
        if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) {
            freeaddrinfo(ai);
            /* A request is a header and a body, sent apart, and waited for:
             * with Nagle's algorithm the body waited for the launcher's
             * delayed acknowledgement, 40 ms a request. */
            setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &(int){ 1 }, sizeof(int));
            return fd;
        }
        err = errno;
        close(fd);
        sleep_ms(50);
    }
    dsm_fatal("cannot connect to the launcher at %s: %s", addr_env, strerror(err));
}

static void send_all(const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t n = send(boot_sock, p, len, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EPIPE || errno == ECONNRESET))
            dsm_fatal("lost the launcher (job aborted)");
        if (n < 0)
            dsm_fatal("bootstrap send: %s", strerror(errno));
        p += n;
        len -= (size_t)n;
    }
}

static void recv_all(void *buf, size_t len)
{
    char *p = buf;
    while (len > 0) {
        ssize_t n = recv(boot_sock, p, len, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0 || (n < 0 && errno == ECONNRESET))
            dsm_fatal("lost the launcher (job aborted)");
        if (n < 0)
            dsm_fatal("bootstrap receive: %s", strerror(errno));
        p += n;
        len -= (size_t)n;
    }
}

static void send_request(uint32_t tag, uint64_t len)
{
    unsigned char hdr[sizeof tag + sizeof len];
    memcpy(hdr, &tag, sizeof tag);
    memcpy(hdr + sizeof tag, &len, sizeof len);
    send_all(hdr, sizeof hdr);
}

/* ---- the launcher's protocol -------------------------------------------- */

static void launcher_init(const char *addr, int *rank, int *size)
{
    long sz = env_decimal("OMPDSM_SIZE", 1, BOOT_MAX_NODES);
    long rk = env_decimal("OMPDSM_RANK", 0, sz - 1);
    dsm_log_node = (int)rk;
    char token[BOOT_TOKEN_LEN];
    env_token(token);

    boot_sock = connect_launcher(addr);
    unsigned char hello[BOOT_TOKEN_LEN + 2 * sizeof(uint32_t)];
    uint32_t r32 = (uint32_t)rk, s32 = (uint32_t)sz;
    memcpy(hello, token, BOOT_TOKEN_LEN);
    memcpy(hello + BOOT_TOKEN_LEN, &r32, sizeof r32);
    memcpy(hello + BOOT_TOKEN_LEN + sizeof r32, &s32, sizeof s32);
    send_all(hello, sizeof hello);

    char answer;
    recv_all(&answer, 1);
    if (answer == BOOT_REFUSED)
        dsm_fatal("bootstrap refused: bad job token");
    if (answer != BOOT_ACCEPTED)
        dsm_fatal("bootstrap: unexpected answer from the launcher");
    boot_size = (int)sz;
    *rank = (int)rk;
    *size = (int)sz;
}

static void *copy_of(const void *data, size_t len, size_t *lens)
{
    void *all = xmemdup(data, len);
    if (lens)
        lens[0] = len;
    return all;
}

/* Reads the REPLY that follows a request; the lock is held by the caller. */
static void *recv_reply(size_t *lens)
{
    uint64_t total;
    recv_all(&total, sizeof total);
    uint64_t *l64 = xcalloc((size_t)boot_size, sizeof *l64);
    void *all = xmalloc((size_t)total);
    recv_all(l64, (size_t)boot_size * sizeof *l64);
    uint64_t sum = 0;
    for (int i = 0; i < boot_size; i++) {
        sum += l64[i];
        if (lens)
            lens[i] = (size_t)l64[i];
    }
    if (sum != total)
        dsm_fatal("bootstrap: malformed reply from the launcher");
    recv_all(all, (size_t)total);
    free(l64);
    return all;
}

/* Also the all-gather of a node that runs alone (no connection). */
static void *launcher_allgather(uint32_t tag, const void *data, size_t len, size_t *lens)
{
    pthread_mutex_lock(&boot_lock);
    if (boot_sock < 0) {
        pthread_mutex_unlock(&boot_lock);
        return copy_of(data, len, lens);
    }
    send_request(tag, len);
    if (len)
        send_all(data, len);
    void *all = recv_reply(lens);
    pthread_mutex_unlock(&boot_lock);
    return all;
}

static void launcher_finalize(void)
{
    pthread_mutex_lock(&boot_lock);
    if (boot_sock >= 0) {
        send_request(BOOT_TAG_FINALIZE, 0);
        uint64_t total;
        recv_all(&total, sizeof total);
        if (total != 0)
            dsm_fatal("bootstrap: malformed reply to finalize");
        close(boot_sock);
        boot_sock = -1;
    }
    pthread_mutex_unlock(&boot_lock);
}

void boot_exit(int status)
{
    pthread_mutex_lock(&boot_lock);
    if (boot_sock >= 0) {
        int32_t st = status;
        send_request(BOOT_TAG_EXIT, sizeof st);
        send_all(&st, sizeof st);
        uint64_t total;
        recv_all(&total, sizeof total);
        if (total != 0)
            dsm_fatal("bootstrap: malformed reply to exit");
    }
    pthread_mutex_unlock(&boot_lock);
}

/* ---- API: the bootstrap in use ------------------------------------------ */

enum boot_via { BOOT_ALONE, BOOT_LAUNCHER, BOOT_PMIX };

static enum boot_via boot_via = BOOT_ALONE;

/* Who started this node.  OMPDSM_BOOTSTRAP comes first: ompdsm-run may
 * itself run inside an mpirun or Slurm job, whose PMIx variables its nodes
 * inherit. */
static enum boot_via started_by(void)
{
    if (getenv("OMPDSM_BOOTSTRAP") != NULL)
        return BOOT_LAUNCHER;
    if (boot_pmix_present())
        return BOOT_PMIX;
    return BOOT_ALONE;
}

int boot_init(int *rank, int *size)
{
    boot_via = started_by();
    switch (boot_via) {
    case BOOT_LAUNCHER:
        launcher_init(getenv("OMPDSM_BOOTSTRAP"), rank, size);
        return 0;
    case BOOT_PMIX:
        boot_pmix_init(rank, size);
        return 0;
    case BOOT_ALONE:
        break;
    }
    return -1;
}

void boot_fix_addresses(void)
{
    if (started_by() == BOOT_PMIX)
        boot_pmix_fix_addresses();
}

void *boot_allgather(uint32_t tag, const void *data, size_t len, size_t *lens)
{
    if (tag == BOOT_TAG_FINALIZE || tag == BOOT_TAG_EXIT)
        dsm_fatal("boot_allgather: tag %#x is reserved", (unsigned)tag);
    if (boot_via == BOOT_PMIX)
        return boot_pmix_allgather(tag, data, len, lens);
    return launcher_allgather(tag, data, len, lens);
}

void boot_finalize(void)
{
    if (boot_via == BOOT_PMIX)
        boot_pmix_finalize();
    else
        launcher_finalize();
    boot_via = BOOT_ALONE;
}

/* Under PMIx there is no connection: the launcher itself ends the job when
 * a node dies. */
int boot_fd(void)
{
    return boot_sock;
}
