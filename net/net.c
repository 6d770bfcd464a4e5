/*
 * net.c: active messages over UCX UCP, the progress thread, and sleeping waits.
 *
 * One UCP worker per node, used in SERIALIZED mode under our own mutex.  The
 * mutex is held across ucp_worker_progress(), so message handlers run with it
 * held; a thread-local depth lets a handler send without locking twice.
 * Large messages for handlers registered to run unlocked wait in `deferred`
 * until the thread that received them has let the mutex go.
 *
 * UCX emulates one-sided operations over active messages on the shared-memory
 * and tcp transports, so a node must keep serving its peers while its
 * application computes (gets from a node of this host whose memory we map
 * are copies by the reader instead, direct.h).  The progress thread does
 * that: it drains the worker, arms the UCX wakeup descriptor and sleeps in
 * epoll until a message arrives or it is told to stop.  It never spins.
 *
 * Every message body starts with a net_msg_hdr naming its source node;
 * handlers receive the rest.  Messages that UCX delivers by rendezvous are
 * received into a private buffer first and handed over when complete.  A
 * large payload may go uncopied (net_send_nocopy): the message's start then
 * travels as UCX's own header, and the receiver puts the two together.
 */
#include "net.h"
#include "boot.h"
#include "direct.h"
#include "msg_buf.h"
#include "net_policy.h"
#include "../util/clock.h"
#include "../util/env.h"
#include "../util/futex.h"
#include "../util/log.h"
#include "../util/xalloc.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucp/api/ucp.h>
#include <unistd.h>

#define NET_MAX_REGIONS 8

/* A region of memory every node exposes: each node's address and key, and
 * where this node maps it itself (a node of this host whose region is
 * file-backed, direct.h). */
struct region {
    ucp_mem_h mem;
    size_t len;
    uint64_t *remote;           /* per node: base address */
    ucp_rkey_h *rkey;           /* per node */
    const void **view;          /* per node: read-only view, or NULL */
};

/* A get from a node's view, done when its batch ends (net_rma_end), not
 * under the transport lock: a copy to memory, or into a file. */
struct copy {
    void *to;
    const void *from;
    size_t len;
    int fd;                     /* >= 0: written into this file at `at`, not to `to` */
    uint64_t at;
};

/* Eight bytes, so that the body after it is as aligned as the message:
 * handlers read their own headers (with uint64_t fields) in place. */
struct net_msg_hdr {
    uint32_t src;
    uint32_t unused;
};

struct rndv_buf {
    uint8_t op;
    size_t len;
    char data[];
};

static struct {
    ucp_context_h ctx;
    ucp_worker_h worker;
    ucp_ep_h *eps;
    int rank, size;
    int epfd, kickfd;
    pthread_t thread;
    bool running;
    _Atomic bool stop;
    _Atomic int polling;        /* threads progressing the worker in net_wait */
    _Atomic uint64_t poll_end;  /* when the last of them stopped, having its reply */
    pthread_mutex_t lock;
    net_handler_t handlers[NET_MAX_OPS];
    bool unlocked[NET_MAX_OPS];     /* net_register_unlocked */
    struct region regions[NET_MAX_REGIONS];
    int nregions;
    size_t max_am_header;       /* the worker's limit for a message's start sent apart */
} net = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* The settings net_init() was given. */
static struct net_config net_cfg;

static __thread int lock_depth;

/* The current batch's gets from views (a thread has one batch at a time). */
static __thread struct {
    struct copy *v;
    size_t n, cap;
} copies;

static void net_lock(void)
{
    if (lock_depth++ == 0)
        pthread_mutex_lock(&net.lock);
}

/* As net_lock, unless another thread holds the lock. */
static bool net_trylock(void)
{
    if (lock_depth == 0 && pthread_mutex_trylock(&net.lock) != 0)
        return false;
    lock_depth++;
    return true;
}

static void net_unlock(void)
{
    if (--lock_depth == 0)
        pthread_mutex_unlock(&net.lock);
}

bool net_lock_held(void)
{
    return lock_depth > 0;
}

static void check(ucs_status_t st, const char *what)
{
    if (st != UCS_OK)
        dsm_fatal("UCX %s failed: %s", what, ucs_status_string(st));
}

/* ---- receiving ---------------------------------------------------------- */

/* Handlers get a body aligned to 8 bytes (net.h).  UCX hands eager
 * messages over where its transport put them, which so far has always been
 * aligned; one that is not is copied first. */
static void deliver(uint8_t op, void *data, size_t len)
{
    if (len < sizeof(struct net_msg_hdr))
        dsm_fatal("truncated message (op %u, %zu bytes)", op, len);
    if ((uintptr_t)data % 8) {
        void *copy = xmemdup(data, len);
        deliver(op, copy, len);
        free(copy);
        return;
    }
    struct net_msg_hdr *h = data;
    net.handlers[op]((int)h->src, (char *)data + sizeof *h, len - sizeof *h);
}

