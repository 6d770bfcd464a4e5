/*
 * net_policy.c: chooses the UCX transports (TLS) and network devices
 * (NET_DEVICES) of a node, so that the job's memory and traffic stay the
 * job's.  See net_policy.h for the rules and README "Security" for why.
 *
 * Two facts about UCX 1.13 drive it:
 *   - its SysV shared-memory transport creates segments mode 0660 (fixed in
 *     its source), so any user of the owner's primary group can attach them
 *     read-write and read or forge page data, diffs and lock traffic.  Its
 *     POSIX transport creates its files mode 0600 and, by default, unlinks
 *     them at once and shares them through /proc/PID/fd (ptrace rights
 *     needed), and cma needs ptrace rights too: shared memory stays fast
 *     without SysV;
 *   - with UCX_TLS unset, tcp opens an unauthenticated listener on every
 *     interface of the machine, also for a job confined to it.
 *
 * The decision needs to know where the other nodes are: each node sends,
 * through the bootstrap, a key naming its host (kernel boot id, network and
 * PID namespace: nodes with equal keys can share memory through
 * /proc/PID/fd and reach each other on loopback) and the addresses of its
 * network interfaces.  UCX settings are given to UCX with
 * ucp_config_modify(), never written into the environment, which the
 * program sees too.
 *
 * The user's UCX_TLS and UCX_NET_DEVICES win, with one exception: "sysv"
 * named in UCX_TLS is refused.  UCX's aliases that contain it (sm, shm, mm,
 * all) stand for "the shared-memory transports" and are given to UCX
 * without it; a list of exclusions ("^...") gets sysv added.
 */
#include "net_policy.h"
#include "boot.h"
#include "../util/env.h"
#include "../util/log.h"
#include "../util/xalloc.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#define HOST_KEY_LEN 96
#define MAX_ADDRS 16
#define LIST_LEN 512

/* One address of a network interface, with its prefix length. */
struct if_addr {
    uint8_t family;             /* AF_INET or AF_INET6 */
    uint8_t prefix;
    uint8_t addr[16];
};

/* What a node tells the others about itself. */
struct host_info {
    char key[HOST_KEY_LEN];
    uint32_t naddrs;
    struct if_addr addrs[MAX_ADDRS];
};

/* An interface of this node. */
struct local_if {
    char name[IF_NAMESIZE];
    struct if_addr a;
};

/* ---- what this host is and where it is ------------------------------------ */

static unsigned long ns_inode(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (unsigned long)st.st_ino : 0;
}

static void host_key(char key[HOST_KEY_LEN])
{
    char boot_id[64] = "?";
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (f) {
        if (!fgets(boot_id, sizeof boot_id, f))
            strcpy(boot_id, "?");
        boot_id[strcspn(boot_id, "\n")] = '\0';
        fclose(f);
    }
    snprintf(key, HOST_KEY_LEN, "%s/%lu/%lu", boot_id, ns_inode("/proc/self/ns/net"),
             ns_inode("/proc/self/ns/pid"));
}

static unsigned prefix_len(const uint8_t *mask, size_t n)
{
    unsigned bits = 0;
    for (size_t i = 0; i < n; i++)
        bits += (unsigned)__builtin_popcount(mask[i]);
    return bits;
}

/* The address of ifa as an if_addr; false for what cannot carry the job's
 * traffic to another host: loopback, interfaces that are down, IPv6
 * link-local addresses (every interface has one in fe80::/64, so they would
 * make every interface look like it shares a network with every peer). */
static bool usable_addr(const struct ifaddrs *ifa, struct if_addr *out)
{
    if (!ifa->ifa_addr || !ifa->ifa_netmask || !(ifa->ifa_flags & IFF_UP) || (ifa->ifa_flags & IFF_LOOPBACK))
        return false;
    memset(out, 0, sizeof *out);
    out->family = (uint8_t)ifa->ifa_addr->sa_family;
    if (out->family == AF_INET) {
        memcpy(out->addr, &((struct sockaddr_in *)ifa->ifa_addr)->sin_addr, 4);
        out->prefix = (uint8_t)prefix_len((uint8_t *)&((struct sockaddr_in *)ifa->ifa_netmask)->sin_addr, 4);
        return true;
    }
    if (out->family == AF_INET6) {
        memcpy(out->addr, &((struct sockaddr_in6 *)ifa->ifa_addr)->sin6_addr, 16);
        out->prefix = (uint8_t)prefix_len((uint8_t *)&((struct sockaddr_in6 *)ifa->ifa_netmask)->sin6_addr, 16);
        return !(out->addr[0] == 0xfe && (out->addr[1] & 0xc0) == 0x80);
    }
    return false;
}

