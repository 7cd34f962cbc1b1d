/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The whole job's mesh, exercised below the protocols: after rcmsg_init() every rank sends
 * a distinct byte pattern to every rank (itself included, through btl_self) in messages of
 * many sizes (inline, bounce-buffered, the largest a send takes), then RDMA_READs a
 * registered pattern buffer from every other rank. Every byte is checked.
 *
 *   rc_mesh_test                 the mesh test (any launcher, or a singleton)
 *   rc_mesh_test --force-error   rank 0 forces its QP to rank 1 into ERR, then both sides
 *                                must see the failure reported (peer, qp, state) and exit
 *                                cleanly instead of hanging
 * Exit 77 (SKIP) when rcmsg_init reports that there is no RDMA device.
 */
#include "config.h"

#include "base/config_table.h"
#include "btl_rc/rc_btl.h"
#include "core/core.h"

#include <infiniband/verbs.h>
#include <rcmsg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NMSG 200
static size_t GET_BYTES = 256 * 1024 + 13;
#define HDR_MAGIC 0x6d657368u

typedef struct {
    uint32_t magic;
    int32_t src, dst;
    uint32_t seq;
    uint32_t len;
    uint32_t kind; /* 0 data, 1 get address */
    uint64_t addr;
    uint32_t rkey;
    uint32_t pad;
} msg_hdr_t;

static int rank, size, failures;
static int *next_seq;   /* [size]: next sequence number expected from each source */
static int *addr_known; /* [size] */
static uint64_t *raddr; /* [size] */
static uint32_t *rkeys; /* [size] */
static int received, lost_peers;
static int peer_failed_cb;
static rcmsg_btl_t *rc_btl; /* the rc transport, or NULL */

static uint8_t pattern(int src, int dst, uint32_t seq, size_t i)
{
    return (uint8_t)(src * 31 + dst * 17 + seq * 7 + i * 13 + 1);
}

static size_t msg_len(uint32_t seq, size_t max)
{
    static const size_t sizes[] = {0, 1, 7, 64, 100, 200, 1000, 4000};
    size_t n = sizeof(sizes) / sizeof(sizes[0]);

    return seq % (n + 1) == n ? max : (sizes[seq % (n + 1)] < max ? sizes[seq % (n + 1)] : max);
}

static void fail(const char *fmt, int a, int b, int c)
{
    if (failures++ < 20) {
        printf("FAIL rank %d: ", rank);
        printf(fmt, a, b, c);
        printf("\n");
    }
}

static bool on_recv(void *arg, int peer, const void *data, size_t len)
{
    msg_hdr_t h;
    const uint8_t *payload = (const uint8_t *)data + sizeof(h);

    (void)arg;
    if (len < sizeof(h)) {
        fail("short message (%d bytes) from %d%.0d", (int)len, peer, 0);
        return false;
    }
    memcpy(&h, data, sizeof(h));
    if (h.magic != HDR_MAGIC || h.src != peer || h.dst != rank || h.len != len - sizeof(h)) {
        fail("bad header from peer %d (src %d, dst %d)", peer, h.src, h.dst);
        return false;
    }
    if (h.kind == 1) {
        raddr[peer] = h.addr;
        rkeys[peer] = h.rkey;
        addr_known[peer] = 1;
        return false;
    }
    if ((int)h.seq != next_seq[peer]) {
        fail("from peer %d: sequence %d, expected %d", peer, (int)h.seq, next_seq[peer]);
    }
    next_seq[peer] = (int)h.seq + 1;
    for (size_t i = 0; i < h.len; i++) {
        if (payload[i] != pattern(h.src, h.dst, h.seq, i)) {
            fail("from peer %d: message %d byte %d differs", peer, (int)h.seq, (int)i);
            break;
        }
    }
    received++;
    return false;
}