/* Rendezvous messages received for handlers that run without the lock,
 * waiting for the receiving thread to let it go (under the lock; `n` is
 * read without it, to look). */
static struct {
    struct rndv_buf **v;
    size_t cap;
    _Atomic size_t n;
} deferred;

/* A rendezvous message's bytes: diff batches of up to tens of megabytes,
 * from kept buffers (msg_buf.h). */
static struct rndv_buf *rndv_buf_get(size_t len)
{
    struct rndv_buf *b = msg_buf_get(sizeof *b + len);
    b->len = len;
    return b;
}

/* A complete rendezvous message: handled now, under the lock, or queued
 * for deliver_ready. */
static void rndv_arrived(struct rndv_buf *b)
{
    if (!net.unlocked[b->op]) {
        deliver(b->op, b->data, b->len);
        msg_buf_put(b);
        return;
    }
    size_t n = atomic_load(&deferred.n);
    deferred.v = xgrow(deferred.v, &deferred.cap, n + 1, sizeof *deferred.v);
    deferred.v[n] = b;
    atomic_store(&deferred.n, n + 1);
}

/* Hands the queued messages to their handlers; called by a thread that
 * progressed the worker, once it has let the lock go.  Says whether there
 * were any. */
static bool deliver_ready(void)
{
    if (atomic_load(&deferred.n) == 0)
        return false;
    net_lock();
    size_t n = atomic_load(&deferred.n);
    struct rndv_buf **todo = deferred.v;
    deferred.v = NULL;
    deferred.cap = 0;
    atomic_store(&deferred.n, 0);
    net_unlock();
    for (size_t i = 0; i < n; i++) {
        deliver(todo[i]->op, todo[i]->data, todo[i]->len);
        msg_buf_put(todo[i]);
    }
    free(todo);
    return n > 0;
}

/* Requests are released in their completion callbacks: releasing one that
 * is still in flight would also cancel its callback. */
static void rndv_done(void *request, ucs_status_t status, size_t length, void *user_data)
{
    (void)length;
    check(status, "rendezvous receive");
    ucp_request_free(request);
    rndv_arrived(user_data);
}

/* A message whose start (the net_msg_hdr and the sender's header) came as
 * UCX's header, apart from the rest (net_send_nocopy), is put together
 * again: the rest is received after the start (rendezvous), or both are
 * copied (eager). */
static ucs_status_t am_cb(void *arg, const void *header, size_t header_length,
                          void *data, size_t length, const ucp_am_recv_param_t *param)
{
    uint8_t op = (uint8_t)(uintptr_t)arg;
    if (!(param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV)) {
        if (!header_length) {
            deliver(op, data, length);
            return UCS_OK;
        }
        char *whole = xmalloc(header_length + length);
        memcpy(whole, header, header_length);
        memcpy(whole + header_length, data, length);
        deliver(op, whole, header_length + length);
        free(whole);
        return UCS_OK;
    }
    struct rndv_buf *b = rndv_buf_get(header_length + length);
    b->op = op;
    if (header_length)
        memcpy(b->data, header, header_length);
    ucp_request_param_t p = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA,
        .cb.recv_am = rndv_done,
        .user_data = b,
    };
    ucs_status_ptr_t r = ucp_am_recv_data_nbx(net.worker, data, b->data + header_length, length, &p);
    if (UCS_PTR_IS_ERR(r))
        check(UCS_PTR_STATUS(r), "rendezvous receive");
    if (r == NULL)
        rndv_arrived(b);
    return UCS_OK;
}

void net_register(uint8_t op, net_handler_t handler)
{
    if (op >= NET_MAX_OPS)
        dsm_fatal("internal: message op %u out of range", op);
    if (net.handlers[op])
        dsm_fatal("internal: message op %u registered twice", op);
    net.handlers[op] = handler;
    ucp_am_handler_param_t p = {
        .field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB
                    | UCP_AM_HANDLER_PARAM_FIELD_ARG,
        .id = op,
        .cb = am_cb,
        .arg = (void *)(uintptr_t)op,
    };
    net_lock();
    check(ucp_worker_set_am_recv_handler(net.worker, &p), "ucp_worker_set_am_recv_handler");
    net_unlock();
}

void net_register_unlocked(uint8_t op, net_handler_t handler)
{
    net_register(op, handler);
    net.unlocked[op] = true;
}

/* ---- sending ------------------------------------------------------------ */

static void kick_progress_thread(void)
{
    uint64_t one = 1;
    ssize_t w = write(net.kickfd, &one, sizeof one);
    (void)w;
}

/* A send still under way when the job ends is canceled by the forced
 * close of the endpoints (close_endpoints): a reply a handler sent while
 * this node was leaving, which nobody waits for any more. */
