/*
 * config.c: parses the OMPDSM_* environment variables.
 *
 * It also checks the one UCX variable whose bad value UCX reports without
 * naming it (UCX_TLS).  The parsing helpers it shares with the other
 * layers' variables are util/env.c's.  The transport's settings are parsed
 * here too and handed to it at net_init() (net/ includes nothing of dsm/).
 *
 * Defaults are chosen for the embedded case (several nodes on one machine):
 * a 16 GiB sparse region far above the usual mmap and heap areas, the OS page
 * as the DSM page, homes at the node that first touches a page (claimed in
 * runs; page-interleaved, cyclic homes as in SCASH made the nodes' first
 * sweep over a global array fetch and diff half of it, 2-3 times slower).
 */
#include "config.h"

#include "../util/env.h"
#include "../util/log.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

struct dsm_config dsm_cfg;

static void load_region(void)
{
    const char *v;
    dsm_cfg.region_base = 0x200000000000UL;
    dsm_cfg.region_size = 16UL << 30;
    if ((v = dsm_env("OMPDSM_REGION_SIZE"))
        && (!dsm_parse_size(v, &dsm_cfg.region_size) || dsm_cfg.region_size == 0))
        dsm_fatal("OMPDSM_REGION_SIZE='%s' is not a size (examples: 4G, 512M)", v);
    if ((v = dsm_env("OMPDSM_REGION_BASE"))) {
        char *end;
        errno = 0;
        unsigned long long b = strtoull(v, &end, 0);
        if (errno || *end || b == 0 || b % (unsigned long long)sysconf(_SC_PAGESIZE))
            dsm_fatal("OMPDSM_REGION_BASE='%s' is not a page-aligned address (example: 0x200000000000)", v);
        dsm_cfg.region_base = (uintptr_t)b;
    }
}

static void load_host_box(void)
{
    const char *v = dsm_env("OMPDSM_HOST_BOX");
    dsm_cfg.host_box = 1 << 20;
    if (v && (!dsm_parse_size(v, &dsm_cfg.host_box) || dsm_cfg.host_box < 4096 || dsm_cfg.host_box > (1UL << 30)))
        dsm_fatal("OMPDSM_HOST_BOX='%s' is not a size from 4K to 1G", v);
    dsm_cfg.host_box = (dsm_cfg.host_box + 4095) & ~(size_t)4095;
}

static void load_page_size(void)
{
    const char *v = dsm_env("OMPDSM_PAGE_SIZE");
    size_t os = (size_t)sysconf(_SC_PAGESIZE);
    dsm_cfg.page_size = os;
    if (!v)
        return;
    size_t ps;
    if (!dsm_parse_size(v, &ps) || ps < os || ps % os || (ps & (ps - 1)) || ps > (1UL << 24))
        dsm_fatal("OMPDSM_PAGE_SIZE='%s' must be a power of two, a multiple of the OS page (%zu), at most 16M",
                  v, os);
    dsm_cfg.page_size = ps;
}

static void load_home(void)
{
    const char *v = dsm_env("OMPDSM_HOME");
    dsm_cfg.home = DSM_HOME_FIRST_TOUCH;
    if (!v)
        return;
    if (!strcasecmp(v, "cyclic"))
        dsm_cfg.home = DSM_HOME_CYCLIC;
    else if (!strcasecmp(v, "block"))
        dsm_cfg.home = DSM_HOME_BLOCK;
    else if (!strcasecmp(v, "first-touch") || !strcasecmp(v, "first_touch"))
        dsm_cfg.home = DSM_HOME_FIRST_TOUCH;
    else
        dsm_fatal("OMPDSM_HOME='%s' is not one of cyclic, block, first-touch", v);
}

/* auto | off | first | every | every:N */
static void load_migrate(void)
{
    const char *v = dsm_env("OMPDSM_MIGRATE");
    dsm_cfg.migrate = DSM_MIGRATE_AUTO;
    dsm_cfg.migrate_every = 1;
    if (!v || !strcasecmp(v, "auto"))
        return;
    dsm_cfg.migrate = DSM_MIGRATE_OFF;
    if (!strcasecmp(v, "off") || !strcmp(v, "0"))
        return;
    if (!strcasecmp(v, "first")) {
        dsm_cfg.migrate = DSM_MIGRATE_FIRST;
        return;
    }
    if (!strncasecmp(v, "every", 5)) {
        dsm_cfg.migrate = DSM_MIGRATE_EVERY;
        if (v[5] == '\0')
            return;
        if (v[5] == ':' && v[6] >= '1' && v[6] <= '9') {
            char *end;
            errno = 0;
            unsigned long n = strtoul(v + 6, &end, 10);
            if (!errno && !*end && n <= 1000000) {
                dsm_cfg.migrate_every = (unsigned)n;
                return;
            }
        }
    }
    dsm_fatal("OMPDSM_MIGRATE='%s' is not one of auto, off, first, every, every:N (N a positive integer)", v);
}

