/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The transport conformance suite: the same cases run over every transport, through the
 * btl ops only (src/btl/btl.h), the way UCX's gtest instantiates its tests per transport.
 *
 *   btl_conform self   one process talking to itself (a transport that reaches only self)
 *   btl_conform sm|rc  a fork: the parent drives the cases, the child is the peer; they swap
 *                      their addr_pack blobs over a socketpair, connect, and the child then
 *                      progresses, answering the parent's questions about what it received
 *
 * Cases: ordering, sizes (0 .. caps.max_send and one over), gets of every size class, flush,
 * a peer that fails (SIGKILL). Each prints what it checked: "ok: ...", "FAIL: ...", or
 * "SKIP: ..." with the reason. Exit 0 when nothing failed, 77 when the transport cannot be
 * opened here, 1 otherwise. Settings come from the environment (rcmsg_config_load).
 */
#include "config.h"

#include "base/clock.h"
#include "base/compiler.h"
#include "base/config_table.h"
#include "btl/btl_component.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define ORDER_COUNT 2000
#define FLUSH_COUNT 256
#define GET_CAP     (8u << 20) /* the largest get tried (caps.max_get: 8 MiB on rxe, 2 GiB on HCAs) */
#define GET_REGION  (GET_CAP + 4096)
#define WAIT_US     (20 * 1000000ull)

enum { OP_STATE = 1, OP_QUIT, OP_HOLD, OP_STEP, OP_FREE };
#define STOP_COUNT 8

typedef struct {
    uint32_t op;
    uint64_t a, b, c;
} ctl_t;

typedef struct {
    const char *name;
    rcmsg_btl_t *btl;
    int rank, peer; /* peer == rank for self */
    int sock;       /* to the other process; -1 for self */
    pid_t child;
    int failures;
    int checks; /* report() calls: the checks made */
    uint64_t tx_count, tx_bytes;
    /* what this process received */
    uint64_t rx_count, rx_bytes, rx_bad;
    bool stop_each;    /* on_recv asks the transport to stop after each message */
    unsigned rx_round; /* messages received in the current progress call */
    /* the peer's get region */
    uint64_t region_addr;
    uint32_t region_rkey;
    /* fail_cb */
    int fails, fail_peer;
    rcmsg_status_t fail_status;
} conf_t;

/* Opens the transport of that name from the registry (btl_component.h), as wireup does. */
static rcmsg_status_t conform_open(const char *name, const rcmsg_btl_job_t *job,
                                   rcmsg_btl_t **btl_p)
{
    const rcmsg_btl_component_t *c = rcmsg_btl_find(&rcmsg_btl_table, name);

    if (c == NULL) {
        char names[64];
        rcmsg_btl_names(&rcmsg_btl_table, names, sizeof(names));
        fprintf(stderr, "btl_conform: no transport '%s' in the registry (%s)\n", name, names);
        return RCMSG_ERR_NOT_FOUND;
    }
    return rcmsg_btl_open(c, job, btl_p);
}

static void report(conf_t *t, bool ok, const char *fmt, ...)
{
    va_list ap;

    printf("%s: %s: ", ok ? "ok" : "FAIL", t->name);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
    t->failures += !ok;
    t->checks++;
}

/* ---- message and region contents ------------------------------------------------------ */

/* Byte i of the message with index k: its first 4 bytes are k, so a message out of order is
 * seen even when it has the length the receiver expects. */
static uint8_t msg_byte(uint64_t k, size_t i)
{
    return i < 4 ? (uint8_t)(k >> (8 * i)) : (uint8_t)(k * 13 + i * 7 + 1);
}

static uint8_t region_byte(size_t off)
{
    return (uint8_t)(off * 31 + (off >> 9) + 7);
}

static bool on_recv(void *arg, int peer, const void *data, size_t len)
{
    conf_t *t = arg;
    const uint8_t *p = data;

    for (size_t i = 0; i < len; i++) {
        if (p[i] != msg_byte(t->rx_count, i)) {
            if (t->rx_bad++ == 0) {
                printf("message %llu (%zu bytes) from %d differs at byte %zu\n",
                       (unsigned long long)t->rx_count, len, peer, i);
            }
            break;
        }
    }
    t->rx_count++;
    t->rx_bytes += len;
    t->rx_round++;
    return t->stop_each;
}