static void send_done(void *request, ucs_status_t status, void *user_data)
{
    if (status != UCS_ERR_CANCELED)
        check(status, "active message send");
    ucp_request_free(request);
    msg_buf_put(user_data);
}

/* Sends start[0..start_len) (as UCX's header) and data[0..len) to node
 * dst, with the transport lock held, and lets the lock go.  Says whether
 * the send is done already; otherwise done(user_data) runs once it is. */
static bool send_unlock(int dst, uint8_t op, const void *start, size_t start_len, const void *data, size_t len,
                        ucp_send_nbx_callback_t done, void *user_data)
{
    ucp_request_param_t p = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA,
        .cb.send = done,
        .user_data = user_data,
    };
    ucs_status_ptr_t r = ucp_am_send_nbx(net.eps[dst], op, start, start_len, data, len, &p);
    if (UCS_PTR_IS_ERR(r))
        dsm_fatal("sending to node %d failed: %s", dst, ucs_status_string(UCS_PTR_STATUS(r)));
    net_unlock();
    if (r == NULL)
        return true;
    /* The send is queued inside UCX and needs more progress; whoever
     * progressed until now (a waiting thread, or a handler's caller) may
     * stop before it is out, so make sure the progress thread looks at it. */
    kick_progress_thread();
    return false;
}

/* Sends the message unless `try_only` and another thread holds the
 * transport lock; says whether it was sent. */
static bool send_msg(int dst, uint8_t op, const void *hdr, size_t hdr_len,
                     const void *payload, size_t payload_len, bool try_only)
{
    size_t len = sizeof(struct net_msg_hdr) + hdr_len + payload_len;
    char *buf = msg_buf_get(len);
    *(struct net_msg_hdr *)buf = (struct net_msg_hdr){ .src = (uint32_t)net.rank };
    if (hdr_len)
        memcpy(buf + sizeof(struct net_msg_hdr), hdr, hdr_len);
    if (payload_len)
        memcpy(buf + sizeof(struct net_msg_hdr) + hdr_len, payload, payload_len);

    if (!try_only) {
        net_lock();
    } else if (!net_trylock()) {
        msg_buf_put(buf);
        return false;
    }
    if (send_unlock(dst, op, NULL, 0, buf, len, send_done, buf))
        msg_buf_put(buf);
    return true;
}

void net_send(int dst, uint8_t op, const void *hdr, size_t hdr_len,
              const void *payload, size_t payload_len)
{
    send_msg(dst, op, hdr, hdr_len, payload, payload_len, false);
}

/* A send of net_send_nocopy: the message's start, which UCX 1.13 reads
 * until the send completes, and whom to tell. */
struct nocopy {
    struct net_wait *sent;
    unsigned char start[];      /* a net_msg_hdr, then the sender's header */
};

static void nocopy_done(void *request, ucs_status_t status, void *user_data)
{
    if (status != UCS_ERR_CANCELED)
        check(status, "active message send");
    ucp_request_free(request);
    struct nocopy *z = user_data;
    net_wait_done(z->sent);
    free(z);
}

void net_send_nocopy(int dst, uint8_t op, const void *hdr, size_t hdr_len, const void *payload,
                     size_t payload_len, struct net_wait *sent)
{
    size_t start_len = sizeof(struct net_msg_hdr) + hdr_len;
    if (start_len > net.max_am_header) {
        send_msg(dst, op, hdr, hdr_len, payload, payload_len, false);
        net_wait_done(sent);
        return;
    }
    struct nocopy *z = xmalloc(sizeof *z + start_len);
    struct net_msg_hdr m = { .src = (uint32_t)net.rank };
    z->sent = sent;
    memcpy(z->start, &m, sizeof m);
    if (hdr_len)
        memcpy(z->start + sizeof m, hdr, hdr_len);
    net_lock();
    if (send_unlock(dst, op, z->start, start_len, payload, payload_len, nocopy_done, z)) {
        net_wait_done(sent);
        free(z);
    }
}

bool net_try_send(int dst, uint8_t op)
{
    return send_msg(dst, op, NULL, 0, NULL, 0, true);
}

/* ---- waiting ------------------------------------------------------------ */

void net_wait_init(struct net_wait *w, uint32_t n)
{
    atomic_store(&w->pending, n);
}

void net_wait_done(struct net_wait *w)
{
    if (atomic_fetch_sub(&w->pending, 1) == 1)
        futex_wake(&w->pending, INT32_MAX);
}

/* Drains the worker and arms it: the next message wakes the progress
 * thread.  Arming fails while events are pending. */
static void drain_and_arm(void)
{
    ucs_status_t st;
    net_lock();
    do {
        while (ucp_worker_progress(net.worker))
            ;
    } while ((st = ucp_worker_arm(net.worker)) == UCS_ERR_BUSY);
    net_unlock();
    check(st, "ucp_worker_arm");
    deliver_ready();
}