/* This node's usable interface addresses, at most MAX_ADDRS. */
static int local_ifs(struct local_if ifs[MAX_ADDRS])
{
    struct ifaddrs *list;
    if (getifaddrs(&list))
        dsm_fatal("cannot list the network interfaces (getifaddrs): %s", strerror(errno));
    int n = 0;
    for (struct ifaddrs *ifa = list; ifa && n < MAX_ADDRS; ifa = ifa->ifa_next) {
        if (usable_addr(ifa, &ifs[n].a)) {
            snprintf(ifs[n].name, sizeof ifs[n].name, "%s", ifa->ifa_name);
            n++;
        }
    }
    freeifaddrs(list);
    return n;
}

/* Every node's host_info, in rank order (the caller frees it). */
static struct host_info *exchange_hosts(int size, const struct local_if *ifs, int nifs)
{
    struct host_info mine = { .naddrs = (uint32_t)nifs };
    host_key(mine.key);
    for (int i = 0; i < nifs; i++)
        mine.addrs[i] = ifs[i].a;
    if (size == 1) {
        return xmemdup(&mine, sizeof mine);
    }
    return boot_allgather(BOOT_TAG_HOSTS, &mine, sizeof mine, NULL);
}

/* ---- which interfaces reach the other hosts ---------------------------- */

static bool same_subnet(const struct if_addr *local, const struct if_addr *peer)
{
    if (local->family != peer->family)
        return false;
    unsigned bytes = local->prefix / 8u, bits = local->prefix % 8u;
    if (memcmp(local->addr, peer->addr, bytes))
        return false;
    uint8_t mask = (uint8_t)(0xff00u >> bits);
    return bits == 0 || ((local->addr[bytes] ^ peer->addr[bytes]) & mask) == 0;
}

/* The token after the one at p in a comma-separated list ("" at the end). */
static const char *next_token(const char *p)
{
    p += strcspn(p, ",");
    return *p ? p + 1 : p;
}

/* Appends name to a comma-separated list unless it is there already. */
static void list_add(char list[LIST_LEN], const char *name)
{
    size_t nlen = strlen(name);
    for (const char *p = list; *p; p = next_token(p)) {
        if (strcspn(p, ",") == nlen && !strncmp(p, name, nlen))
            return;
    }
    size_t len = strlen(list);
    if (len + nlen + 2 > LIST_LEN)
        dsm_fatal("too many network devices to list for UCX_NET_DEVICES");
    snprintf(list + len, LIST_LEN - len, "%s%s", len ? "," : "", name);
}

/* The interface the kernel routes to a peer's address through: a UDP
 * socket "connected" to it (nothing is sent) has that interface's address. */