static void on_fail(void *arg, int peer, rcmsg_status_t status, const char *cause)
{
    (void)cause;
    conf_t *t = arg;

    t->fails++;
    t->fail_peer = peer;
    t->fail_status = status;
}

/* ---- the control socket (fork) --------------------------------------------------------- */

static int ctl_io(int fd, void *buf, size_t len, bool out)
{
    for (size_t done = 0; done < len;) {
        struct pollfd pfd = {.fd = fd, .events = out ? POLLOUT : POLLIN};
        ssize_t n;

        if (poll(&pfd, 1, 20000) != 1) {
            fprintf(stderr, "control socket: no answer in 20 s\n");
            return -1;
        }
        n = out ? write(fd, (char *)buf + done, len - done)
                : read(fd, (char *)buf + done, len - done);
        if (n <= 0) {
            fprintf(stderr, "control socket: %s\n", n == 0 ? "closed" : strerror(errno));
            return -1;
        }
        done += (size_t)n;
    }
    return 0;
}

/* What the peer has received: asks the child, or reads this process's own counters. */
static int peer_state(conf_t *t, uint64_t *count_p, uint64_t *bytes_p, uint64_t *bad_p)
{
    ctl_t c = {.op = OP_STATE};

    if (t->sock < 0) {
        *count_p = t->rx_count, *bytes_p = t->rx_bytes, *bad_p = t->rx_bad;
        return 0;
    }
    if (ctl_io(t->sock, &c, sizeof(c), true) != 0 || ctl_io(t->sock, &c, sizeof(c), false) != 0) {
        return -1;
    }
    *count_p = c.a, *bytes_p = c.b, *bad_p = c.c;
    return 0;
}

/* Waits until the peer has received every message sent (progressing this side unless told
 * not to); then checks bytes and contents. */
static bool wait_arrived(conf_t *t, bool progress, const char *what)
{
    rcmsg_deadline_t deadline = rcmsg_deadline_in(WAIT_US);
    uint64_t count = 0, bytes = 0, bad = 0;

    while (!rcmsg_deadline_passed(deadline)) {
        if (t->sock < 0 || progress) {
            t->btl->ops->progress(t->btl);
        }
        if (peer_state(t, &count, &bytes, &bad) != 0) {
            break;
        }
        if (count >= t->tx_count) {
            break;
        }
        if (t->sock >= 0) {
            usleep(200);
        }
    }
    if (count != t->tx_count || bytes != t->tx_bytes || bad != 0) {
        report(t, false,
               "%s: the peer received %llu of %llu messages, %llu of %llu bytes, %llu "
               "with wrong contents",
               what, (unsigned long long)count, (unsigned long long)t->tx_count,
               (unsigned long long)bytes, (unsigned long long)t->tx_bytes, (unsigned long long)bad);
        return false;
    }
    return true;
}

/* ---- sends ------------------------------------------------------------------------------ */

/* Sends message t->tx_count of len bytes, split into a header (up to 16 bytes) and payload;
 * retries "no room now" after progress. Returns the send's final status. */
static uint8_t send_buf[(1 << 20) + 4096]; /* RCMSG_SRQ_BUF_SIZE is at most 1m */

static rcmsg_status_t send_msg(conf_t *t, size_t len)
{
    uint8_t *buf = send_buf;
    rcmsg_deadline_t deadline = rcmsg_deadline_in(WAIT_US);
    size_t hdr = len < 16 ? len : 16;
    rcmsg_status_t s;

    if (len > sizeof(send_buf)) {
        return RCMSG_ERR_INVALID_PARAM;
    }
    for (size_t i = 0; i < len; i++) {
        buf[i] = msg_byte(t->tx_count, i);
    }
    do {
        s = t->btl->ops->send(t->btl, t->peer, buf, hdr, buf + hdr, len - hdr);
        if (s == RCMSG_ERR_NO_RESOURCE) {
            t->btl->ops->progress(t->btl);
        }
    } while (s == RCMSG_ERR_NO_RESOURCE && !rcmsg_deadline_passed(deadline));
    if (s == RCMSG_OK) {
        t->tx_count++;
        t->tx_bytes += len;
    }
    return s;
}