/* A polling thread offers its CPU (sched_yield) every SPIN_YIELD polls or
 * pauses.  It polls for a reply that another thread must produce: on a
 * machine whose CPUs the nodes share, often a thread waiting for this very
 * CPU (the progress thread of the node that serves the request, or of
 * this one), which the scheduler would otherwise let run only once the
 * spin ends.  Where nothing else wants the CPU the call returns at once.
 * Two threads of a node faulting on remote pages on 2 CPUs: 1.63x the
 * faults per second of one thread, against 0.9x without yielding (every
 * 2 or 4 polls made one thread's faults slower, every 16 two threads'). */
enum { SPIN_YIELD = 8 };

/* A thread waiting for news of another node (a barrier's arrivals or
 * release, net_spin) waits for a thread that runs: on a CPU of its own
 * when the job has enough, and then a yield is only a system call, which
 * delays seeing the news by its length.  It yields only after polling
 * this long, a few times what an empty barrier at 2 nodes takes here;
 * one that waits longer yields as before.  `#pragma omp barrier` at 2
 * nodes (benchmarks/micro/omp_barrier.c), 10 runs alternating with the
 * previous library: median 0.58 -> 0.46 us (MPI_Barrier 0.17); in a run
 * where the machine was slow (MPI_Barrier 0.42) 1.42 -> 0.79 us. */
enum { QUIET_NS = 2000 };

/* net_spin; `linger`: the caller is likely to wait again soon (a barrier,
 * a lock, a reply), so the progress thread stands by for a moment after
 * it (stand_by_for), as while it polls.  A fetch's wait does not linger: the thread
 * computes after it, and a request of another node arriving meanwhile
 * would wait for the stand-by to end (NAS CG at 2 nodes 10 % slower).
 * `quiet_ns`: how long it polls before it first yields. */
static bool spin(bool (*until)(const void *arg), const void *arg, unsigned every, bool linger, uint64_t quiet_ns)
{
    if (until(arg))
        return true;
    /* The clock is first read after SPIN_YIELD polls: most waits of a
     * barrier end before, and the end of a poll only needs to be about
     * right (stand_by_for). */
    uint64_t now = 0, deadline = 0, loud = 0;
    bool met = false;
    atomic_fetch_add(&net.polling, 1);
    for (unsigned i = 0; !(met = until(arg)); i++) {
        if (i % every == 0)
            net_poll();
        else
            __builtin_ia32_pause();
        if (i % SPIN_YIELD == SPIN_YIELD - 1) {
            now = dsm_now_ns();
            if (!deadline) {
                deadline = now + (uint64_t)net_cfg.spin_us * 1000u;
                loud = now + quiet_ns;
            }
            if (now >= deadline) {
                drain_and_arm();
                met = until(arg);
                break;
            }
            if (now >= loud)
                sched_yield();
        }
    }
    if (met && linger)
        atomic_store(&net.poll_end, now ? now : dsm_last_ns());
    atomic_fetch_sub(&net.polling, 1);
    return met;
}

bool net_spin(bool (*until)(const void *arg), const void *arg, unsigned every)
{
    return spin(until, arg, every, true, QUIET_NS);
}

static bool replied(const void *w)
{
    return atomic_load(&((const struct net_wait *)w)->pending) == 0;
}

/* Polls while the reply is likely to be imminent, then sleeps and leaves
 * progress to the progress thread. */
static void wait_for(struct net_wait *w, bool linger)
{
#ifdef OMPDSM_CHECKING
    /* Only this thread could progress the reply: it would never come. */
    if (lock_depth)
        dsm_fatal("internal: waiting for a reply while holding the transport lock (in a message handler?)");
#endif
    if (spin(replied, w, 1, linger, 0))
        return;
    uint32_t v;
    while ((v = atomic_load(&w->pending)) != 0)
        futex_wait(&w->pending, v);
}

void net_wait(struct net_wait *w)
{
    wait_for(w, true);
}

void net_poll(void)
{
    if (pthread_mutex_trylock(&net.lock) == 0) {
        lock_depth++;
        ucp_worker_progress(net.worker);
        lock_depth--;
        pthread_mutex_unlock(&net.lock);
        deliver_ready();
    }
}

/* ---- one-sided operations ---------------------------------------------- */

