/*
 * The table of transitions allows what the protocol does and refuses what
 * it forbids: a write that leaves no twin, a miss on a page nobody
 * claimed, a claim of a busy page, an invalidation that keeps a twin.
 * Every event has a rule.  In a checking build a refused transition stops
 * the node with a message naming the page, the event and both states.
 */
#include "fake_pages.h"
#include "unit.h"

#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

enum { T = DSM_PS_TWIN };

static void allows_the_protocol(void)
{
    EXPECT(dsm_ps_allowed(DSM_EV_WRITE_UPGRADE, PG_RO, PF_SHARER, PG_RW, PF_SHARER | T), "write-upgrade");
    EXPECT(dsm_ps_allowed(DSM_EV_WRITE_AHEAD, PG_RO, PF_SHARER | PF_BUSY, PG_RW, PF_SHARER | T), "write-ahead");
    EXPECT(!dsm_ps_allowed(DSM_EV_WRITE_AHEAD, PG_RO, PF_SHARER, PG_RW, PF_SHARER | T), "write-ahead of a page not claimed");
    EXPECT(dsm_ps_allowed(DSM_EV_READ_MISS, PG_INVALID, PF_BUSY | PF_SHARER, PG_RO, PF_SHARER), "read-miss");
    EXPECT(dsm_ps_allowed(DSM_EV_PUBLISH, PG_RW, PF_BUSY | T, PG_RO, 0), "publish");
    EXPECT(dsm_ps_allowed(DSM_EV_CLAIM, PG_RW, T, PG_RW, PF_BUSY | T), "claim");
}

static void refuses_what_it_forbids(void)
{
    EXPECT(!dsm_ps_allowed(DSM_EV_WRITE_UPGRADE, PG_RO, 0, PG_RW, 0), "a write without a twin");
    EXPECT(!dsm_ps_allowed(DSM_EV_WRITE_MISS, PG_INVALID, PF_BUSY, PG_RW, 0), "a write miss without a twin");
    EXPECT(!dsm_ps_allowed(DSM_EV_READ_MISS, PG_INVALID, 0, PG_RO, 0), "a miss on an unclaimed page");
    EXPECT(!dsm_ps_allowed(DSM_EV_CLAIM, PG_RO, PF_BUSY, PG_RO, PF_BUSY), "a claim of a busy page");
    EXPECT(!dsm_ps_allowed(DSM_EV_CLAIM, PG_RO, 0, PG_RW, PF_BUSY), "a claim that changes the state");
    EXPECT(!dsm_ps_allowed(DSM_EV_INVALIDATE, PG_RW, PF_BUSY | T, PG_INVALID, T), "a dropped copy with a twin");
    EXPECT(!dsm_ps_allowed(DSM_EV_HOME_WRITE, PG_RO, 0, PG_RW, T), "a twin at the home");
    EXPECT(!dsm_ps_allowed(DSM_EV_PUBLISH, PG_RW, 0, PG_RO, 0), "a publish of an unclaimed page");
}

static void every_event_has_a_rule(void)
{
    for (int ev = 0; ev < DSM_EV_COUNT; ev++) {
        bool found = false;
        for (size_t i = 0; i < dsm_ps_nrules; i++)
            found |= dsm_ps_rules[i].ev == (enum dsm_event)ev;
        EXPECT(found, "event %s has no rule", dsm_ps_event_name(ev));
    }
}

/* Claims a page twice in a child; returns what it wrote on stderr. */
static int refused_in_child(char *msg, size_t len)
{
    int fd[2];
    if (pipe(fd))
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fd[1], 2);
        fake_pages_init(1, NULL);
        dsm_ps_claim(42);
        dsm_ps_claim(42);
        _exit(0);
    }
    close(fd[1]);
    ssize_t n = read(fd[0], msg, len - 1);
    msg[n > 0 ? n : 0] = '\0';
    close(fd[0]);
    int st;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void refused_transition_stops_the_node(void)
{
    char msg[1024];
    int rc = refused_in_child(msg, sizeof msg);
    EXPECT(rc == 1, "exit status %d", rc);
    EXPECT(strstr(msg, "page 42: transition claim from INVALID {BUSY} to INVALID {BUSY}"), "message: %s", msg);
}

int main(void)
{
    allows_the_protocol();
    refuses_what_it_forbids();
    every_event_has_a_rule();
    refused_transition_stops_the_node();
    return unit_status();
}