static void case_ordering(conf_t *t)
{
    size_t max = t->btl->caps.max_send < 64 ? t->btl->caps.max_send : 64;

    for (int k = 0; k < ORDER_COUNT; k++) {
        rcmsg_status_t s = send_msg(t, 4 + (size_t)k % (max - 3));
        if (s != RCMSG_OK) {
            report(t, false, "ordering: send %d returned %s", k, rcmsg_status_name(s));
            return;
        }
        if (t->sock < 0 && k % 16 == 15) {
            t->btl->ops->progress(t->btl); /* self keeps a slot per queued message */
        }
    }
    if (wait_arrived(t, true, "ordering")) {
        report(t, true, "ordering: %d sends of 4..%zu bytes arrived in order, contents checked",
               ORDER_COUNT, max);
    }
}

/* The sizes to try: the edges of max_inline and max_send, in ascending order, no repeats. */
static int size_list(const rcmsg_btl_caps_t *caps, size_t *sizes)
{
    size_t cand[] = {0,
                     1,
                     caps->max_inline,
                     caps->max_inline + 1,
                     4096,
                     caps->max_send / 2,
                     caps->max_send - 1,
                     caps->max_send};
    int n = 0;

    for (size_t i = 0; i < RCMSG_ARRAY_SIZE(cand); i++) {
        if (cand[i] <= caps->max_send && (n == 0 || cand[i] > sizes[n - 1])) {
            sizes[n++] = cand[i];
        }
    }
    return n;
}

static void case_sizes(conf_t *t)
{
    const rcmsg_btl_caps_t *caps = &t->btl->caps;
    size_t sizes[8];
    char list[160] = "";
    int n = size_list(caps, sizes);
    rcmsg_status_t s;

    for (int i = 0; i < n; i++) {
        s = send_msg(t, sizes[i]);
        if (s != RCMSG_OK) {
            report(t, false, "sizes: a send of %zu bytes returned %s", sizes[i],
                   rcmsg_status_name(s));
            return;
        }
        snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%zu", i ? " " : "", sizes[i]);
    }
    if (!wait_arrived(t, true, "sizes")) {
        return;
    }
    report(t, true, "sizes: %s bytes (max_inline %zu, max_send %zu) arrived intact", list,
           caps->max_inline, caps->max_send);
    /* straight to send(): the first 16 bytes as the header, as send_msg does */
    s = t->btl->ops->send(t->btl, t->peer, send_buf, 16, send_buf + 16, caps->max_send + 1 - 16);
    report(
        t, s == RCMSG_ERR_INVALID_PARAM,
        "sizes: a send of max_send + 1 = %zu bytes refused with %s (want RCMSG_ERR_INVALID_PARAM)",
        caps->max_send + 1, rcmsg_status_name(s));
}

static void case_flush(conf_t *t)
{
    size_t len = t->btl->caps.max_send / 2;
    rcmsg_status_t s = RCMSG_OK;

    for (int k = 0; k < FLUSH_COUNT && s == RCMSG_OK; k++) {
        s = send_msg(t, len); /* no progress between sends: a backlog may form */
    }
    if (s != RCMSG_OK) {
        report(t, false, "flush: a send returned %s", rcmsg_status_name(s));
        return;
    }
    s = t->btl->ops->flush(t->btl);
    if (s != RCMSG_OK) {
        report(t, false, "flush returned %s", rcmsg_status_name(s));
        return;
    }
    /* after flush this side never progresses again: every send must reach the peer anyway
     * (self is its own peer: its progress is the receiver's) */
    if (wait_arrived(t, false, "flush")) {
        report(t, true, "flush: after %d sends of %zu bytes and flush, all arrived %s", FLUSH_COUNT,
               len, t->sock < 0 ? "(self: on its next progress)" : "with no more progress here");
    }
}