int net_expose(void **addr, size_t len, bool allocate, int fd)
{
    if (net.nregions == NET_MAX_REGIONS)
        dsm_fatal("internal: too many exposed memory regions");
    int id = net.nregions++;
    struct region *r = &net.regions[id];
    ucp_mem_map_params_t mp = {
        .field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH
                    | UCP_MEM_MAP_PARAM_FIELD_FLAGS,
        .address = allocate ? NULL : *addr,
        .length = len,
        .flags = allocate ? UCP_MEM_MAP_ALLOCATE : 0,
    };
    check(ucp_mem_map(net.ctx, &mp, &r->mem), "ucp_mem_map");
    ucp_mem_attr_t attr = { .field_mask = UCP_MEM_ATTR_FIELD_ADDRESS };
    check(ucp_mem_query(r->mem, &attr), "ucp_mem_query");
    if (allocate) {
        *addr = attr.address;
        memset(*addr, 0, len);
    }
    void *packed;
    size_t packed_len;
    check(ucp_rkey_pack(net.ctx, r->mem, &packed, &packed_len), "ucp_rkey_pack");
    /* Every node contributes its base address, its file and its key. */
    struct direct_id me = direct_describe(allocate ? -1 : fd);
    size_t head = sizeof(uint64_t) + sizeof me;
    size_t mine_len = head + packed_len;
    char *mine = xmalloc(mine_len);
    uint64_t base = (uint64_t)(uintptr_t)attr.address;
    memcpy(mine, &base, sizeof base);
    memcpy(mine + sizeof base, &me, sizeof me);
    memcpy(mine + head, packed, packed_len);
    ucp_rkey_buffer_release(packed);
    size_t *lens = xcalloc((size_t)net.size, sizeof *lens);
    char *all = net.size > 1 ? boot_allgather(BOOT_TAG_RKEYS, mine, mine_len, lens) : mine;
    if (net.size == 1)
        lens[0] = mine_len;
    r->remote = xcalloc((size_t)net.size, sizeof *r->remote);
    r->rkey = xcalloc((size_t)net.size, sizeof *r->rkey);
    r->view = xcalloc((size_t)net.size, sizeof *r->view);
    r->len = len;
    size_t off = 0;
    for (int n = 0; n < net.size; n++) {
        struct direct_id peer;
        memcpy(&r->remote[n], all + off, sizeof(uint64_t));
        memcpy(&peer, all + off + sizeof(uint64_t), sizeof peer);
        check(ucp_ep_rkey_unpack(net.eps[n], all + off + head, &r->rkey[n]), "ucp_ep_rkey_unpack");
        if (n != net.rank && net_policy_shares_memory(n))
            r->view[n] = direct_map(&peer, len);
        off += lens[n];
    }
    if (all != mine)
        free(all);
    free(mine);
    free(lens);
    return id;
}

static void rma_done(void *request, ucs_status_t status, void *user_data)
{
    check(status, "one-sided operation");
    ucp_request_free(request);
    net_wait_done(user_data);
}

static void posted(struct net_wait *w, ucs_status_ptr_t r, const char *what, int dst)
{
    if (UCS_PTR_IS_ERR(r))
        dsm_fatal("%s with node %d failed: %s", what, dst, ucs_status_string(UCS_PTR_STATUS(r)));
    if (r != NULL)
        atomic_fetch_add(&w->pending, 1);
}

static ucp_request_param_t rma_param(struct net_wait *w)
{
    return (ucp_request_param_t){
        .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA,
        .cb.send = rma_done,
        .user_data = w,
    };
}

void net_rma_begin(struct net_wait *w)
{
    net_wait_init(w, 0);
    net_lock();
}

static void rma_atomic(struct net_wait *w, ucp_atomic_op_t op, int dst, int id, uint64_t offset,
                       const uint64_t *value)
{
    struct region *rg = &net.regions[id];
    ucp_request_param_t p = rma_param(w);
    p.op_attr_mask |= UCP_OP_ATTR_FIELD_DATATYPE;
    p.datatype = ucp_dt_make_contig(sizeof *value);
    posted(w, ucp_atomic_op_nbx(net.eps[dst], op, value, 1, rg->remote[dst] + offset, rg->rkey[dst], &p),
           "a remote atomic", dst);
}

void net_rma_or(struct net_wait *w, int dst, int id, uint64_t offset, const uint64_t *value)
{
    rma_atomic(w, UCP_ATOMIC_OP_OR, dst, id, offset, value);
}

void net_rma_add(struct net_wait *w, int dst, int id, uint64_t offset, const uint64_t *value)
{
    rma_atomic(w, UCP_ATOMIC_OP_ADD, dst, id, offset, value);
}

void net_rma_fence(void)
{
    check(ucp_worker_fence(net.worker), "ucp_worker_fence");
}

/* Queues a get from a view for net_rma_end. */
static void queue_copy(struct copy c)
{
    copies.v = xgrow(copies.v, &copies.cap, copies.n + 1, sizeof *copies.v);
    copies.v[copies.n++] = c;
}

void net_rma_get(struct net_wait *w, int dst, int id, uint64_t offset, void *buf, size_t len)
{
    struct region *rg = &net.regions[id];
    if (rg->view[dst]) {
        queue_copy((struct copy){ buf, (const char *)rg->view[dst] + offset, len, -1, 0 });
        return;
    }
    ucp_request_param_t p = rma_param(w);
    posted(w, ucp_get_nbx(net.eps[dst], buf, len, rg->remote[dst] + offset, rg->rkey[dst], &p),
           "reading memory", dst);
}

