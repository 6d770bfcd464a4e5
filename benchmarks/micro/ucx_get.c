/*
 * ucx_get: the raw UCX baseline for the DSM's page fetch: latency of one
 * 4 KiB ucp_get from node 0's memory into node 1, with no DSM involved.
 * Run under ompdsm-run -np 2; node 1 prints two figures:
 *   raw_get_4k_us           gets issued back to back: the target never
 *                           goes to sleep between them;
 *   raw_get_4k_isolated_us  gets 100 us apart, timed alone: the target has
 *                           gone to sleep, as it has when a page fault
 *                           strikes in a real program.
 *
 * Node 0 serves like a DSM progress thread does: it sleeps on the UCX
 * wakeup descriptor and progresses when woken (on the shared-memory and tcp
 * transports a get is served by the target's progress), until node 1 says
 * it is done with an active message.  Node 1 polls its own worker.
 */
#include "../../net/boot.h"
#include "../../net/net_policy.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ucp/api/ucp.h>

enum { SIZE = 4096, WARMUP = 500, ITERS = 5000, GAP_US = 100, AM_DONE = 7 };

static ucp_context_h ctx;
static ucp_worker_h worker;
static volatile bool done;

static void check(ucs_status_t st, const char *what)
{
    if (st != UCS_OK) {
        fprintf(stderr, "ucx_get: %s: %s\n", what, ucs_status_string(st));
        exit(1);
    }
}

static ucs_status_t on_done(void *arg, const void *h, size_t hl, void *d, size_t l, const ucp_am_recv_param_t *p)
{
    done = true;
    return UCS_OK;
}

static void wait_req(ucs_status_ptr_t r)
{
    if (r == NULL)
        return;
    if (UCS_PTR_IS_ERR(r))
        check(UCS_PTR_STATUS(r), "request");
    while (ucp_request_check_status(r) == UCS_INPROGRESS)
        ucp_worker_progress(worker);
    ucp_request_free(r);
}

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

/* The same transports and devices as the DSM's (net_policy.c), so that
 * the baseline measures what the DSM runs on. */
static void setup(int rank, int size)
{
    ucp_config_t *cfg;
    check(ucp_config_read(NULL, NULL, &cfg), "config");
    net_policy_apply(cfg, rank, size);
    ucp_params_t p = { .field_mask = UCP_PARAM_FIELD_FEATURES,
                       .features = UCP_FEATURE_RMA | UCP_FEATURE_AM | UCP_FEATURE_WAKEUP };
    check(ucp_init(&p, cfg, &ctx), "init");
    ucp_config_release(cfg);
    ucp_worker_params_t wp = { .field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
                               .thread_mode = UCS_THREAD_MODE_SINGLE };
    check(ucp_worker_create(ctx, &wp, &worker), "worker");
    ucp_am_handler_param_t hp = { .field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB,
                                  .id = AM_DONE, .cb = on_done };
    check(ucp_worker_set_am_recv_handler(worker, &hp), "am handler");
}

/* Exchanges a blob (worker address, or rkey) between the two nodes. */
static void *exchange(uint32_t tag, const void *mine, size_t len, int rank)
{
    size_t lens[2];
    char *all = boot_allgather(tag, mine, len, lens);
    void *peer = malloc(lens[1 - rank]);
    memcpy(peer, all + (rank == 0 ? lens[0] : 0), lens[1 - rank]);
    free(all);
    return peer;
}

int main(void)
{
    int rank, size;
    if (boot_init(&rank, &size) < 0 || size != 2) {
        fprintf(stderr, "ucx_get: run me with ompdsm-run -np 2\n");
        return 2;
    }
    setup(rank, size);
    ucp_address_t *addr;
    size_t alen;
    check(ucp_worker_get_address(worker, &addr, &alen), "address");
    void *peer_addr = exchange(BOOT_TAG_TEST, addr, alen, rank);
    ucp_ep_params_t ep = { .field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS, .address = peer_addr };
    ucp_ep_h peer;
    check(ucp_ep_create(worker, &ep, &peer), "ep");

    static char buf[SIZE] __attribute__((aligned(4096)));
    memset(buf, rank + 1, sizeof buf);
    ucp_mem_map_params_t mp = { .field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH,
                                .address = buf, .length = sizeof buf };
    ucp_mem_h mem;
    check(ucp_mem_map(ctx, &mp, &mem), "mem_map");
    void *rkey_buf;
    size_t rkey_len;
    check(ucp_rkey_pack(ctx, mem, &rkey_buf, &rkey_len), "rkey_pack");
    void *peer_rkey_buf = exchange(BOOT_TAG_TEST + 1, rkey_buf, rkey_len, rank);
    uint64_t my_addr = (uint64_t)(uintptr_t)buf;
    uint64_t *peer_va = exchange(BOOT_TAG_TEST + 2, &my_addr, sizeof my_addr, rank);

    if (rank == 0) {
        while (!done) {
            if (ucp_worker_progress(worker))
                continue;
            ucs_status_t st = ucp_worker_arm(worker);
            if (st == UCS_ERR_BUSY)
                continue;
            check(st, "arm");
            if (!done)
                check(ucp_worker_wait(worker), "wait");
        }
    } else {
        ucp_rkey_h rkey;
        check(ucp_ep_rkey_unpack(peer, peer_rkey_buf, &rkey), "rkey_unpack");
        static char local[SIZE];
        ucp_request_param_t rp = { 0 };
        double t0 = 0;
        for (int i = 0; i < WARMUP + ITERS; i++) {
            if (i == WARMUP)
                t0 = now_us();
            wait_req(ucp_get_nbx(peer, local, SIZE, *peer_va, rkey, &rp));
        }
        double per = (now_us() - t0) / ITERS, isolated = 0;
        for (int i = 0; i < ITERS; i++) {
            double gap = now_us();
            while (now_us() - gap < GAP_US)
                ;
            double ts = now_us();
            wait_req(ucp_get_nbx(peer, local, SIZE, *peer_va, rkey, &rp));
            isolated += now_us() - ts;
        }
        if (local[0] != 1 || local[SIZE - 1] != 1) {
            fprintf(stderr, "ucx_get: wrong data fetched\n");
            return 1;
        }
        printf("raw_get_4k_us %.2f\n", per);
        printf("raw_get_4k_isolated_us %.2f\n", isolated / ITERS);
        fflush(stdout);
        wait_req(ucp_am_send_nbx(peer, AM_DONE, NULL, 0, NULL, 0, &rp));
        ucp_rkey_destroy(rkey);
    }
    free(boot_allgather(BOOT_TAG_TEST + 3, NULL, 0, NULL));
    ucp_request_param_t cp = { .op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS, .flags = UCP_EP_CLOSE_FLAG_FORCE };
    ucs_status_ptr_t closing = ucp_ep_close_nbx(peer, &cp);
    if (!UCS_PTR_IS_ERR(closing))    /* a forced close may report the peer gone */
        wait_req(closing);
    ucp_rkey_buffer_release(rkey_buf);
    ucp_mem_unmap(ctx, mem);
    ucp_worker_release_address(worker, addr);
    ucp_worker_destroy(worker);
    ucp_cleanup(ctx);
    boot_finalize();
    return 0;
}