/* Sends op to the child (the receiver) and returns its answer; self is its own receiver. */
static int peer_op(conf_t *t, uint32_t op, ctl_t *out)
{
    ctl_t c = {.op = op};

    if (t->sock >= 0) {
        if (ctl_io(t->sock, &c, sizeof(c), true) != 0 ||
            ctl_io(t->sock, out, sizeof(*out), false) != 0) {
            return -1;
        }
        return 0;
    }
    t->rx_round = 0;
    if (op == OP_HOLD || op == OP_FREE) {
        t->stop_each = op == OP_HOLD;
    } else if (op == OP_STEP) {
        t->btl->ops->progress(t->btl);
    }
    *out = (ctl_t){.op = op, .a = t->rx_count, .b = t->rx_bytes, .c = t->rx_round};
    return 0;
}

/* A receive callback that returns true (what the pml does when the message completed the
 * request its caller waits for) makes a transport with caps.stops (sm) stop polling in that
 * progress call: every call delivers one message. The others (rc, self) may deliver more. Nothing
 * is lost or reordered either way. */
static void case_stop(conf_t *t)
{
    bool one_each = t->btl->caps.stops != 0;
    uint64_t base = 0, most = 0;
    int calls = 0;
    ctl_t c;

    if (peer_op(t, OP_HOLD, &c) != 0) {
        report(t, false, "stop: the receiver did not answer");
        return;
    }
    base = c.a;
    for (int k = 0; k < STOP_COUNT; k++) {
        if (send_msg(t, 8 + (size_t)k) != RCMSG_OK) {
            report(t, false, "stop: send %d failed", k);
            peer_op(t, OP_FREE, &c);
            return;
        }
    }
    if (t->sock >= 0) {
        usleep(100000); /* on the wire: every message at the receiver before it polls */
    }
    while (c.a - base < STOP_COUNT && calls < 1000) {
        if (peer_op(t, OP_STEP, &c) != 0) {
            break;
        }
        most = c.c > most ? c.c : most;
        calls++;
    }
    peer_op(t, OP_FREE, &c);
    if (!wait_arrived(t, true, "stop")) {
        return;
    }
    report(t, !one_each || (most == 1 && calls == STOP_COUNT),
           "stop: %d messages, the callback asking to stop after each: %d progress calls, at most "
           "%llu messages in one%s",
           STOP_COUNT, calls, (unsigned long long)most,
           one_each ? " (sm: want one each)" : " (only sm must stop)");
}

/* ---- gets ------------------------------------------------------------------------------- */

typedef struct {
    rcmsg_btl_desc_t desc; /* first: the completion finds the slot from it */
    bool busy;
    rcmsg_status_t failed; /* the error a get of this slot completed with (RCMSG_OK: none) */
} get_slot_t;

static void on_get_done(rcmsg_btl_desc_t *desc, rcmsg_status_t status)
{
    get_slot_t *g = (get_slot_t *)desc;

    g->busy = false;
    g->failed = status;
}

/* Posts one get into a free slot; false when the transport has no room now. */
static bool get_post(conf_t *t, get_slot_t *g, uint8_t *local, const rcmsg_btl_mem_t *lmem,
                     size_t off, size_t len, rcmsg_status_t *err_p)
{
    rcmsg_status_t s;

    g->desc = (rcmsg_btl_desc_t){.complete = on_get_done};
    g->busy = true;
    s = t->btl->ops->get(t->btl, t->peer, local, lmem, t->region_addr + off, t->region_rkey, len,
                         &g->desc);
    if (s != RCMSG_OK) {
        g->busy = false;
        if (s != RCMSG_ERR_NO_RESOURCE) {
            *err_p = s;
        }
        return false;
    }
    return true;
}

/* Reads len bytes at off of the peer's region into local, in gets of at most piece bytes with
 * up to caps.max_gets in flight (len 0: one get of 0 bytes, which must complete too). */