bool net_rma_direct(int dst, int id)
{
    return net.regions[id].view[dst] != NULL;
}

void net_rma_get_file(struct net_wait *w, int dst, int id, uint64_t offset, int fd, uint64_t at, size_t len)
{
    (void)w;
    struct region *rg = &net.regions[id];
    if (!rg->view[dst])
        dsm_fatal("internal: a get into a file from node %d, whose memory this node has no view of", dst);
    queue_copy((struct copy){ NULL, (const char *)rg->view[dst] + offset, len, fd, at });
}

static void copy_to_file(const struct copy *c)
{
    for (size_t done = 0; done < c->len;) {
        ssize_t k = pwrite(c->fd, c->from + done, c->len - done, (off_t)(c->at + done));
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            dsm_fatal("cannot store %zu fetched bytes in the shared segment (out of memory?): %s", c->len,
                      k < 0 ? strerror(errno) : "nothing written");
        done += (size_t)k;
    }
}

/* Releases the transport lock, then waits for the batch as for a reply
 * (polls, then sleeps), without lingering.  Not holding the lock while it
 * polls, a waiting thread lets the node's other threads post their own
 * transfers at once, and whichever polls completes them all; with the lock
 * held through the poll, two threads of a node faulting on remote pages
 * took turns and made fewer faults per second than one.  The gets from
 * views come last, so that they act after everything the batch posted
 * (a fence's order holds). */
void net_rma_end(struct net_wait *w)
{
    net_unlock();
    if (atomic_load(&w->pending) != 0)
        wait_for(w, false);
    for (size_t i = 0; i < copies.n; i++)
        if (copies.v[i].fd >= 0)
            copy_to_file(&copies.v[i]);
        else
            memcpy(copies.v[i].to, copies.v[i].from, copies.v[i].len);
    copies.n = 0;
}

static void release_regions(void)
{
    for (int i = 0; i < net.nregions; i++) {
        struct region *r = &net.regions[i];
        for (int n = 0; n < net.size; n++) {
            ucp_rkey_destroy(r->rkey[n]);
            direct_unmap(r->view[n], r->len);
        }
        ucp_mem_unmap(net.ctx, r->mem);
        free(r->view);
        free(r->rkey);
        free(r->remote);
    }
    net.nregions = 0;
}

/* ---- progress thread ---------------------------------------------------- */

/* The progress thread serves the other nodes' page requests while this
 * node's application computes, often on the same CPU.  Left to itself the
 * scheduler lets the computing thread finish its time slice first (up to
 * milliseconds), and every node that waits for a page from us waits that
 * long.  So the thread asks for a short time slice (sched_setattr's
 * sched_runtime, 100 us), which lets a waking thread preempt one with a
 * longer slice (Linux 6.12 and later; older kernels refuse or ignore it).
 * That is not enough on its own: the scheduler also keeps the threads of
 * a CPU to their fair shares, and a progress thread that served a burst of
 * requests while the application computed has had more than its share, so
 * its next wake-up waits until the computing thread has caught up, up to a
 * scheduler tick (measured: one fetch in two Himeno executions waited
 * 0.85-0.95 ms for a computing home).  A lower nice value weighs the
 * thread's share up and that wait down (OMPDSM_PROGRESS_NICE, default -10:
 * 1 slow fetch instead of 25-40 in a Himeno run).  Raising a thread's
 * priority needs CAP_SYS_NICE or an RLIMIT_NICE; without them the thread
 * keeps the process's nice value.  Not real-time priority: while a large
 * transfer is under way the thread keeps progressing the worker, and at
 * real-time priority it would keep the other nodes' progress threads from
 * the CPUs when there are more nodes than CPUs (4 nodes on 2 CPUs hung). */
static void run_promptly(void)
{
    pid_t self = gettid();
    (void)setpriority(PRIO_PROCESS, (id_t)self, net_cfg.progress_nice);
    errno = 0;
    int nice = getpriority(PRIO_PROCESS, (id_t)self);
    struct {
        uint32_t size, policy;
        uint64_t flags;
        int32_t nice;
        uint32_t priority;
        uint64_t runtime, deadline, period;
    } attr = { .size = sizeof attr, .policy = SCHED_OTHER, .nice = errno ? 0 : nice, .runtime = 100000 };
    syscall(SYS_sched_setattr, 0, &attr, 0);
}

/* How long the progress thread stands by, in ns, or 0 to serve now:
 * woken by a message or a kick, it serves unless a thread is polling; it
 * stands by while one polls, and after the last one stopped with its
 * reply, as that thread is likely to wait again soon, for as long as a
 * poll lasts but at most LINGER_NS: a request that arrives while the
 * thread computes waits for the stand-by to end. */