static void on_fail(void *arg, int peer, rcmsg_status_t status, const char *cause)
{
    (void)arg;
    (void)cause;
    printf("rank %d: transport reports peer %d failed: %s\n", rank, peer,
           rcmsg_status_name(status));
    peer_failed_cb++;
    lost_peers++;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int progress_all(rcmsg_wireup_t *w)
{
    int n = 0;

    for (int i = 0; i < w->btls.n; i++) {
        n += w->btls.btls[i]->ops->progress(w->btls.btls[i]);
    }
    return n;
}

/* send with retry on NO_RESOURCE; returns the final status */
static rcmsg_status_t send_msg(rcmsg_wireup_t *w, int peer, msg_hdr_t *h, const void *payload)
{
    rcmsg_btl_t *btl = w->peer_btl[peer];
    double deadline = now_s() + 60;
    rcmsg_status_t s;

    while ((s = btl->ops->send(btl, peer, h, sizeof(*h), payload, h->len)) ==
           RCMSG_ERR_NO_RESOURCE) {
        progress_all(w);
        if (now_s() > deadline) {
            return RCMSG_ERR_TIMEOUT;
        }
    }
    return s;
}

typedef struct {
    rcmsg_btl_desc_t desc;
    int done;
    rcmsg_status_t status;
} get_op_t;

static void get_done(rcmsg_btl_desc_t *desc, rcmsg_status_t status)
{
    get_op_t *op = (get_op_t *)desc;
    op->done = 1;
    op->status = status;
}

/* Malformed peer addresses are refused before the QP is touched. */
static void bad_addresses(void)
{
    size_t cap = rcmsg_rc_btl_addr_max(size), len = cap;
    uint8_t *good = malloc(cap), *b = malloc(cap);
    struct {
        const char *what;
        size_t off; /* byte to change (SIZE_MAX: none), or the length to pass */
        uint8_t value;
        size_t len;
        rcmsg_status_t want;
    } cases[] = {
        {"shorter than the header", SIZE_MAX, 0, 10, RCMSG_ERR_PEER_DATA},
        {"one byte short", SIZE_MAX, 0, cap - 1, RCMSG_ERR_PEER_DATA},
        {"another buffer size", 25, 0x7f, cap, RCMSG_ERR_CONFIG},
        {"an invalid mtu code", 2, 9, cap, RCMSG_ERR_PEER_DATA},
        {"another link layer", 0, IBV_LINK_LAYER_INFINIBAND, cap, RCMSG_ERR_PEER_DATA},
        {"a CM qp number beyond 24 bits", 32 + 24 + 3, 0x01, cap, RCMSG_ERR_PEER_DATA},
    };

    int ncases = (int)(sizeof(cases) / sizeof(cases[0])), refused = 0;

    if (rc_btl->ops->addr_pack(rc_btl, good, &len) != RCMSG_OK || len != cap) {
        fail("addr_pack failed%.0d%.0d%.0d", 0, 0, 0);
    }
    for (int i = 0; i < ncases; i++) {
        rcmsg_status_t s;

        memcpy(b, good, cap);
        if (cases[i].off != SIZE_MAX) {
            b[cases[i].off] = cases[i].value;
        }
        s = rc_btl->ops->connect(rc_btl, 1, b, cases[i].len);
        if (s != cases[i].want) {
            fail("bad-address case %d gave status %d, expected %d", (int)i, s, cases[i].want);
        } else {
            printf("rank 0: peer address with %s refused (%s)\n", cases[i].what,
                   rcmsg_status_name(s));
            refused++;
        }
    }
    printf("rank 0: %d of %d malformed peer addresses refused\n", refused, ncases);
    free(good);
    free(b);
}

static int mesh(rcmsg_wireup_t *w)
{
    uint8_t *buf = malloc(65536), *mine = malloc(GET_BYTES), *theirs = malloc(GET_BYTES);
    rcmsg_btl_mem_t mine_mem = {0}, theirs_mem = {0};
    get_op_t *ops = calloc((size_t)size, sizeof(*ops));
    int expected = size * NMSG, gets_done = 0;
    double deadline;

    for (size_t i = 0; i < GET_BYTES; i++) {
        mine[i] = pattern(rank, 99, 3, i);
    }
    if (rc_btl != NULL) {
        if (rc_btl->ops->mem_reg(rc_btl, mine, GET_BYTES, 1, &mine_mem) != RCMSG_OK ||
            rc_btl->ops->mem_reg(rc_btl, theirs, GET_BYTES, 0, &theirs_mem) != RCMSG_OK) {
            fail("memory registration failed%.0d%.0d%.0d", 0, 0, 0);
            return 1;
        }
    }
    /* every rank: NMSG messages to every rank, interleaved across peers */
    for (uint32_t seq = 0; seq < NMSG; seq++) {
        for (int k = 0; k < size; k++) {
            int peer = (rank + k) % size;
            rcmsg_btl_t *btl = w->peer_btl[peer];
            size_t max = btl->caps.max_send - sizeof(msg_hdr_t);
            msg_hdr_t h = {HDR_MAGIC, rank, peer, seq, (uint32_t)msg_len(seq, max), 0, 0, 0, 0};
            rcmsg_status_t s;

            for (size_t i = 0; i < h.len; i++) {
                buf[i] = pattern(rank, peer, seq, i);
            }
            s = send_msg(w, peer, &h, buf);
            if (s != RCMSG_OK) {
                fail("send to %d failed: status %d%.0d", peer, s, 0);
                return 1;
            }
        }
        progress_all(w);
    }
    /* then the addresses for the gets */
    for (int peer = 0; peer < size; peer++) {
        msg_hdr_t h = {HDR_MAGIC, rank, peer, 0, 0, 1, (uintptr_t)mine, mine_mem.rkey, 0};
        if (peer != rank && send_msg(w, peer, &h, NULL) != RCMSG_OK) {
            fail("address send to %d failed%.0d%.0d", peer, 0, 0);
            return 1;
        }
    }
    deadline = now_s() + 120;
    while ((received < expected || gets_done < size - 1) && now_s() < deadline) {
        progress_all(w);
        for (int peer = 0; peer < size; peer++) {
            if (peer != rank && addr_known[peer] == 1 && ops[peer].desc.complete == NULL) {
                /* one get at a time into the shared target buffer */
                int busy = 0;
                for (int q = 0; q < size; q++) {
                    busy |= ops[q].desc.complete != NULL && ops[q].done != 2;
                }
                if (busy) {
                    continue;
                }
                memset(theirs, 0, GET_BYTES);
                ops[peer].desc.complete = get_done;
                if (rc_btl->ops->get(rc_btl, peer, theirs, &theirs_mem, raddr[peer], rkeys[peer],
                                     GET_BYTES, &ops[peer].desc) != RCMSG_OK) {
                    fail("get from %d could not be posted%.0d%.0d", peer, 0, 0);
                    return 1;
                }
            }
            if (ops[peer].done == 1) {
                ops[peer].done = 2;
                gets_done++;
                if (ops[peer].status != RCMSG_OK) {
                    fail("get from %d failed: %d%.0d", peer, ops[peer].status, 0);
                }
                for (size_t i = 0; i < GET_BYTES; i++) {
                    if (theirs[i] != pattern(peer, 99, 3, i)) {
                        fail("get from %d: byte %d differs%.0d", peer, (int)i, 0);
                        break;
                    }
                }
            }
        }
    }
    if (received < expected || gets_done < size - 1) {
        printf("FAIL rank %d: timed out with %d/%d messages and %d/%d gets\n", rank, received,
               expected, gets_done, size - 1);
        for (int peer = 0; peer < size; peer++) {
            if (peer != rank && ops[peer].done != 2) {
                printf("rank %d: get from %d %s\n", rank, peer,
                       !addr_known[peer]                 ? "never got the address"
                       : ops[peer].desc.complete == NULL ? "not posted"
                                                         : "posted, not completed");
            }
        }
        if (rc_btl != NULL) {
            rcmsg_rc_btl_dump(rc_btl, RCMSG_LOG_ERROR);
        }
        failures++;
    }
    if (rank == 0 && size > 1 && rc_btl != NULL) {
        bad_addresses();
    }
    /* peers may still be reading `mine`: deregister only when every rank is done */
    if (rcmsg_wireup_barrier(w) != RCMSG_OK) {
        fail("barrier failed%.0d%.0d%.0d", 0, 0, 0);
    }
    if (rc_btl != NULL) {
        rc_btl->ops->mem_dereg(rc_btl, &mine_mem);
        rc_btl->ops->mem_dereg(rc_btl, &theirs_mem);
    }
    printf("rank %d of %d: %d messages from %d ranks checked, %d RDMA_READs of %d bytes checked, "
           "%d failure(s)\n",
           rank, size, received, size, gets_done, (int)GET_BYTES, failures);
    free(buf);
    free(mine);
    free(theirs);
    free(ops);
    return failures != 0;
}

/* rank 0 breaks its QP to rank 1; both must report and get out. */
static int force_error(rcmsg_wireup_t *w)
{
    uint8_t payload[64];
    double deadline = now_s() + 240;
    rcmsg_status_t s = RCMSG_OK;

    if (size < 2 || rc_btl == NULL) {
        printf("SKIP: --force-error needs at least 2 ranks over rc\n");
        return 77;
    }
    if (rank == 0 && rcmsg_rc_btl_force_error(rc_btl, 1) != RCMSG_OK) {
        printf("FAIL: could not force the qp into ERR\n");
        return 1;
    }
    if (rank > 1) {
        return 0;
    }
    /* keep sending to the other side until the transport refuses */
    for (uint32_t seq = 0; now_s() < deadline && lost_peers == 0; seq++) {
        msg_hdr_t h = {HDR_MAGIC, rank, 1 - rank, seq, sizeof(payload), 0, 0, 0, 0};
        for (size_t i = 0; i < sizeof(payload); i++) {
            payload[i] = pattern(rank, 1 - rank, seq, i); /* the receiver checks every byte */
        }
        s = rc_btl->ops->send(rc_btl, 1 - rank, &h, sizeof(h), payload, sizeof(payload));
        if (s != RCMSG_OK && s != RCMSG_ERR_NO_RESOURCE) {
            break;
        }
        progress_all(w);
    }
    for (int i = 0; i < 1000 && lost_peers == 0; i++) {
        progress_all(w);
    }
    s = rc_btl->ops->send(rc_btl, 1 - rank, &(msg_hdr_t){0}, sizeof(msg_hdr_t), NULL, 0);
    printf("rank %d: failure callback %s; a send after the failure returns %s\n", rank,
           peer_failed_cb ? "called" : "NOT called", rcmsg_status_name(s));
    return (peer_failed_cb == 1 && s == RCMSG_ERR_CONNECTION) ? 0 : 1;
}

int main(int argc, char **argv)
{
    int force = argc > 1 && strcmp(argv[1], "--force-error") == 0;

    if (argc > 2 && strcmp(argv[1], "--get-bytes") == 0) {
        GET_BYTES = (size_t)atol(argv[2]);
    }
    rcmsg_wireup_t *w;
    rcmsg_status_t s;
    int rc;

    setvbuf(stdout, NULL, _IOLBF, 0);
    s = rcmsg_init();
    if (s != RCMSG_OK) {
        printf("rcmsg_init: %s\n", rcmsg_strerror(s));
        return s == RCMSG_ERR_NO_DEVICE ? 77 : 1;
    }
    rank = rcmsg_rank();
    size = rcmsg_size();
    w = rcmsg_core_wireup();
    rc_btl = rcmsg_wireup_btl(w, "rc");
    next_seq = calloc((size_t)size, sizeof(int));
    addr_known = calloc((size_t)size, sizeof(int));
    raddr = calloc((size_t)size, sizeof(uint64_t));
    rkeys = calloc((size_t)size, sizeof(uint32_t));
    for (int i = 0; i < size; i++) {
        w->peer_btl[i]->recv_cb = on_recv;
        w->peer_btl[i]->fail_cb = on_fail;
    }
    rc = force ? force_error(w) : mesh(w);
    s = rcmsg_finalize();
    if (s != RCMSG_OK && !force) {
        printf("FAIL rank %d: rcmsg_finalize: %s\n", rank, rcmsg_strerror(s));
        rc = 1;
    }
    free(next_seq);
    free(addr_known);
    free(raddr);
    free(rkeys);
    return rc;
}