static rcmsg_status_t get_run(conf_t *t, uint8_t *local, const rcmsg_btl_mem_t *lmem, size_t off,
                              size_t len, size_t piece, unsigned *ngets_p)
{
    get_slot_t slots[16];
    unsigned nslots = t->btl->caps.max_gets, busy;
    rcmsg_deadline_t deadline = rcmsg_deadline_in(WAIT_US);
    rcmsg_status_t err = RCMSG_OK;
    size_t next = 0;

    nslots = nslots == 0 ? 1 : nslots > 16 ? 16 : nslots;
    memset(slots, 0, sizeof(slots));
    *ngets_p = 0;
    do {
        busy = 0;
        for (unsigned i = 0; i < nslots; i++) {
            if (!slots[i].busy && slots[i].failed != RCMSG_OK) {
                err = slots[i].failed;
                slots[i].failed = RCMSG_OK;
            }
            bool more = next < len || (len == 0 && *ngets_p == 0);
            if (!slots[i].busy && more && err == RCMSG_OK) {
                size_t n = len - next < piece ? len - next : piece;
                if (get_post(t, &slots[i], local + next, lmem, off + next, n, &err)) {
                    next += n;
                    ++*ngets_p;
                }
            }
            busy += slots[i].busy;
        }
        t->btl->ops->progress(t->btl);
    } while ((busy > 0 || ((next < len || *ngets_p == 0) && err == RCMSG_OK)) &&
             !rcmsg_deadline_passed(deadline));
    return busy > 0 || *ngets_p == 0 ? RCMSG_ERR_TIMEOUT : err;
}

/* One size class: a get (or pieces) of len bytes at off, its data and the guard byte after it
 * checked. */
static void get_class(conf_t *t, const char *what, uint8_t *local, const rcmsg_btl_mem_t *lmem,
                      size_t off, size_t len, size_t piece)
{
    unsigned ngets;
    rcmsg_status_t s;
    size_t bad = SIZE_MAX;

    memset(local, 0xee, len + 1);
    s = get_run(t, local, lmem, off, len, piece, &ngets);
    for (size_t i = 0; s == RCMSG_OK && i < len && bad == SIZE_MAX; i++) {
        bad = local[i] == region_byte(off + i) ? SIZE_MAX : i;
    }
    if (s != RCMSG_OK || bad != SIZE_MAX || local[len] != 0xee) {
        report(t, false, "gets: %s (%zu bytes at offset %zu): %s, first wrong byte %zd%s", what,
               len, off, rcmsg_status_name(s), bad == SIZE_MAX ? (ssize_t)-1 : (ssize_t)bad,
               local[len] != 0xee ? ", wrote past the end" : "");
        return;
    }
    report(t, true, "gets: %s: %zu bytes at offset %zu in %u get(s), data checked", what, len, off,
           ngets);
}

static void case_gets(conf_t *t)
{
    const rcmsg_btl_caps_t *caps = &t->btl->caps;
    size_t chunk = rcmsg_config_size(RCMSG_CFG_RNDV_CHUNK);
    size_t max = caps->max_get < GET_CAP ? caps->max_get : GET_CAP;
    uint8_t *local = malloc(GET_REGION);
    rcmsg_btl_mem_t lmem;
    rcmsg_status_t s;

    if (caps->max_get == 0) {
        printf("SKIP: %s: gets: caps.max_get is 0 (no get)\n", t->name);
        free(local);
        return;
    }
    s = local == NULL ? RCMSG_ERR_NO_MEMORY
                      : t->btl->ops->mem_reg(t->btl, local, GET_REGION, 0, &lmem);
    if (s != RCMSG_OK) {
        report(t, false, "gets: registering the local buffer: %s", rcmsg_status_name(s));
        free(local);
        return;
    }
    chunk = chunk < max ? chunk : max;
    get_class(t, "0 bytes", local, &lmem, 3, 0, 1);
    get_class(t, "1 byte", local, &lmem, 3, 1, 1);
    get_class(t, "small", local, &lmem, 5, 200 < max ? 200 : max, max);
    get_class(t, "one RCMSG_RNDV_CHUNK", local, &lmem, 0, chunk, chunk);
    /* pieces of one chunk, up to caps.max_gets in flight: what the pml does when
     * caps.chunked_gets; run on the others too, as several gets in flight to one peer */
    get_class(t,
              caps->chunked_gets ? "several chunks"
                                 : "several chunks (caps.chunked_gets 0: gets in flight anyway)",
              local, &lmem, 64, 3 * chunk + 1000 < max - 64 ? 3 * chunk + 1000 : max - 64, chunk);
    get_class(t, max < caps->max_get ? "largest tried (8 MiB, below caps.max_get)" : "caps.max_get",
              local, &lmem, 0, max, max);
    t->btl->ops->mem_dereg(t->btl, &lmem);
    free(local);
}

/* ---- a peer that fails ------------------------------------------------------------------ */