enum { LINGER_NS = 50000 };

static uint64_t stand_by_for(bool woken)
{
    uint64_t linger = (uint64_t)net_cfg.spin_us * 1000u;
    if (linger > LINGER_NS)
        linger = LINGER_NS;
    if (atomic_load(&net.polling) > 0)
        return LINGER_NS;
    uint64_t idle = dsm_now_ns() - atomic_load(&net.poll_end);
    return woken || idle >= linger ? 0 : linger - idle;
}

/* Sleeps until a message (the worker armed), a kick or, if ns is not 0,
 * ns nanoseconds; says whether a message or a kick came. */
static bool sleep_for(uint64_t ns)
{
    struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000u), .tv_nsec = (long)(ns % 1000000000u) };
    struct epoll_event ev[4];
    int n = epoll_pwait2(net.epfd, ev, 4, ns ? &ts : NULL, NULL);
    if (n < 0 && errno != EINTR)
        dsm_fatal("epoll_pwait2: %s", strerror(errno));
    for (int i = 0; i < n; i++) {
        if (ev[i].data.fd == net.kickfd) {
            uint64_t v;
            ssize_t r = read(net.kickfd, &v, sizeof v);
            (void)r;
        }
    }
    return n > 0;
}

/* The progress thread.  It drains the worker, arms it and sleeps until a
 * message arrives.  While an application thread polls the worker (waiting
 * for a reply, net_wait), it stands by instead: it leaves the worker
 * unarmed, so that messages neither wake it, taking a CPU the polling
 * thread may need, nor cost their senders a wake-up signal, and it does not
 * contend for the worker's lock.  A polling thread that gives up arms the
 * worker itself before it sleeps. */
static void *progress_main(void *arg)
{
    run_promptly();
    sem_post(arg);      /* set up: net_start() may return */
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    bool woken = true;
    while (!atomic_load(&net.stop)) {
        uint64_t wait = stand_by_for(woken);
        if (wait) {
            woken = sleep_for(wait);
            continue;
        }
        net_lock();
        while (ucp_worker_progress(net.worker))
            ;
        ucs_status_t st = ucp_worker_arm(net.worker);
        net_unlock();
        if (deliver_ready() || st == UCS_ERR_BUSY) {
            woken = true;
            continue;
        }
        check(st, "ucp_worker_arm");
        if (atomic_load(&net.stop))
            break;
        woken = sleep_for(0);
    }
    return NULL;
}

/* ---- set-up and tear-down ----------------------------------------------- */

/* UCX 1.13's shared-memory transports keep a message fragment's length in
 * 16 bits: with segments of 64 KiB or more a node aborts, the job hangs or
 * a message arrives cut.  Refuse such settings of UCX's own variables
 * (values that do not parse are left to UCX to refuse). */
static void check_ucx_seg_sizes(void)
{
    static const char *const vars[] = { "UCX_POSIX_SEG_SIZE", "UCX_SYSV_SEG_SIZE" };
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
        const char *v = dsm_env(vars[i]);
        size_t n;
        if (v && dsm_parse_size(v, &n) && n >= 65536)
            dsm_fatal("%s=%s: UCX's shared-memory transports fail with segments of 64 KiB or more "
                      "(nodes abort or hang); use a smaller value", vars[i], v);
    }
}

static void create_worker(void)
{
    check_ucx_seg_sizes();
    ucp_config_t *config;
    check(ucp_config_read(NULL, NULL, &config), "ucp_config_read");
    net_policy_apply(config, net.rank, net.size);
    ucp_params_t params = {
        .field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED,
        .features = UCP_FEATURE_AM | UCP_FEATURE_WAKEUP | UCP_FEATURE_RMA | UCP_FEATURE_AMO64,
        .mt_workers_shared = 0,
    };
    check(ucp_init(&params, config, &net.ctx), "ucp_init");
    ucp_config_release(config);
    ucp_worker_params_t wp = {
        .field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
        .thread_mode = UCS_THREAD_MODE_SERIALIZED,
    };
    check(ucp_worker_create(net.ctx, &wp, &net.worker), "ucp_worker_create");
    ucp_worker_attr_t wa = { .field_mask = UCP_WORKER_ATTR_FIELD_MAX_AM_HEADER };
    check(ucp_worker_query(net.worker, &wa), "ucp_worker_query");
    net.max_am_header = wa.max_am_header;
}