static bool parse_bool(const char *name, bool dflt)
{
    const char *v = dsm_env(name);
    if (!v)
        return dflt;
    if (!strcmp(v, "1") || !strcasecmp(v, "true") || !strcasecmp(v, "yes") || !strcasecmp(v, "on"))
        return true;
    if (!strcmp(v, "0") || !strcasecmp(v, "false") || !strcasecmp(v, "no") || !strcasecmp(v, "off"))
        return false;
    dsm_fatal("%s='%s' is not a boolean (1/0, true/false, yes/no, on/off)", name, v);
}

static int parse_int(const char *name, int dflt, int min, int max)
{
    const char *v = dsm_env(name), *end;
    long x;
    if (!v)
        return dflt;
    if (!dsm_parse_long(v, min, max, &x, &end) || *end)
        dsm_fatal("%s='%s' is not an integer in %d..%d", name, v, min, max);
    return (int)x;
}

static double parse_seconds(const char *name, double dflt)
{
    const char *v = dsm_env(name);
    if (!v)
        return dflt;
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (errno || end == v || *end || !(x >= 0 && x <= 1e6))
        dsm_fatal("%s='%s' is not a number of seconds in 0..1000000", name, v);
    return x;
}

/* Below a second, heartbeats (four per timeout) come faster than a node on
 * a busy machine is sure to be scheduled, and healthy jobs would be ended. */
#define MIN_NODE_TIMEOUT 1.0

static double load_node_timeout(void)
{
    double t = parse_seconds("OMPDSM_NODE_TIMEOUT", 30);
    if (t > 0 && t < MIN_NODE_TIMEOUT)
        dsm_fatal("OMPDSM_NODE_TIMEOUT='%s' is below the minimum of %g s (a busy node may answer a heartbeat "
                  "late by that much); use %g or more, or 0 to turn the check off",
                  dsm_env("OMPDSM_NODE_TIMEOUT"), MIN_NODE_TIMEOUT, MIN_NODE_TIMEOUT);
    return t;
}

/* UCX's own variable, checked here because UCX's message for an empty list
 * ("The TLs list is empty", then ucp_init failing with "No such element")
 * does not name it. */
static void check_ucx_tls(void)
{
    const char *v = getenv("UCX_TLS");
    if (v && v[strspn(v, "^, \t")] == '\0')
        dsm_fatal("UCX_TLS='%s' names no transport: unset it, or list some (UCX_TLS=self,sm on one machine, "
                  "UCX_TLS=self,sm,tcp across machines)", v);
}

/* How long a thread waiting for a barrier, a region's start or a reply
 * polls before it sleeps.  Waking a sleeper costs the waker nothing but
 * costs the sleeper the scheduler's wake-up: 60-100 us for a thread on an
 * idle CPU of this machine's VMs (a futex wake across CPUs, median 80 us),
 * and several of those in a row when the nodes take turns at short loops.
 * NAS CG A at 2 nodes, 8 runs alternating: median 1.02 s polling 50 us,
 * 0.86 s polling 500 us.  The poll yields its CPU every few rounds, so a
 * thread that shares it loses little.  OMP_WAIT_POLICY chooses as libgomp's
 * does (omp_rt/env.c checks its value); OMPDSM_SPIN_US overrides it. */
enum { SPIN_US = 500, SPIN_ACTIVE_US = 10000 };

static unsigned load_spin(void)
{
    const char *w = dsm_env("OMP_WAIT_POLICY");
    int dflt = !w ? SPIN_US : dsm_is_word(w, "passive") ? 0 : dsm_is_word(w, "active") ? SPIN_ACTIVE_US : SPIN_US;
    return (unsigned)parse_int("OMPDSM_SPIN_US", dflt, 0, 1000000);
}

void dsm_config_load(void)
{
    load_region();
    load_page_size();
    load_home();
    load_migrate();
    if (dsm_cfg.region_size % dsm_cfg.page_size)
        dsm_fatal("OMPDSM_REGION_SIZE (%zu) is not a multiple of OMPDSM_PAGE_SIZE (%zu)",
                  dsm_cfg.region_size, dsm_cfg.page_size);
    dsm_cfg.net.spin_us = load_spin();
    dsm_cfg.net.progress_nice = parse_int("OMPDSM_PROGRESS_NICE", -10, -20, 19);
    dsm_cfg.readahead = (unsigned)parse_int("OMPDSM_READAHEAD", 7, 0, 1024);
    dsm_cfg.stats = parse_bool("OMPDSM_STATS", false);
    dsm_cfg.host_segment = parse_bool("OMPDSM_HOST_SEGMENT", true);
    load_host_box();
    dsm_cfg.trace = dsm_env("OMPDSM_TRACE");
    dsm_cfg.node_timeout = load_node_timeout();
    check_ucx_tls();
}

const char *dsm_home_policy_name(enum dsm_home_policy p)
{
    switch (p) {
    case DSM_HOME_CYCLIC: return "cyclic";
    case DSM_HOME_BLOCK: return "block";
    case DSM_HOME_FIRST_TOUCH: return "first-touch";
    }
    return "?";
}