/* How long the transport may take to notice a dead peer: what it promises (btl.h: fail_cb
 * "within the transport's retry bound"), known here per transport. */
static uint64_t fail_bound_us(const conf_t *t)
{
    if (strcmp(t->name, "rc") == 0) {
        /* the retry bound, then (RCMSG_RECOVERY) the reconnect that nobody answers, plus slack
         * for the emulated guest */
        double us = (double)(rcmsg_config_int(RCMSG_CFG_IB_RETRY_COUNT) + 1) * 4.096 *
                    (double)(1ull << rcmsg_config_int(RCMSG_CFG_IB_TIMEOUT));
        if (rcmsg_config_bool(RCMSG_CFG_RECOVERY)) {
            us += (double)rcmsg_config_time_us(RCMSG_CFG_RECOVERY_TIMEOUT);
        }
        return (uint64_t)us + 3000000;
    }
    if (strcmp(t->name, "sm") == 0) {
        return 1000000; /* its liveness check runs every 100 ms */
    }
    printf("note: %s: no failure bound known for this transport: 30 s allowed\n", t->name);
    return 30000000;
}

static void case_peer_fails(conf_t *t)
{
    uint64_t bound = fail_bound_us(t), t0, last = 0, elapsed;
    uint8_t byte = 0;
    rcmsg_status_t s;

    if (t->sock < 0) {
        printf("SKIP: %s: peer failure: does not apply to self (its only peer is this process)\n",
               t->name);
        return;
    }
    kill(t->child, SIGKILL);
    waitpid(t->child, NULL, 0);
    t->child = -1;
    t0 = rcmsg_clock_us();
    while (t->fails == 0 && rcmsg_clock_us() - t0 < bound + 5000000) {
        if (rcmsg_clock_us() - last >= 10000) { /* traffic that finds the loss: ping, a send */
            last = rcmsg_clock_us();
            t->btl->ops->ping(t->btl, t->peer);
            t->btl->ops->send(t->btl, t->peer, &byte, 1, NULL, 0);
        }
        t->btl->ops->progress(t->btl);
    }
    elapsed = rcmsg_clock_us() - t0;
    for (int i = 0; i < 1000; i++) {
        t->btl->ops->progress(t->btl);
    }
    report(t,
           t->fails == 1 && t->fail_peer == t->peer && t->fail_status == RCMSG_ERR_CONNECTION &&
               elapsed <= bound,
           "peer failure: SIGKILLed peer reported %d time(s) by fail_cb, for peer %d with %s, "
           "after %.2f s (bound %.2f s)",
           t->fails, t->fail_peer, rcmsg_status_name(t->fail_status), (double)elapsed / 1e6,
           (double)bound / 1e6);
    s = t->btl->ops->send(t->btl, t->peer, &byte, 1, NULL, 0);
    report(t, s == RCMSG_ERR_CONNECTION, "peer failure: a later send returned %s",
           rcmsg_status_name(s));
}

/* ---- setup: open, the peer's region, address exchange, connect -------------------------- */

/* The region the other side reads with get(): filled with region_byte(), registered. */
static int region_open(conf_t *t, uint8_t **region_p, rcmsg_btl_mem_t *mem_p)
{
    uint8_t *r = malloc(GET_REGION);
    rcmsg_status_t s;

    if (r == NULL) {
        return -1;
    }
    for (size_t i = 0; i < GET_REGION; i++) {
        r[i] = region_byte(i);
    }
    s = t->btl->ops->mem_reg(t->btl, r, GET_REGION, 1, mem_p);
    if (s != RCMSG_OK) {
        fprintf(stderr, "%s: registering the get region: %s\n", t->name, rcmsg_status_name(s));
        free(r);
        return -1;
    }
    *region_p = r;
    return 0;
}