static void connect_all(void)
{
    ucp_address_t *addr;
    size_t addr_len;
    check(ucp_worker_get_address(net.worker, &addr, &addr_len), "ucp_worker_get_address");
    size_t *lens = xcalloc((size_t)net.size, sizeof *lens);
    char *all;
    if (net.size > 1) {
        all = boot_allgather(BOOT_TAG_NET_ADDRS, addr, addr_len, lens);
    } else {
        all = xmemdup(addr, addr_len);
        lens[0] = addr_len;
    }
    ucp_worker_release_address(net.worker, addr);

    net.eps = xcalloc((size_t)net.size, sizeof *net.eps);
    size_t off = 0;
    for (int i = 0; i < net.size; i++) {
        ucp_ep_params_t ep = {
            .field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS,
            .address = (ucp_address_t *)(all + off),
        };
        ucs_status_t st = ucp_ep_create(net.worker, &ep, &net.eps[i]);
        if (st != UCS_OK)
            dsm_fatal("cannot reach node %d over UCX: %s (check UCX_TLS / UCX_NET_DEVICES)",
                      i, ucs_status_string(st));
        off += lens[i];
    }
    free(all);
    free(lens);
}

static void setup_epoll(void)
{
    int efd;
    check(ucp_worker_get_efd(net.worker, &efd), "ucp_worker_get_efd");
    net.kickfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    net.epfd = epoll_create1(EPOLL_CLOEXEC);
    if (net.kickfd < 0 || net.epfd < 0)
        dsm_fatal("eventfd/epoll: %s", strerror(errno));
    /* Edge-triggered: the progress thread, standing by while another thread
     * polls, goes back to sleep without draining the descriptor. */
    struct epoll_event ev = { .events = EPOLLIN | EPOLLET, .data.fd = efd };
    struct epoll_event kick = { .events = EPOLLIN, .data.fd = net.kickfd };
    if (epoll_ctl(net.epfd, EPOLL_CTL_ADD, efd, &ev) || epoll_ctl(net.epfd, EPOLL_CTL_ADD, net.kickfd, &kick))
        dsm_fatal("epoll_ctl: %s", strerror(errno));
}


static void on_done(int src, void *body, size_t len)
{
    uint64_t cookie;
    if (len != sizeof cookie)
        dsm_fatal("malformed reply from node %d", src);
    memcpy(&cookie, body, sizeof cookie);
    net_wait_done((struct net_wait *)(uintptr_t)cookie);
}

void net_send_done(int dst, uint64_t cookie)
{
    net_send(dst, NET_OP_DONE, &cookie, sizeof cookie, NULL, 0);
}

void net_init(int rank, int size, const struct net_config *cfg)
{
    net_cfg = *cfg;
    net.rank = rank;
    net.size = size;
    create_worker();
    connect_all();
    setup_epoll();
    net_register(NET_OP_DONE, on_done);
}

void net_start(void)
{
    sem_t ready;
    sem_init(&ready, 0, 0);
    int err = pthread_create(&net.thread, NULL, progress_main, &ready);
    if (err)
        dsm_fatal("cannot start the progress thread: %s", strerror(err));
    while (sem_wait(&ready) != 0)
        ;
    sem_destroy(&ready);
    /* Named, so that ps, top and gdb tell it from the program's threads. */
    pthread_setname_np(net.thread, "ompdsm-progress");
    net.running = true;
}

static void close_endpoints(void)
{
    ucp_request_param_t p = { .op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS, .flags = UCP_EP_CLOSE_FLAG_FORCE };
    for (int i = 0; i < net.size; i++) {
        ucs_status_ptr_t r = ucp_ep_close_nbx(net.eps[i], &p);
        if (r == NULL || UCS_PTR_IS_ERR(r))
            continue;
        while (ucp_request_check_status(r) == UCS_INPROGRESS)
            ucp_worker_progress(net.worker);
        ucp_request_free(r);
    }
    free(net.eps);
    net.eps = NULL;
}

void net_flush(void)
{
    ucp_request_param_t p = { 0 };
    net_lock();
    ucs_status_ptr_t r = ucp_worker_flush_nbx(net.worker, &p);
    if (UCS_PTR_IS_ERR(r))
        dsm_fatal("flushing the transport failed: %s", ucs_status_string(UCS_PTR_STATUS(r)));
    if (r) {
        while (ucp_request_check_status(r) == UCS_INPROGRESS)
            ucp_worker_progress(net.worker);
        check(ucp_request_check_status(r), "flushing the transport");
        ucp_request_free(r);
    }
    net_unlock();
    deliver_ready();
}

void net_finalize(void)
{
    if (net.running) {
        atomic_store(&net.stop, true);
        kick_progress_thread();
        pthread_join(net.thread, NULL);
        net.running = false;
    }
    net_lock();
    while (ucp_worker_progress(net.worker))
        ;
    net_unlock();
    deliver_ready();
    net_lock();
    release_regions();
    free(deferred.v);
    msg_buf_release_all();
    close_endpoints();
    ucp_worker_destroy(net.worker);
    ucp_cleanup(net.ctx);
    net_unlock();
    close(net.epfd);
    close(net.kickfd);
}
