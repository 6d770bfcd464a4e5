/*
 * ops.h: the op code of every message of every layer, in one place, so
 * that no two layers can pick the same number; net_register() stops the
 * node if an op is registered twice.  The list sits with the transport,
 * which hands the numbers out: the names of the layers above are all it
 * knows of them.  Each message's body is described where its layer
 * defines it (dsm/proto.h for the coherence protocol).
 */
#ifndef NET_OPS_H
#define NET_OPS_H

enum net_op {
    /* transport (net.c, liveness.c) */
    NET_OP_HEARTBEAT = 1,   /* empty body */
    NET_OP_DONE,            /* cookie: see net_send_done */
    /* coherence protocol (dsm/, dsm/proto.h) */
    OP_HOME_REQ,            /* home_req → base: who is home? (claim it if nobody) */
    OP_HOME_REP,            /* home_rep → requester */
    OP_DIFF,                /* batch_hdr + entries → home: apply these runs (net_send_done) */
    OP_BAR_ARRIVE,          /* bar_hdr + pages written → node 0 */
    OP_BAR_RELEASE,         /* bar_hdr + notices → every node */
    OP_BAR_UPDATE,          /* notice_hdr + pages written after arriving → node 0 (net_send_done) */
    OP_IDLE_WAKE,           /* wake_hdr + notices + data → an idle node (barrier.c) */
    OP_LOCK_ACQ,            /* lock_req → manager */
    OP_LOCK_GRANT,          /* lock_grant + pages → requester */
    OP_LOCK_REL,            /* lock_req + pages written → manager */
    OP_ATOMIC,              /* atomic_req → home (atomic.c) */
    OP_ATOMIC_REP,          /* atomic_rep → requester */
    OP_NOTICE,              /* notice_hdr + pages written → every other node (notice.c) */
    /* home migration (migrate/) */
    OP_MIG_COUNTS,          /* batch_hdr + counts_entry[] → home (net_send_done) */
    /* OpenMP runtime (omp_rt/) */
    OP_WS_NEXT,             /* worksharing service (ws.c) */
    OP_WS_CHUNK,
    OP_ORD_WAIT,
    OP_ORD_DONE,
    OP_DA_WAIT,             /* wait_req → the node of the iteration waited for (doacross.c) */
    OP_DA_DONE,             /* wait_rep → the waiter */
    OP_CANCEL,              /* cancel_msg → the team's other nodes (cancel.c) */
    OP_WS_STEAL,            /* steal_req → a node of the team (steal.c) */
    OP_WS_STOLEN,           /* steal_rep → the thief */
    OP_HEAP_FREE,           /* a block of another node's arena to free (heap.c) */
    OP_TASK_HINT,           /* tasks (task.c) */
    OP_TASK_STEAL,
    OP_TASK_GIVE,
    OP_TASK_DONE,
    OP_TASK_FULFILL,        /* fulfil → the node that created a detached task (task.c) */
    OP_TASK_CANCEL,         /* done → the creator of a task that cancels its taskgroup (task.c) */
    OP_JOB_EXIT,            /* job_exit → every other node (exit.c, net_send_done) */
    OP_EXIT_FOR,            /* job_exit → node 0: run exit() for a thread of the sender (exit.c) */
    OP_FILE,                /* file_req + bytes → node 0 (files.c, net_send_done) */
    NET_MAX_OPS
};

#endif