/* Swaps addr_pack blobs (and the get region) with the other process and connects to it. */
static int pair_connect(conf_t *t, const rcmsg_btl_mem_t *region)
{
    static uint8_t blob[1 << 16], peer_blob[1 << 16];
    uint64_t len = sizeof(blob), peer_len;
    ctl_t mine = {.a = (uintptr_t)region->addr, .b = region->rkey}, theirs;
    size_t n = sizeof(blob);
    rcmsg_status_t s = t->btl->ops->addr_pack(t->btl, blob, &n);
    char sync = 1;

    if (s != RCMSG_OK) {
        fprintf(stderr, "%s: addr_pack: %s\n", t->name, rcmsg_status_name(s));
        return -1;
    }
    len = n;
    if (ctl_io(t->sock, &len, sizeof(len), true) != 0 || ctl_io(t->sock, blob, n, true) != 0 ||
        ctl_io(t->sock, &mine, sizeof(mine), true) != 0 ||
        ctl_io(t->sock, &peer_len, sizeof(peer_len), false) != 0 || peer_len > sizeof(peer_blob) ||
        ctl_io(t->sock, peer_blob, peer_len, false) != 0 ||
        ctl_io(t->sock, &theirs, sizeof(theirs), false) != 0) {
        return -1;
    }
    t->region_addr = theirs.a;
    t->region_rkey = (uint32_t)theirs.b;
    if (!t->btl->component->reachable(t->btl, t->peer, peer_blob, peer_len)) {
        fprintf(stderr, "%s: rank %d: the component says peer %d is not reachable\n", t->name,
                t->rank, t->peer);
        return -1;
    }
    s = t->btl->ops->connect(t->btl, t->peer, peer_blob, peer_len);
    if (s == RCMSG_OK) {
        do {
            s = t->btl->ops->connect_progress(t->btl);
        } while (s == RCMSG_INPROGRESS);
    }
    if (s != RCMSG_OK) {
        fprintf(stderr, "%s: rank %d: connect to %d: %s\n", t->name, t->rank, t->peer,
                rcmsg_status_name(s));
        return -1;
    }
    /* both connected before any send (an RC QP must be ready to receive) */
    if (ctl_io(t->sock, &sync, 1, true) != 0 || ctl_io(t->sock, &sync, 1, false) != 0) {
        return -1;
    }
    return 0;
}

/* The child: progresses and answers the parent until told to stop (or killed). OP_HOLD: no
 * more progress, and on_recv asks the transport to stop after each message, until OP_FREE;
 * OP_STEP: one progress call, answered with the messages it delivered (c) and the count (a). */
static int child_serve(conf_t *t)
{
    bool hold = false;

    for (;;) {
        struct pollfd pfd = {.fd = t->sock, .events = POLLIN};
        ctl_t c;

        if (!hold) {
            t->btl->ops->progress(t->btl);
        }
        if (poll(&pfd, 1, hold ? -1 : 0) != 1) {
            continue;
        }
        if (ctl_io(t->sock, &c, sizeof(c), false) != 0 || c.op == OP_QUIT) {
            return 0;
        }
        t->rx_round = 0;
        if (c.op == OP_HOLD || c.op == OP_FREE) {
            hold = t->stop_each = c.op == OP_HOLD;
        } else if (c.op == OP_STEP) {
            t->btl->ops->progress(t->btl);
        }
        c = (ctl_t){.op = c.op, .a = t->rx_count, .b = t->rx_bytes, .c = t->rx_round};
        if (ctl_io(t->sock, &c, sizeof(c), true) != 0) {
            return 1;
        }
    }
}

static void run_cases(conf_t *t)
{
    const rcmsg_btl_caps_t *c = &t->btl->caps;

    printf("%s: caps: max_send %zu, max_inline %zu, max_get %zu, max_gets %u, chunked_gets %d\n",
           t->name, c->max_send, c->max_inline, c->max_get, c->max_gets, c->chunked_gets);
    case_ordering(t);
    case_sizes(t);
    case_gets(t);
    case_flush(t);
    case_stop(t);
    case_peer_fails(t);
}

/* Opens the transport as rank `rank` of a job of `size`; 77 when it cannot be opened here. */
static int open_rank(conf_t *t, int rank, int size)
{
    rcmsg_btl_job_t job = {.rank = rank, .size = size, .local_rank = rank, .local_size = size};
    rcmsg_status_t s = conform_open(t->name, &job, &t->btl);

    if (s != RCMSG_OK) {
        printf("%s: %s: cannot open the transport here: %s\n",
               s == RCMSG_ERR_NO_DEVICE || s == RCMSG_ERR_UNSUPPORTED ? "SKIP" : "FAIL", t->name,
               rcmsg_status_name(s));
        return s == RCMSG_ERR_NO_DEVICE || s == RCMSG_ERR_UNSUPPORTED ? 77 : 1;
    }
    t->rank = rank;
    t->peer = size == 1 ? rank : 1 - rank;
    t->btl->recv_cb = on_recv;
    t->btl->fail_cb = on_fail;
    t->btl->cb_arg = t;
    return 0;
}

