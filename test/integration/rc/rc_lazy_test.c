/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Lazy connections (RCMSG_CONNECT=lazy), through the public API only. Every message carries
 * a header (source, destination, per-pair sequence number, length) and a pattern derived
 * from them; every byte, every length and the per-pair order are checked on receipt.
 *
 *   rc_lazy_test traffic          all-to-all (two messages per pair, one eager and one
 *                                 rendezvous, both sides sending at once), a ring, then
 *                                 random-peer rounds
 *   rc_lazy_test ring             a ring only: each rank talks to its two neighbours
 *   rc_lazy_test lru ROUNDS MSGS  ROUNDS rounds separated by barriers; in each every rank
 *                                 sends MSGS messages (eager and rendezvous alternately) to
 *                                 the rank a pseudo-random derangement gives it; rank 0
 *                                 prints the job's totals: "rank 0: lru: N of N messages
 *                                 received, N connections and N disconnections (rc events)"
 *   rc_lazy_test simul            2 ranks: both send to the other right after rcmsg_init
 *   rc_lazy_test dead             rank 1 kills itself right after rcmsg_init; 2 s later
 *                                 rank 0 sends to it and prints the status and the time
 *
 * With RC_LAZY_LOG_DIR set, each process writes its standard error (rcmsg's log) to
 * RC_LAZY_LOG_DIR/PID.log: mpirun's forwarding can splice one rank's line into another's,
 * and the script reads the log lines of each rank.
 *
 * The eager limit is read from RCMSG_EAGER_LIMIT (a number of bytes; 8192 when unset) to size
 * the messages on both sides of it. Every rank prints "rank R: MODE: N received, N sent,
 * checked" on success; a failure prints "FAIL: ..." and exits 1.
 */
#include <rcmsg.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../test_log.h"

#define MAGIC 0x6c617a79u

typedef struct {
    uint32_t magic;
    int32_t src, dst;
    uint32_t seq;
    uint32_t len; /* whole message, this header included */
} msg_hdr_t;

typedef struct { /* one message of a plan every rank computes alike */
    int src, dst;
} plan_msg_t;

static int rank, size, failures;
static size_t eager_max;
static uint32_t *sent_seq, *recv_seq; /* [size]: per-pair sequence numbers, across phases */
static rcmsg_comm_t world;
static int64_t rc_events[2]; /* rc connections and disconnections seen by the event handler */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static uint8_t pattern(const msg_hdr_t *h, size_t i)
{
    return (uint8_t)(h->src * 31 + h->dst * 17 + h->seq * 7 + i * 13 + 1);
}

/* Odd sequence numbers go by rendezvous (up to 3x the eager limit), even ones eagerly. */
static size_t msg_len(int src, int dst, uint32_t seq)
{
    uint64_t r = mix64(((uint64_t)src << 40) ^ ((uint64_t)dst << 20) ^ seq);

    if (seq % 2 == 1) {
        return eager_max + 1 + (size_t)(r % (2 * eager_max + 1));
    }
    return sizeof(msg_hdr_t) + (size_t)(r % (eager_max - sizeof(msg_hdr_t) + 1));
}

static void failf(const char *what, int peer, uint32_t seq, const char *detail)
{
    if (failures++ < 20) {
        printf("FAIL: rank %d: %s: peer %d, message %u: %s\n", rank, what, peer, seq, detail);
    }
}

static void *make_msg(int dst, size_t *len_p)
{
    msg_hdr_t h = {MAGIC, rank, dst, sent_seq[dst]++, 0};
    size_t len = msg_len(rank, dst, h.seq);
    uint8_t *buf = malloc(len);

    if (buf == NULL) {
        printf("FAIL: rank %d: out of memory\n", rank);
        exit(1);
    }
    h.len = (uint32_t)len;
    memcpy(buf, &h, sizeof(h));
    for (size_t i = sizeof(h); i < len; i++) {
        buf[i] = pattern(&h, i);
    }
    *len_p = len;
    return buf;
}

/* The message received from src into buf (count bytes) must be the next one of the pair. */
static void check_msg(int src, const uint8_t *buf, const rcmsg_msg_status_t *st)
{
    uint32_t seq = recv_seq[src]++;
    size_t len = msg_len(src, rank, seq);
    msg_hdr_t h;

    if (st->error != RCMSG_OK || st->source != src || st->count != len) {
        char d[160];
        snprintf(d, sizeof(d), "status %s, source %d, %zu bytes (expected %zu)",
                 rcmsg_status_name(st->error), st->source, st->count, len);
        failf("receive", src, seq, d);
        return;
    }
    memcpy(&h, buf, sizeof(h));
    if (h.magic != MAGIC || h.src != src || h.dst != rank || h.len != len) {
        failf("header", src, seq, "magic, source, destination or length differ");
        return;
    }
    if (h.seq != seq) {
        char d[80];
        snprintf(d, sizeof(d), "sequence %u arrived in its place (order lost)", h.seq);
        failf("order", src, seq, d);
        return;
    }
    for (size_t i = sizeof(h); i < len; i++) {
        if (buf[i] != pattern(&h, i)) {
            char d[80];
            snprintf(d, sizeof(d), "byte %zu of %zu differs", i, len);
            failf("data", src, seq, d);
            return;
        }
    }
}

/*
 * Runs one exchange of a plan: posts a receive for every message addressed to this rank
 * (in plan order, so per-pair order is the sequence order) and sends its own, then waits
 * for all. sends_first posts the sends before the receives. Returns the messages received.
 */
static int exchange(const plan_msg_t *plan, int n, int tag, int sends_first)
{
    rcmsg_request_t *reqs = calloc((size_t)(2 * n), sizeof(*reqs));
    rcmsg_msg_status_t *st = calloc((size_t)(2 * n), sizeof(*st));
    uint8_t **bufs = calloc((size_t)(2 * n), sizeof(*bufs));
    int *peer = calloc((size_t)(2 * n), sizeof(*peer));
    int nreq = 0, nrecv = 0;
    rcmsg_status_t s;

    if (reqs == NULL || st == NULL || bufs == NULL || peer == NULL) {
        printf("FAIL: rank %d: out of memory\n", rank);
        exit(1);
    }
    for (int pass = 0; pass < 2; pass++) {
        int sending = pass == (sends_first ? 0 : 1);
        for (int i = 0; i < n; i++) {
            size_t len;
            if (sending && plan[i].src == rank) {
                bufs[nreq] = make_msg(plan[i].dst, &len);
                peer[nreq] = -1;
                s = rcmsg_isend(bufs[nreq], len, plan[i].dst, tag, world, &reqs[nreq]);
            } else if (!sending && plan[i].dst == rank) {
                /* room for more than expected: a longer message shows as a wrong count */
                len = 3 * eager_max + 64;
                bufs[nreq] = malloc(len);
                peer[nreq] = plan[i].src;
                s = bufs[nreq] == NULL
                        ? RCMSG_ERR_NO_MEMORY
                        : rcmsg_irecv(bufs[nreq], len, plan[i].src, tag, world, &reqs[nreq]);
            } else {
                continue;
            }
            if (s != RCMSG_OK) {
                printf("FAIL: rank %d: %s to/from %d: %s\n", rank, sending ? "isend" : "irecv",
                       sending ? plan[i].dst : plan[i].src, rcmsg_status_name(s));
                exit(1);
            }
            nreq++;
        }
    }
    s = rcmsg_waitall((size_t)nreq, reqs, st);
    if (s != RCMSG_OK) {
        printf("FAIL: rank %d: waitall (tag %d): %s\n", rank, tag, rcmsg_status_name(s));
        failures++;
    }
    for (int k = 0; k < nreq; k++) {
        if (peer[k] >= 0) {
            check_msg(peer[k], bufs[k], &st[k]);
            nrecv++;
        } else if (st[k].error != RCMSG_OK) {
            failf("send", -1, 0, rcmsg_status_name(st[k].error));
        }
        free(bufs[k]);
    }
    free(reqs), free(st), free(bufs), free(peer);
    return nrecv;
}

static void derangement(int *perm, uint64_t seed)
{
    int fixed;

    do {
        for (int i = 0; i < size; i++) {
            perm[i] = i;
        }
        for (int i = size - 1; i > 0; i--) {
            int j = (int)(mix64(seed++) % (uint64_t)(i + 1)), t = perm[i];
            perm[i] = perm[j], perm[j] = t;
        }
        fixed = 0;
        for (int i = 0; i < size; i++) {
            fixed |= perm[i] == i;
        }
    } while (fixed);
}

static plan_msg_t *plan_alloc(int n)
{
    plan_msg_t *p = calloc((size_t)n, sizeof(*p));
    if (p == NULL) {
        printf("FAIL: rank %d: out of memory\n", rank);
        exit(1);
    }
    return p;
}

/* Two messages per ordered pair (even sequence: eager, odd: rendezvous), all posted at once. */
static int phase_alltoall(void)
{
    plan_msg_t *p = plan_alloc(2 * size * size);
    int n = 0, got;

    for (int s = 0; s < size; s++) {
        for (int d = 0; d < size; d++) {
            for (int j = 0; d != s && j < 2; j++) {
                p[n++] = (plan_msg_t){s, d};
            }
        }
    }
    got = exchange(p, n, 1, 0);
    free(p);
    return got;
}

static int phase_ring(int count)
{
    plan_msg_t *p = plan_alloc(count * size);
    int n = 0, got;

    for (int j = 0; j < count; j++) {
        for (int s = 0; s < size; s++) {
            p[n++] = (plan_msg_t){s, (s + 1) % size};
        }
    }
    got = exchange(p, n, 2, 0);
    free(p);
    return got;
}

/* rounds of msgs messages from every rank, each to a pseudo-random other rank */
static int phase_random(int rounds, int msgs)
{
    plan_msg_t *p = plan_alloc(msgs * size);
    int got = 0;

    for (int r = 0; r < rounds; r++) {
        int n = 0;
        for (int s = 0; s < size; s++) {
            for (int j = 0; j < msgs; j++) {
                int d = (int)(mix64((uint64_t)(r * 1000003 + s * 1009 + j)) % (uint64_t)(size - 1));
                p[n++] = (plan_msg_t){s, d >= s ? d + 1 : d};
            }
        }
        got += exchange(p, n, 3, 0);
    }
    free(p);
    return got;
}

static void on_event(const rcmsg_event_t *e, void *arg)
{
    (void)arg;
    if (strcmp(e->transport, "rc") == 0 && e->kind == RCMSG_EVENT_CONNECTED) {
        rc_events[0]++;
    } else if (strcmp(e->transport, "rc") == 0 && e->kind == RCMSG_EVENT_DISCONNECTED) {
        rc_events[1]++;
    }
}

/* The job's messages, connections and disconnections summed on every rank; rank 0 prints them
 * and fails when a message of the WANT sent is missing. */
static void lru_totals(int got, int64_t want)
{
    int64_t mine[3] = {got, rc_events[0], rc_events[1]}, all[3];
    rcmsg_status_t s = rcmsg_allreduce(mine, all, 3, RCMSG_INT64, RCMSG_SUM, world);

    if (s != RCMSG_OK) {
        printf("FAIL: rank %d: allreduce of the totals: %s\n", rank, rcmsg_status_name(s));
        failures++;
    } else if (rank == 0) {
        printf("rank 0: lru: %lld of %lld messages received, %lld connections and %lld "
               "disconnections (rc events)\n",
               (long long)all[0], (long long)want, (long long)all[1], (long long)all[2]);
        failures += all[0] != want;
    }
}

/* Rounds of a derangement each, with a barrier between them: only one round's messages are
 * ever in flight, so no rank waits for a receive that a later round's traffic keeps from
 * being connected. */
static int phase_lru(int rounds, int msgs)
{
    plan_msg_t *p = plan_alloc(msgs * size);
    int *perm = calloc((size_t)size, sizeof(*perm));
    int got = 0;
    rcmsg_status_t s;

    for (int r = 0; r < rounds && perm != NULL; r++) {
        int n = 0;
        derangement(perm, 0x1badb002ull * (uint64_t)(r + 1));
        for (int j = 0; j < msgs; j++) {
            for (int k = 0; k < size; k++) {
                p[n++] = (plan_msg_t){k, perm[k]};
            }
        }
        got += exchange(p, n, 4, 0);
        s = rcmsg_barrier(world);
        if (s != RCMSG_OK) {
            printf("FAIL: rank %d: barrier after round %d: %s\n", rank, r, rcmsg_status_name(s));
            exit(1);
        }
    }
    free(p), free(perm);
    lru_totals(got, (int64_t)rounds * msgs * size);
    return got;
}

/* Rank 1 dies at once; rank 0 waits until it is gone, then sends to it. */
static int run_dead(void)
{
    char msg[64] = "to the dead";
    rcmsg_status_t s;
    double t0;

    if (rank == 1) {
        printf("rank 1: killing itself with SIGKILL\n");
        raise(SIGKILL);
    }
    if (rank != 0) {
        return 0;
    }
    sleep(2);
    t0 = now_s();
    s = rcmsg_send(msg, sizeof(msg), 1, 5, world);
    printf("rank 0: a send to the dead rank 1 returned %s after %.2f s\n", rcmsg_status_name(s),
           now_s() - t0);
    return 0;
}

static int run(const char *mode, int argc, char **argv)
{
    int got = 0;
    uint32_t sent = 0;

    if (strcmp(mode, "traffic") == 0) {
        got += phase_alltoall();
        got += phase_ring(10);
        got += phase_random(4, 6);
    } else if (strcmp(mode, "ring") == 0) {
        got += phase_ring(10);
    } else if (strcmp(mode, "lru") == 0 && argc == 4 && atoi(argv[2]) > 0 && atoi(argv[3]) > 0) {
        got += phase_lru(atoi(argv[2]), atoi(argv[3]));
    } else if (strcmp(mode, "simul") == 0) {
        plan_msg_t p[4] = {{0, 1}, {1, 0}, {0, 1}, {1, 0}}; /* an eager and a rendezvous each */
        got += exchange(p, 4, 6, 1);
    } else if (strcmp(mode, "dead") == 0) {
        return run_dead();
    } else {
        fprintf(stderr, "usage: rc_lazy_test traffic|ring|lru ROUNDS MSGS|simul|dead\n");
        return 2;
    }
    for (int i = 0; i < size; i++) {
        sent += sent_seq[i];
    }
    if (failures == 0) {
        printf("rank %d: %s: %d received, %u sent, checked\n", rank, mode, got, sent);
    }
    return failures != 0;
}

static size_t eager_limit(void)
{
    const char *e = getenv("RCMSG_EAGER_LIMIT");
    long v = e != NULL ? atol(e) : 8192;

    return v > (long)sizeof(msg_hdr_t) ? (size_t)v : 8192;
}

int main(int argc, char **argv)
{
    rcmsg_status_t s;
    int st;

    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc < 2) {
        fprintf(stderr, "usage: rc_lazy_test traffic|ring|lru ROUNDS MSGS|simul|dead\n");
        return 2;
    }
    eager_max = eager_limit();
    test_log_to_file("RC_LAZY_LOG_DIR");
    rcmsg_event_handler_set(on_event, NULL);
    s = rcmsg_init();
    if (s != RCMSG_OK) {
        printf("FAIL: rcmsg_init: %s\n", rcmsg_status_name(s));
        return 1;
    }
    rank = rcmsg_rank(), size = rcmsg_size(), world = rcmsg_comm_world();
    if (size < 2 ||
        ((strcmp(argv[1], "simul") == 0 || strcmp(argv[1], "dead") == 0) && size != 2)) {
        printf("FAIL: %d ranks: %s needs %s\n", size, argv[1],
               size < 2 ? "2 or more" : "exactly 2");
        return 1;
    }
    sent_seq = calloc((size_t)size, sizeof(*sent_seq));
    recv_seq = calloc((size_t)size, sizeof(*recv_seq));
    if (sent_seq == NULL || recv_seq == NULL) {
        printf("FAIL: rank %d: out of memory\n", rank);
        return 1;
    }
    st = run(argv[1], argc, argv);
    s = rcmsg_finalize();
    if (s != RCMSG_OK) {
        printf("FAIL: rank %d: rcmsg_finalize: %s\n", rank, rcmsg_status_name(s));
        st = 1;
    } else if (st == 0 && rank == 0 && strcmp(argv[1], "dead") == 0) {
        printf("rank 0: finalized\n");
    }
    free(sent_seq), free(recv_seq);
    return st;
}