static const char *routed_if(const struct if_addr *peer, const struct local_if *ifs, int nifs)
{
    struct sockaddr_storage ss = { 0 };
    socklen_t len;
    if (peer->family == AF_INET) {
        struct sockaddr_in *s = (struct sockaddr_in *)&ss;
        s->sin_family = AF_INET;
        s->sin_port = htons(9);
        memcpy(&s->sin_addr, peer->addr, 4);
        len = sizeof *s;
    } else {
        struct sockaddr_in6 *s = (struct sockaddr_in6 *)&ss;
        s->sin6_family = AF_INET6;
        s->sin6_port = htons(9);
        memcpy(&s->sin6_addr, peer->addr, 16);
        len = sizeof *s;
    }
    int fd = socket(peer->family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    const char *found = NULL;
    if (fd >= 0 && connect(fd, (struct sockaddr *)&ss, len) == 0 && getsockname(fd, (struct sockaddr *)&ss, &len) == 0) {
        const void *a = peer->family == AF_INET ? (void *)&((struct sockaddr_in *)&ss)->sin_addr
                                                : (void *)&((struct sockaddr_in6 *)&ss)->sin6_addr;
        for (int i = 0; i < nifs && !found; i++) {
            if (ifs[i].a.family == peer->family && !memcmp(ifs[i].a.addr, a, peer->family == AF_INET ? 4 : 16))
                found = ifs[i].name;
        }
    }
    if (fd >= 0)
        close(fd);
    return found;
}

/* Adds to list the interfaces that reach one peer host: those on a network
 * the peer is on too, or else the one the kernel routes its first address
 * through.  False if neither exists. */
static bool add_ifs_for(char list[LIST_LEN], const struct host_info *peer, const struct local_if *ifs, int nifs)
{
    bool found = false;
    for (int i = 0; i < nifs; i++) {
        for (uint32_t j = 0; j < peer->naddrs; j++) {
            if (same_subnet(&ifs[i].a, &peer->addrs[j])) {
                list_add(list, ifs[i].name);
                found = true;
            }
        }
    }
    const char *routed = found || peer->naddrs == 0 ? NULL : routed_if(&peer->addrs[0], ifs, nifs);
    if (routed)
        list_add(list, routed);
    return found || routed;
}

/* RDMA ports, named as UCX names them (device:port): they listen on no IP
 * address, and a cluster with them would lose them if NET_DEVICES named the
 * IP interfaces alone. */
static void add_rdma_ports(char list[LIST_LEN])
{
    DIR *d = opendir("/sys/class/infiniband");
    if (!d)
        return;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        char path[300];
        snprintf(path, sizeof path, "/sys/class/infiniband/%s/ports", e->d_name);
        DIR *p = opendir(path);
        for (struct dirent *q; p && (q = readdir(p));) {
            char name[300];
            if (q->d_name[0] != '.' && snprintf(name, sizeof name, "%s:%s", e->d_name, q->d_name) < 64)
                list_add(list, name);
        }
        if (p)
            closedir(p);
    }
    closedir(d);
}

/* The devices of a job spread over several hosts: every interface that
 * reaches another node's host, plus any RDMA ports. */
static void multi_host_devices(char list[LIST_LEN], const struct host_info *all, int size, int me,
                               const struct local_if *ifs, int nifs)
{
    list[0] = '\0';
    for (int n = 0; n < size; n++) {
        if (!strcmp(all[n].key, all[me].key))
            continue;
        if (!add_ifs_for(list, &all[n], ifs, nifs))
            dsm_fatal("no network interface of this host reaches node %d's host (no shared network, no "
                      "route); name the interfaces that connect the hosts in UCX_NET_DEVICES", n);
    }
    add_rdma_ports(list);
}

/* ---- transports ------------------------------------------------------------ */

static bool token_is(const char *tok, size_t len, const char *name)
{
    size_t n = strcspn(tok, ":");      /* "tcp:aux" names tcp */
    if (n > len)
        n = len;
    return n == strlen(name) && !strncasecmp(tok, name, n);
}

/* Does the comma-separated list name the transport? */
static bool list_names(const char *list, const char *name)
{
    for (const char *p = list; *p; p = next_token(p)) {
        if (token_is(p, strcspn(p, ","), name))
            return true;
    }
    return false;
}

/* UCX's shared-memory aliases without sysv, with the optional kernel
 * modules only where they are loaded (UCX warns about named transports it
 * does not have). */
static void add_shared_memory(char out[LIST_LEN], bool with_cma)
{
    list_add(out, "posix");
    if (access("/dev/xpmem", F_OK) == 0)
        list_add(out, "xpmem");
    if (with_cma && access("/dev/knem", F_OK) == 0)
        list_add(out, "knem");
    if (with_cma)
        list_add(out, "cma");
}

/* The user's positive list, sysv refused and aliases expanded without it;
 * "all" becomes "everything but sysv". */