static int run_self(conf_t *t)
{
    uint8_t *region;
    rcmsg_btl_mem_t mem;
    size_t n = sizeof(send_buf);
    int st = open_rank(t, 0, 1);

    if (st != 0) {
        return st;
    }
    if (region_open(t, &region, &mem) != 0 ||
        t->btl->ops->addr_pack(t->btl, send_buf, &n) != RCMSG_OK ||
        t->btl->ops->connect(t->btl, 0, send_buf, n) != RCMSG_OK) {
        printf("FAIL: self: setup failed\n");
        return 1;
    }
    t->region_addr = (uintptr_t)region;
    t->region_rkey = mem.rkey;
    run_cases(t);
    t->btl->ops->mem_dereg(t->btl, &mem);
    t->btl->ops->close(t->btl);
    free(region);
    return t->failures > 0;
}

/* Both sides of the fork; the parent (rank 0) runs the cases. */
static int run_pair(conf_t *t)
{
    int sv[2], st, peer_st = 0;
    uint8_t *region = NULL;
    rcmsg_btl_mem_t mem;

    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0 || (t->child = fork()) < 0) {
        printf("FAIL: %s: socketpair/fork: %s\n", t->name, strerror(errno));
        return 1;
    }
    t->sock = sv[t->child == 0 ? 1 : 0];
    close(sv[t->child == 0 ? 0 : 1]);
    st = open_rank(t, t->child == 0 ? 1 : 0, 2);
    /* each side learns whether the other opened: a failed open ends both */
    if (ctl_io(t->sock, &st, sizeof(st), true) != 0 ||
        ctl_io(t->sock, &peer_st, sizeof(peer_st), false) != 0) {
        st = st != 0 ? st : 1;
    }
    if (st == 0 && peer_st == 0 &&
        (region_open(t, &region, &mem) != 0 || pair_connect(t, &mem) != 0)) {
        printf("FAIL: %s: rank %d: setup failed\n", t->name, t->rank);
        st = 1;
    }
    st = st != 0 ? st : peer_st;
    if (t->child == 0) {
        st = st == 0 ? child_serve(t) : st;
        _exit(st); /* the parent kills it at the last case */
    }
    if (st == 0) {
        run_cases(t);
    }
    if (t->child > 0) {
        kill(t->child, SIGKILL);
        waitpid(t->child, NULL, 0);
    }
    if (t->btl != NULL) {
        if (region != NULL) {
            t->btl->ops->mem_dereg(t->btl, &mem);
        }
        t->btl->ops->close(t->btl);
    }
    free(region);
    close(t->sock);
    return st != 0 ? st : t->failures > 0;
}

int main(int argc, char **argv)
{
    conf_t t = {.sock = -1, .child = -1, .fail_peer = -1};
    int st;

    const rcmsg_btl_component_t *c = argc == 2 ? rcmsg_btl_find(&rcmsg_btl_table, argv[1]) : NULL;

    if (c == NULL) {
        char names[64];
        rcmsg_btl_names(&rcmsg_btl_table, names, sizeof(names));
        fprintf(stderr, "usage: %s TRANSPORT (one of the registry's: %s)\n", argv[0], names);
        return 2;
    }
    t.name = argv[1];
    signal(SIGPIPE, SIG_IGN);
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (rcmsg_config_load(NULL) != RCMSG_OK) {
        printf("FAIL: %s: bad RCMSG_* settings\n", t.name);
        return 1;
    }
    /* a transport that serves only its own rank runs in one process; the others across a fork */
    st = c->reach == RCMSG_BTL_REACH_SELF ? run_self(&t) : run_pair(&t);
    printf("%s: %s, %d of %d checks passed, %d failure(s)\n", t.name, st == 77 ? "skipped" : "done",
           t.checks - t.failures, t.checks, t.failures);
    rcmsg_config_unload();
    return st;
}