static void rewrite_list(const char *user, char out[LIST_LEN])
{
    out[0] = '\0';
    for (const char *p = user; *p; p = next_token(p)) {
        size_t len = strcspn(p, ",");
        char tok[LIST_LEN];
        snprintf(tok, sizeof tok, "%.*s", (int)(len < sizeof tok ? len : sizeof tok - 1), p);
        if (token_is(p, len, "sysv"))
            dsm_fatal("UCX_TLS=%s names sysv: UCX's SysV shared memory is readable and writable by the "
                      "owner's group (mode 0660), which would expose the job's memory; use posix", user);
        if (token_is(p, len, "all")) {
            snprintf(out, LIST_LEN, "^sysv");
            return;
        }
        if (token_is(p, len, "sm") || token_is(p, len, "shm"))
            add_shared_memory(out, true);
        else if (token_is(p, len, "mm"))
            add_shared_memory(out, false);
        else if (len)
            list_add(out, tok);
    }
}

/* The TLS to give UCX.  Unset: everything but sysv, and on one host (with
 * no devices named either) not tcp, so that the job listens on nothing. */
static void choose_tls(const char *user, bool one_host, bool user_devices, char out[LIST_LEN])
{
    if (!user || !*user) {
        snprintf(out, LIST_LEN, one_host && !user_devices ? "^sysv,tcp" : "^sysv");
    } else if (user[0] == '^') {
        bool has_sysv = list_names(user + 1, "sysv");
        if (snprintf(out, LIST_LEN, "%s%s", user, has_sysv ? "" : ",sysv") >= LIST_LEN)
            dsm_fatal("UCX_TLS is too long (%zu characters)", strlen(user));
    } else {
        rewrite_list(user, out);
    }
}

static bool tls_may_use_tcp(const char *tls)
{
    return tls[0] == '^' ? !list_names(tls + 1, "tcp") : list_names(tls, "tcp");
}

/* Does the TLS leave UCX a shared-memory transport (one that moves data
 * through memory both processes map, or one copies from the other's)? */
static bool tls_may_share_memory(const char *tls)
{
    static const char *const kinds[] = { "posix", "cma", "xpmem", "knem" };
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        if (tls[0] == '^' ? !list_names(tls + 1, kinds[i]) : list_names(tls, kinds[i]))
            return true;
    return false;
}

/* Per node, after net_policy_apply: on this host, and shared memory allowed. */
static bool *shares_memory;

bool net_policy_shares_memory(int node)
{
    return shares_memory && shares_memory[node];
}

static void modify(ucp_config_t *config, const char *name, const char *value)
{
    ucs_status_t st = ucp_config_modify(config, name, value);
    if (st != UCS_OK)
        dsm_fatal("UCX refused %s=%s: %s", name, value, ucs_status_string(st));
}

void net_policy_apply(ucp_config_t *config, int rank, int size)
{
    struct local_if ifs[MAX_ADDRS];
    int nifs = local_ifs(ifs);
    struct host_info *all = exchange_hosts(size, ifs, nifs);
    bool one_host = true;
    for (int n = 0; n < size; n++)
        one_host = one_host && !strcmp(all[n].key, all[rank].key);

    const char *user_tls = dsm_env("UCX_TLS");
    bool devices_set = dsm_env("UCX_NET_DEVICES") != NULL;
    char tls[LIST_LEN];
    choose_tls(user_tls, one_host, devices_set, tls);
    modify(config, "TLS", tls);
    bool may_share = tls_may_share_memory(tls);
    shares_memory = xcalloc((size_t)size, sizeof *shares_memory);
    for (int n = 0; n < size; n++)
        shares_memory[n] = may_share && !strcmp(all[n].key, all[rank].key);
    /* Devices named by the user win.  Otherwise: on one host, loopback (all
     * tcp needs there; naming it also keeps RDMA devices out of a job that
     * shared memory serves); across hosts, the interfaces that reach them. */
    if (!devices_set && (!user_tls || tls_may_use_tcp(tls))) {
        char devices[LIST_LEN] = "lo";
        if (!one_host)
            multi_host_devices(devices, all, size, rank, ifs, nifs);
        modify(config, "NET_DEVICES", devices);
    }
    free(all);
}
