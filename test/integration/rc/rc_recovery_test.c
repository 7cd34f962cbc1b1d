/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Recovery of rc connections (issue 15), through the public API plus the rc test hooks
 * rcmsg_rc_btl_force_error, rcmsg_rc_btl_force_fatal (every 10th forced error of the stream)
 * and rcmsg_rc_btl_recoveries. Every message carries an 8-byte header
 * (sequence number, sender, flags, a check word) and a pattern derived from sender,
 * receiver, sequence number and size; its length is derived from the same, so the receiver
 * checks every byte, the length and the per-pair order.
 *
 *   rc_recovery_test stream [OPTIONS]    every pair streams both ways at once (nonblocking,
 *                                        WIN sends and WIN receives in flight per peer),
 *                                        eager (8 B .. 8 KiB) and rendezvous (16 .. 512 KiB)
 *                                        sizes mixed; with --forces N rank 0 forces its QP to
 *                                        rank 1 into ERR N times, each 1..40 messages after
 *                                        the previous recovery completed
 *   rc_recovery_test kill [OPTIONS]      the same among 3 or more ranks; the last rank kills
 *                                        itself (SIGKILL) mid-stream; the survivors record
 *                                        when and how their requests to it fail, and finish
 *                                        their own streams
 *   rc_recovery_test coll [OPTIONS]      allreduce, bcast and alltoall in a loop, results
 *                                        checked; rank 0 forces its QP to every other rank
 *                                        into ERR --forces times each, at random iterations
 *   rc_recovery_test allreduce [OPTIONS] an allreduce loop (results checked) until --until
 *   rc_recovery_test pingpong [OPTIONS]  2 ranks: checked round trips until --until
 *
 * OPTIONS: --forces N (stream: 0; coll: 3), --hook error|qp-err (stream: how rank 0 forces:
 * error, rcmsg_rc_btl_force_error and every 10th rcmsg_rc_btl_force_fatal, the default; qp-err,
 * rcmsg_rc_btl_force_qp_err: the QP goes to ERR behind the mirror's back, as a responder's error
 * does, found by its first flushed completion), --max-len N (stream, kill: the largest message,
 * 16 KiB .. 64 MiB; 512 KiB), --until FILE (rank 0 ends the stream, the loop
 * or the round trips once FILE exists), --min-msgs N (stream, kill: messages each rank
 * receives at least, 400), --iters N (coll: at least, 60), --seed N, --deadline S (stream,
 * kill: a run not finished after S seconds fails, printing where each stream stood; 300).
 *
 * Rank 0 prints "rank 0: MODE: running" once the traffic runs (the script then breaks the
 * link). Each rank ends with "rank R: recoveries: peer P K, ..." (rcmsg_rc_btl_recoveries
 * for every peer, waited for until they reach the count rank 0 forced) and its checks:
 *   stream, kill: "rank R: stream: peer P: received N (B bytes), lost L, duplicated D,
 *                  out of order O, corrupt C, errors E; sent S; forced F"
 *   kill:         "rank R: peer P failed: first error STATUS after T s, all its requests
 *                  done after T2 s, N failed" (T from the victim's kill, CLOCK_MONOTONIC)
 *   coll, allreduce, pingpong: "rank R: MODE: N iterations checked, F failures, longest
 *                  iteration T s"
 *   stream:       rank 0 also "rank 0: qp fatal: peer 1: N recoveries from a QP fatal event
 *                  (forced F)", N counted from rcmsg's RECOVERED events naming the cause, F
 *                  its rcmsg_rc_btl_force_fatal calls (checked equal)
 * A failed check prints "FAIL rank R ..." and the program exits 1.
 *
 * With RC_RECOVERY_LOG_DIR set, each process writes its standard error (rcmsg's log) to
 * RC_RECOVERY_LOG_DIR/PID.log: mpirun's forwarding can splice lines of two ranks, and the
 * script reads the log lines of each rank. The victim of kill writes its kill time there too
 * (killed_at).
 */
#include "config.h"

#include "btl_rc/rc_btl.h"
#include "core/core.h"
#include "../test_check.h"
#include "../test_log.h"

#include <errno.h>
#include <fcntl.h>
#include <rcmsg.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define WIN        8           /* sends and receives in flight per peer */
#define MAX_LEN    opt_max_len /* largest message */
#define TAG_STREAM 11
#define TAG_PING   12
#define TAG_IDLE   13 /* never sent: rcmsg_iprobe on it only drives progress */
#define HDR_FINAL  1  /* the last message of a stream before WIN - 1 fillers */

typedef struct {
    uint32_t seq;
    uint8_t src;
    uint8_t flags;
    uint16_t check;
} hdr_t;
_Static_assert(sizeof(hdr_t) == 8, "the header fits the smallest message");

enum { CH_RUN, CH_FAILED, CH_DONE };

typedef struct { /* one peer's streams, both ways */
    int peer, leader, state;
    uint32_t final_seq;                        /* our FINAL message, UINT32_MAX until chosen */
    uint32_t sent_posted, sent_done, send_end; /* send_end: final_seq + WIN */
    uint32_t recv_posted, recv_done, recv_end; /* recv_end: the peer's FINAL slot + WIN */
    rcmsg_request_t sreq[WIN], rreq[WIN];
    uint8_t *sbuf[WIN], *rbuf[WIN];
    uint8_t *seen; /* [seen_cap]: sequence numbers received */
    size_t seen_cap;
    int64_t last_seq;
    uint64_t received, bytes, dup, ooo, corrupt, errors, completed;
    rcmsg_status_t first_error;
    double error_at, resolved_at;
} chan_t;

static int rank, size, failures;
static rcmsg_comm_t world;
static rcmsg_btl_t *rc_btl;
static uint64_t seed = 1;
static long opt_forces = -1, opt_min_msgs = 400, opt_iters = 60;
static size_t opt_max_len = 512 * 1024;
static int opt_qp_err; /* --hook qp-err: the QP moved to ERR behind the mirror's back */
static double opt_deadline = 300;
static const char *opt_until;
static uint64_t fatal_forced, fatal_events; /* rank 0: QP fatal errors forced; their recoveries */
static double t_start;

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

static uint64_t rnd(void)
{
    static uint64_t n;
    return mix64(seed * 0x100000001b3ull + n++);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n);
    if (p == NULL) {
        printf("FAIL rank %d: out of memory (%zu bytes)\n", rank, n);
        exit(1);
    }
    return p;
}

static uint64_t msg_key(int src, int dst, uint32_t seq)
{
    return mix64(((uint64_t)(src & 0xffff) << 48) ^ ((uint64_t)(dst & 0xffff) << 32) ^ seq);
}

/* 3 in 4 eager, 8 B .. 8 KiB; 1 in 4 rendezvous, 16 KiB .. MAX_LEN (log-uniform in both) */
static size_t msg_len(int src, int dst, uint32_t seq)
{
    uint64_t r = mix64(msg_key(src, dst, seq));
    size_t base;
    unsigned steps = 1;

    while (((size_t)16384 << steps) < MAX_LEN) {
        steps++;
    }
    if (r % 4 == 0) {
        base = (size_t)16384 << ((r >> 8) % steps);
        base += (size_t)((r >> 16) % base);
        return base < MAX_LEN ? base : MAX_LEN;
    }
    base = (size_t)8 << ((r >> 8) % 11);
    base += (size_t)((r >> 16) % base);
    return base < 8192 ? base : 8192;
}

static void fill(uint8_t *buf, size_t len, uint64_t key)
{
    for (size_t i = 0; i < len; i += 8) {
        uint64_t w = key ^ (i * 0x9e3779b97f4a7c15ull);
        memcpy(buf + i, &w, len - i < 8 ? len - i : 8);
    }
}

/* The offset of the first byte that differs from the pattern, or len. */
static size_t differs(const uint8_t *buf, size_t len, uint64_t key)
{
    for (size_t i = 0; i < len; i += 8) {
        uint64_t w = key ^ (i * 0x9e3779b97f4a7c15ull);
        if (memcmp(buf + i, &w, len - i < 8 ? len - i : 8) != 0) {
            return i;
        }
    }
    return len;
}

/* Message seq from this rank to dst (header and pattern) into buf; returns its length. */
static size_t make_msg(uint8_t *buf, int dst, uint32_t seq, int flags)
{
    uint64_t key = msg_key(rank, dst, seq);
    size_t len = msg_len(rank, dst, seq);
    hdr_t h = {seq, (uint8_t)rank, (uint8_t)flags, (uint16_t)key};

    fill(buf + sizeof(h), len - sizeof(h), key);
    memcpy(buf, &h, sizeof(h));
    return len;
}

/* Checks a message received from src; returns its header, or seq UINT32_MAX if corrupt. */
static hdr_t check_msg(const uint8_t *buf, size_t count, int src)
{
    hdr_t h, bad = {UINT32_MAX, 0, 0, 0};
    uint64_t key;
    size_t at;

    if (count < sizeof(h)) {
        printf("FAIL rank %d: %zu bytes from %d: shorter than a header\n", rank, count, src);
        return bad;
    }
    memcpy(&h, buf, sizeof(h));
    key = msg_key(src, rank, h.seq);
    if (h.src != (uint8_t)src || h.check != (uint16_t)key || h.flags > HDR_FINAL) {
        printf("FAIL rank %d: from %d: a header that is not ours (seq %u, src %u, check 0x%x)\n",
               rank, src, h.seq, h.src, h.check);
        return bad;
    }
    if (count != msg_len(src, rank, h.seq)) {
        printf("FAIL rank %d: from %d: message %u has %zu bytes, not %zu\n", rank, src, h.seq,
               count, msg_len(src, rank, h.seq));
        return bad;
    }
    at = differs(buf + sizeof(h), count - sizeof(h), key);
    if (at < count - sizeof(h)) {
        printf("FAIL rank %d: from %d: message %u (%zu bytes): byte %zu differs\n", rank, src,
               h.seq, count, at + sizeof(h));
        return bad;
    }
    return h;
}

/* ---- streams -------------------------------------------------------------------------- */

static void chan_init(chan_t *c, int peer)
{
    memset(c, 0, sizeof(*c));
    c->peer = peer;
    c->leader = rank < peer;
    c->final_seq = c->send_end = c->recv_end = UINT32_MAX;
    c->last_seq = -1;
    for (int i = 0; i < WIN; i++) {
        c->sbuf[i] = xmalloc(MAX_LEN);
        c->rbuf[i] = xmalloc(MAX_LEN + 64);
    }
    c->seen_cap = 4096;
    c->seen = calloc(c->seen_cap, 1);
    if (c->seen == NULL) {
        printf("FAIL rank %d: out of memory\n", rank);
        exit(1);
    }
}

static void chan_free(chan_t *c)
{
    for (int i = 0; i < WIN; i++) {
        free(c->sbuf[i]);
        free(c->rbuf[i]);
    }
    free(c->seen);
}

static void chan_error(chan_t *c, const char *what, uint32_t n, rcmsg_status_t s)
{
    c->errors++;
    if (c->first_error == RCMSG_OK) {
        c->first_error = s;
        c->error_at = now_s();
    }
    c->state = CH_FAILED;
    if (c->errors <= 5) {
        printf("rank %d: %s %u with peer %d failed: %s\n", rank, what, n, c->peer,
               rcmsg_status_name(s));
    }
}

/* This side's last message: FINAL now, then WIN - 1 fillers (the peer's posted receives). */
static void chan_finish_sending(chan_t *c)
{
    if (c->final_seq == UINT32_MAX) {
        c->final_seq = c->sent_posted;
        c->send_end = c->final_seq + WIN;
    }
}

static void chan_post(chan_t *c)
{
    rcmsg_status_t s;

    while (c->state == CH_RUN && c->sent_posted < c->send_end &&
           c->sent_posted < c->sent_done + WIN) {
        uint32_t seq = c->sent_posted, k = seq % WIN;
        size_t len = make_msg(c->sbuf[k], c->peer, seq, seq == c->final_seq ? HDR_FINAL : 0);

        s = rcmsg_isend(c->sbuf[k], len, c->peer, TAG_STREAM, world, &c->sreq[k]);
        if (s != RCMSG_OK) {
            chan_error(c, "isend of message", seq, s);
            return;
        }
        c->sent_posted++;
    }
    while (c->state == CH_RUN && c->recv_posted < c->recv_end &&
           c->recv_posted < c->recv_done + WIN) {
        uint32_t k = c->recv_posted % WIN;

        s = rcmsg_irecv(c->rbuf[k], MAX_LEN + 64, c->peer, TAG_STREAM, world, &c->rreq[k]);
        if (s != RCMSG_OK) {
            chan_error(c, "irecv of slot", c->recv_posted, s);
            return;
        }
        c->recv_posted++;
    }
}

static void chan_seen(chan_t *c, uint32_t seq)
{
    if (seq >= c->seen_cap) {
        size_t cap = c->seen_cap;
        while (cap <= seq) {
            cap *= 2;
        }
        c->seen = realloc(c->seen, cap);
        if (c->seen == NULL) {
            printf("FAIL rank %d: out of memory\n", rank);
            exit(1);
        }
        memset(c->seen + c->seen_cap, 0, cap - c->seen_cap);
        c->seen_cap = cap;
    }
    if (c->seen[seq]) {
        c->dup++;
        printf("FAIL rank %d: from %d: message %u received again (duplicate)\n", rank, c->peer,
               seq);
        return;
    }
    if ((int64_t)seq != c->last_seq + 1) {
        c->ooo++;
        printf("FAIL rank %d: from %d: message %u after message %lld (out of order)\n", rank,
               c->peer, seq, (long long)c->last_seq);
    }
    c->seen[seq] = 1;
    c->last_seq = seq;
    c->received++;
}

static void chan_received(chan_t *c, uint32_t slot, const rcmsg_msg_status_t *st)
{
    hdr_t h = check_msg(c->rbuf[slot % WIN], st->count, c->peer);

    if (h.seq == UINT32_MAX) {
        c->corrupt++;
        return;
    }
    chan_seen(c, h.seq);
    c->bytes += st->count;
    if (h.flags & HDR_FINAL) {
        /* the peer sends WIN - 1 fillers after it: one for each receive still posted */
        c->recv_end = slot + WIN;
        chan_finish_sending(c); /* the follower answers the leader's end with its own */
    }
}

/* Tests the oldest send and the oldest receive (completed in order); returns completions. */
static int chan_test(chan_t *c)
{
    rcmsg_msg_status_t st;
    rcmsg_status_t s;
    int flag, n = 0;

    while (c->sent_done < c->sent_posted) {
        s = rcmsg_test(&c->sreq[c->sent_done % WIN], &flag, &st);
        if (!flag && s == RCMSG_OK) {
            break;
        }
        if (s != RCMSG_OK) {
            chan_error(c, "send of message", c->sent_done, s);
        }
        c->sent_done++, c->completed++, n++;
    }
    while (c->recv_done < c->recv_posted) {
        s = rcmsg_test(&c->rreq[c->recv_done % WIN], &flag, &st);
        if (!flag && s == RCMSG_OK) {
            break;
        }
        if (s != RCMSG_OK) {
            chan_error(c, "receive of slot", c->recv_done, s);
            /* the failed receive took the slot's message (a read that failed): order goes on
             * from it (this matters only for a failed peer: any error fails the others) */
            if ((int64_t)c->recv_done > c->last_seq) {
                c->last_seq = c->recv_done;
            }
        } else {
            chan_received(c, c->recv_done, &st);
        }
        c->recv_done++, c->completed++, n++;
    }
    if (c->state == CH_RUN && c->sent_done == c->send_end && c->recv_done == c->recv_end) {
        c->state = CH_DONE;
    }
    if (c->state == CH_FAILED && c->resolved_at == 0 && c->sent_done == c->sent_posted &&
        c->recv_done == c->recv_posted) {
        c->resolved_at = now_s();
    }
    return n;
}

static int chan_finished(const chan_t *c)
{
    return c->state == CH_DONE || (c->state == CH_FAILED && c->resolved_at != 0);
}

/* Seqs below the end the peer announced that never arrived. */
static uint64_t chan_lost(const chan_t *c)
{
    uint64_t lost = 0;
    uint32_t end = c->recv_end != UINT32_MAX ? c->recv_end : (uint32_t)(c->last_seq + 1);

    for (uint32_t s = 0; s < end; s++) {
        lost += s >= c->seen_cap || !c->seen[s];
    }
    return lost;
}

static void chan_report(const chan_t *c, uint64_t forced)
{
    printf("rank %d: stream: peer %d: received %llu (%llu bytes), lost %llu, duplicated %llu, "
           "out of order %llu, corrupt %llu, errors %llu; sent %u; forced %llu\n",
           rank, c->peer, (unsigned long long)c->received, (unsigned long long)c->bytes,
           (unsigned long long)chan_lost(c), (unsigned long long)c->dup, (unsigned long long)c->ooo,
           (unsigned long long)c->corrupt, (unsigned long long)c->errors, c->sent_done,
           (unsigned long long)forced);
}

static void chan_where(const chan_t *c)
{
    printf("rank %d: peer %d: state %d; sends done %u, posted %u, end %d; receives done %u, "
           "posted %u, end %d; received %llu, last seq %lld\n",
           rank, c->peer, c->state, c->sent_done, c->sent_posted, (int)c->send_end, c->recv_done,
           c->recv_posted, (int)c->recv_end, (unsigned long long)c->received,
           (long long)c->last_seq);
}

/* ---- forcing errors ------------------------------------------------------------------- */

typedef struct { /* rank 0's forced errors on its QP to one peer */
    int peer;
    long want, forced;
    int waiting;         /* forced; the recovery has not completed yet */
    uint64_t rec_before; /* recoveries before the last force */
    uint64_t since, gap; /* completions since the last recovery, before the next force */
    double forced_at;
} forcer_t;

/* One step: forces when the gap has passed, notices when the recovery completed. */
static void forcer_step(forcer_t *f, uint64_t completions)
{
    rcmsg_status_t s;
    int fatal;

    if (f->waiting) {
        if (rcmsg_rc_btl_recoveries(rc_btl, f->peer) > f->rec_before) {
            f->waiting = 0;
            f->since = 0;
            f->gap = 1 + rnd() % 40;
        } else if (now_s() - f->forced_at > 60) {
            printf("FAIL rank %d: forced error %ld to peer %d: no recovery after 60 s\n", rank,
                   f->forced, f->peer);
            failures++;
            f->want = f->forced; /* stop forcing */
            f->waiting = 0;
        }
        return;
    }
    f->since += completions;
    if (f->forced >= f->want || f->since < f->gap) {
        return;
    }
    f->rec_before = rcmsg_rc_btl_recoveries(rc_btl, f->peer);
    /* every 10th as the device's IBV_EVENT_QP_FATAL would (a severe error), the others as a
     * QP moved to ERR (transient) */
    fatal = !opt_qp_err && f->forced % 10 == 9;
    s = opt_qp_err ? rcmsg_rc_btl_force_qp_err(rc_btl, f->peer)
        : fatal    ? rcmsg_rc_btl_force_fatal(rc_btl, f->peer)
                   : rcmsg_rc_btl_force_error(rc_btl, f->peer);
    if (s == RCMSG_OK) {
        fatal_forced += (uint64_t)fatal;
        f->forced++;
        f->waiting = 1;
        f->forced_at = now_s();
    } else if (s != RCMSG_ERR_STATE) { /* STATE: a recovery under way, try again later */
        printf("FAIL rank %d: rcmsg_rc_btl_force_error(peer %d): %s\n", rank, f->peer,
               rcmsg_status_name(s));
        failures++;
        f->want = f->forced;
    }
}

/* rcmsg's events: the recoveries whose cause is the QP fatal event rcmsg_rc_btl_force_fatal
 * simulates */
static void on_event(const rcmsg_event_t *e, void *arg)
{
    (void)arg;
    if (e->kind == RCMSG_EVENT_RECOVERED && e->cause != NULL &&
        strstr(e->cause, "async event local work queue catastrophic error") != NULL) {
        fatal_events++;
    }
}

static int fatal_seen(void *arg)
{
    (void)arg;
    return fatal_events >= fatal_forced;
}

/* Progress (with nothing of ours pending) for up to secs seconds or until done() holds. */
static void progress_until(int (*done)(void *), void *arg, double secs)
{
    double end = now_s() + secs;
    int flag;

    while (!done(arg) && now_s() < end) {
        rcmsg_iprobe(RCMSG_ANY_SOURCE, TAG_IDLE, world, &flag, NULL);
    }
}

static int recoveries_reached(void *arg)
{
    const uint64_t *want = arg;

    for (int p = 0; p < size; p++) {
        if (p != rank && rcmsg_rc_btl_recoveries(rc_btl, p) < want[p]) {
            return 0;
        }
    }
    return 1;
}

/* Every rank learns how many errors rank 0 forced to each peer, waits (up to 30 s) until its
 * own counts reach them (both sides count a recovery of the pair), and prints its counts.
 * forced: rank 0's per-peer counts (zeros elsewhere); want_p (may be NULL) gets this rank's. */
static void report_recoveries(const uint64_t *forced, int collective, uint64_t *want_p)
{
    uint64_t *all = calloc((size_t)size, sizeof(*all)), *want = calloc((size_t)size, 8);
    char line[4096];
    size_t n;

    if (all == NULL || want == NULL) {
        printf("FAIL rank %d: out of memory\n", rank);
        exit(1);
    }
    if (collective) {
        rcmsg_status_t s =
            rcmsg_allreduce(forced, all, (size_t)size, RCMSG_UINT64, RCMSG_SUM, world);
        CHECK(s == RCMSG_OK, "allreduce of the forced counts: %s", rcmsg_status_name(s));
    }
    for (int p = 0; p < size; p++) { /* rank 0 forced all[p] on the pair (0, p) */
        want[p] = rank == 0 ? all[p] : p == 0 ? all[rank] : 0;
    }
    progress_until(recoveries_reached, want, 30);
    n = (size_t)snprintf(line, sizeof(line), "rank %d: recoveries:", rank);
    for (int p = 0; p < size && n < sizeof(line); p++) {
        if (p != rank) {
            n += (size_t)snprintf(line + n, sizeof(line) - n, "%s peer %d %llu (forced %llu)",
                                  n > 20 ? "," : "", p,
                                  (unsigned long long)rcmsg_rc_btl_recoveries(rc_btl, p),
                                  (unsigned long long)want[p]);
        }
    }
    printf("%s\n", line);
    if (want_p != NULL) {
        memcpy(want_p, want, (size_t)size * sizeof(*want));
    }
    free(all);
    free(want);
}

/* ---- stream and kill ------------------------------------------------------------------ */

static int until_reached(void)
{
    return opt_until == NULL || access(opt_until, F_OK) == 0;
}

/* The leader's condition to end its streams. */
static int stream_may_end(const chan_t *ch, const forcer_t *f, int victim)
{
    uint64_t got = 0;

    for (int i = 0; i < size - 1; i++) {
        got += ch[i].received;
        if (ch[i].peer == victim && !chan_finished(&ch[i])) {
            return 0; /* a survivor ends once the victim's requests are all resolved */
        }
    }
    return (f == NULL || f->forced >= f->want) && got >= (uint64_t)opt_min_msgs && until_reached();
}

static void kill_self(void)
{
    const char *dir = getenv("RC_RECOVERY_LOG_DIR");
    double t = now_s();

    printf("rank %d: killing itself with SIGKILL at %.3f\n", rank, t);
    if (dir != NULL) {
        char path[4096];
        FILE *fp;
        snprintf(path, sizeof(path), "%s/killed_at", dir);
        fp = fopen(path, "w");
        if (fp != NULL) {
            fprintf(fp, "%.3f\n", t);
            fclose(fp);
        }
    }
    fflush(stdout);
    raise(SIGKILL);
}

static void stream_deadline(chan_t *ch)
{
    printf("FAIL rank %d: the streams did not finish within %.0f s\n", rank, opt_deadline);
    for (int i = 0; i < size - 1; i++) {
        chan_where(&ch[i]);
        chan_report(&ch[i], 0);
    }
    rcmsg_rc_btl_dump(rc_btl, RCMSG_LOG_ERROR);
    fflush(stdout);
    fflush(stderr);
    _exit(1);
}

static int run_stream(int killing)
{
    chan_t *ch = xmalloc((size_t)(size - 1) * sizeof(*ch));
    forcer_t f = {1, opt_forces < 0 ? 0 : opt_forces, 0, 0, 0, 0, 1 + rnd() % 40, 0};
    int victim = killing ? size - 1 : -1, all_done = 0, running = 0;
    uint64_t *forced = calloc((size_t)size, sizeof(*forced)), got = 0;
    double deadline = now_s() + opt_deadline;

    for (int i = 0, p = 0; p < size; p++) {
        if (p != rank) {
            chan_init(&ch[i++], p);
        }
    }
    while (!all_done) {
        uint64_t done_with_1 = 0;

        all_done = 1;
        got = 0;
        for (int i = 0; i < size - 1; i++) {
            chan_post(&ch[i]);
            int n = chan_test(&ch[i]);
            if (ch[i].peer == 1) {
                done_with_1 = (uint64_t)n;
            }
            got += ch[i].received;
            if (ch[i].leader && ch[i].state == CH_RUN && ch[i].final_seq == UINT32_MAX &&
                stream_may_end(ch, rank == 0 ? &f : NULL, victim)) {
                chan_finish_sending(&ch[i]);
            }
            all_done &= chan_finished(&ch[i]);
        }
        if (rank == 0 && f.want > 0) {
            forcer_step(&f, done_with_1);
        }
        if (rank == 0 && !running && got >= 20) {
            running = 1;
            printf("rank 0: %s: running\n", killing ? "kill" : "stream");
        }
        if (rank == victim && got >= (uint64_t)opt_min_msgs / 2) {
            kill_self();
        }
        if (now_s() > deadline) {
            stream_deadline(ch);
        }
    }
    forced[1 % size] = rank == 0 ? (uint64_t)f.forced : 0;
    report_recoveries(forced, !killing, NULL);
    if (rank == 0 && !killing) { /* the last recovery's event comes at a later progress */
        progress_until(fatal_seen, NULL, 10);
        printf("rank 0: qp fatal: peer 1: %llu recoveries from a QP fatal event (forced %llu)\n",
               (unsigned long long)fatal_events, (unsigned long long)fatal_forced);
        CHECK(fatal_events == fatal_forced, "%llu recoveries from a QP fatal event, forced %llu",
              (unsigned long long)fatal_events, (unsigned long long)fatal_forced);
    }
    for (int i = 0; i < size - 1; i++) {
        chan_t *c = &ch[i];
        chan_report(c, c->peer == 1 && rank == 0 ? (uint64_t)f.forced : 0);
        if (c->peer == victim) {
            const char *path = getenv("RC_RECOVERY_LOG_DIR");
            char file[4096];
            double killed_at = 0;
            FILE *fp;
            snprintf(file, sizeof(file), "%s/killed_at", path != NULL ? path : ".");
            fp = fopen(file, "r");
            if (fp == NULL || fscanf(fp, "%lf", &killed_at) != 1) {
                printf("FAIL rank %d: cannot read the kill time from %s\n", rank, file);
                failures++;
            }
            if (fp != NULL) {
                fclose(fp);
            }
            printf("rank %d: peer %d failed: first error %s after %.2f s, all its requests done "
                   "after %.2f s, %llu failed\n",
                   rank, c->peer, rcmsg_status_name(c->first_error), c->error_at - killed_at,
                   c->resolved_at - killed_at, (unsigned long long)c->errors);
        } else if (chan_lost(c) || c->dup || c->ooo || c->corrupt || c->errors) {
            failures++;
        }
        chan_free(c);
    }
    free(ch);
    free(forced);
    return failures != 0;
}

/* ---- collectives ---------------------------------------------------------------------- */

/* One allreduce of count uint64 (element 0: rank 0's "more" flag); checks the result. */
static int coll_allreduce(long it, size_t count, int *more_p)
{
    uint64_t *in = xmalloc(count * 8), *out = xmalloc(count * 8);
    uint64_t ranks = (uint64_t)size * (uint64_t)(size + 1) / 2;
    rcmsg_status_t s;
    int bad = 0;

    for (size_t i = 1; i < count; i++) {
        in[i] = (uint64_t)(rank + 1) * (i + 1) + (uint64_t)it;
    }
    in[0] = rank == 0 ? (uint64_t)*more_p : 0;
    s = rcmsg_allreduce(in, out, count, RCMSG_UINT64, RCMSG_SUM, world);
    CHECK(s == RCMSG_OK, "allreduce %ld: %s", it, rcmsg_status_name(s));
    for (size_t i = 1; s == RCMSG_OK && i < count && !bad; i++) {
        bad = out[i] != ranks * (i + 1) + (uint64_t)size * (uint64_t)it;
        CHECK(!bad, "allreduce %ld (%zu elements): element %zu is %llu", it, count, i,
              (unsigned long long)out[i]);
    }
    *more_p = s == RCMSG_OK && out[0] == 1;
    free(in);
    free(out);
    return s == RCMSG_OK && !bad;
}

static int coll_bcast(long it, size_t len)
{
    int root = (int)(it % size);
    uint8_t *buf = xmalloc(len);
    uint64_t key = mix64(0xbca57ull + (uint64_t)it);
    rcmsg_status_t s;
    size_t at;

    if (rank == root) {
        fill(buf, len, key);
    } else {
        memset(buf, 0, len);
    }
    s = rcmsg_bcast(buf, len, RCMSG_UINT8, root, world);
    CHECK(s == RCMSG_OK, "bcast %ld: %s", it, rcmsg_status_name(s));
    at = s == RCMSG_OK ? differs(buf, len, key) : len;
    CHECK(at == len, "bcast %ld (%zu bytes from %d): byte %zu differs", it, len, root, at);
    free(buf);
    return s == RCMSG_OK && at == len;
}

static int coll_alltoall(long it, size_t count)
{
    uint32_t *in = xmalloc(count * 4 * (size_t)size), *out = xmalloc(count * 4 * (size_t)size);
    rcmsg_status_t s;
    int bad = 0;

    for (int d = 0; d < size; d++) {
        for (size_t i = 0; i < count; i++) {
            in[(size_t)d * count + i] = (uint32_t)(rank * 1000003 + d * 10007 + it * 31 + i);
        }
    }
    s = rcmsg_alltoall(in, out, count, RCMSG_UINT32, world);
    CHECK(s == RCMSG_OK, "alltoall %ld: %s", it, rcmsg_status_name(s));
    for (int src = 0; s == RCMSG_OK && src < size && !bad; src++) {
        for (size_t i = 0; i < count && !bad; i++) {
            uint32_t want = (uint32_t)(src * 1000003 + rank * 10007 + it * 31 + i);
            bad = out[(size_t)src * count + i] != want;
            CHECK(!bad, "alltoall %ld: element %zu from %d is %u, not %u", it, i, src,
                  out[(size_t)src * count + i], want);
        }
    }
    free(in);
    free(out);
    return s == RCMSG_OK && !bad;
}

static void coll_report(const char *mode, long iters, double longest)
{
    printf("rank %d: %s: %ld iterations checked, %d failures, longest iteration %.2f s\n", rank,
           mode, iters, failures, longest);
}

/* coll: rank 0 forces its QPs to the others while the loop runs; allreduce: until --until. */
static int run_coll(int forcing)
{
    long want = forcing ? (opt_forces < 0 ? 3 : opt_forces) : 0, it, total = 0;
    long next_force = 1 + (long)(rnd() % 4);
    uint64_t *forced = calloc((size_t)size, sizeof(*forced));
    double longest = 0;
    int more = 1, ok = 1;

    for (it = 0; more && ok; it++) {
        double t0 = now_s();

        if (rank == 0 && want > 0 && total < want * (size - 1) && it >= next_force) {
            int peer = 1 + (int)(total % (size - 1));
            rcmsg_status_t s = rcmsg_rc_btl_force_error(rc_btl, peer);
            if (s == RCMSG_OK) {
                forced[peer]++, total++;
                next_force = it + 1 + (long)(rnd() % 4);
            } else {
                CHECK(s == RCMSG_ERR_STATE, "force_error(peer %d): %s", peer, rcmsg_status_name(s));
            }
        }
        if (rank == 0) {
            more = forcing ? (it + 1 < opt_iters || total < want * (size - 1))
                           : !(until_reached() && it >= 20);
            if (!forcing && it == 20) {
                printf("rank 0: allreduce: running\n");
            }
        }
        ok = coll_allreduce(it, it % 2 ? 8192 : 16, &more);
        if (forcing && ok) {
            ok = coll_bcast(it, it % 2 ? 100 * 1024 : 1000) &&
                 coll_alltoall(it, it % 2 ? 8192 : 256);
        }
        if (now_s() - t0 > longest) {
            longest = now_s() - t0;
        }
    }
    report_recoveries(forced, ok, NULL);
    coll_report(forcing ? "coll" : "allreduce", it, longest);
    free(forced);
    return failures != 0;
}

/* ---- ping-pong ------------------------------------------------------------------------ */

static int run_pingpong(void)
{
    uint8_t *buf = xmalloc(MAX_LEN + 64);
    uint64_t forced[2] = {0, 0};
    double longest = 0;
    int final = 0;
    uint32_t n;

    for (n = 0; !final && failures == 0; n++) {
        double t0 = now_s();
        rcmsg_msg_status_t st;
        rcmsg_status_t s;
        hdr_t h;

        if (rank == 0) {
            final = until_reached() && n >= 20;
            s = rcmsg_send(buf, make_msg(buf, 1, n, final ? HDR_FINAL : 0), 1, TAG_PING, world);
            CHECK(s == RCMSG_OK, "send %u: %s", n, rcmsg_status_name(s));
            if (n == 20) {
                printf("rank 0: pingpong: running\n");
            }
        }
        s = rcmsg_recv(buf, MAX_LEN + 64, 1 - rank, TAG_PING, world, &st);
        CHECK(s == RCMSG_OK, "receive %u: %s", n, rcmsg_status_name(s));
        h = s == RCMSG_OK ? check_msg(buf, st.count, 1 - rank) : (hdr_t){UINT32_MAX, 0, 0, 0};
        CHECK(h.seq == n, "round trip %u: message %u received", n, h.seq);
        final |= h.flags & HDR_FINAL;
        if (rank == 1 && failures == 0) {
            s = rcmsg_send(buf, make_msg(buf, 0, n, final ? HDR_FINAL : 0), 0, TAG_PING, world);
            CHECK(s == RCMSG_OK, "send %u: %s", n, rcmsg_status_name(s));
        }
        if (now_s() - t0 > longest) {
            longest = now_s() - t0;
        }
    }
    report_recoveries(forced, failures == 0, NULL);
    coll_report("pingpong", (long)n, longest);
    free(buf);
    return failures != 0;
}

/* ---- main ----------------------------------------------------------------------------- */

static int parse_options(int argc, char **argv)
{
    for (int i = 2; i < argc; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        char *end = NULL;
        double d = v != NULL ? strtod(v, &end) : 0;

        if (v == NULL ||
            (strcmp(o, "--until") != 0 && strcmp(o, "--hook") != 0 && (*end != '\0' || d < 0))) {
            fprintf(stderr, "rc_recovery_test: %s needs a %svalue\n", o,
                    v == NULL ? "" : "non-negative numeric ");
            return -1;
        }
        if (strcmp(o, "--forces") == 0) {
            opt_forces = (long)d;
        } else if (strcmp(o, "--until") == 0) {
            opt_until = v;
        } else if (strcmp(o, "--min-msgs") == 0) {
            opt_min_msgs = (long)d;
        } else if (strcmp(o, "--iters") == 0) {
            opt_iters = (long)d;
        } else if (strcmp(o, "--seed") == 0) {
            seed = (uint64_t)d;
        } else if (strcmp(o, "--deadline") == 0) {
            opt_deadline = d;
        } else if (strcmp(o, "--max-len") == 0 && d >= 16384 && d <= (1 << 26)) {
            opt_max_len = (size_t)d;
        } else if (strcmp(o, "--hook") == 0 &&
                   (strcmp(v, "qp-err") == 0 || strcmp(v, "error") == 0)) {
            opt_qp_err = strcmp(v, "qp-err") == 0;
        } else {
            fprintf(stderr, "rc_recovery_test: unknown option %s\n", o);
            return -1;
        }
        i++;
    }
    return 0;
}

static int run(const char *mode)
{
    int need = strcmp(mode, "kill") == 0 ? 3 : 2;

    if (size < need || (strcmp(mode, "pingpong") == 0 && size != 2)) {
        printf("FAIL: %s needs %s%d ranks, not %d\n", mode,
               strcmp(mode, "pingpong") == 0 ? "" : "at least ", need, size);
        return 1;
    }
    if (strcmp(mode, "stream") == 0 || strcmp(mode, "kill") == 0) {
        return run_stream(need == 3);
    }
    if (strcmp(mode, "coll") == 0 || strcmp(mode, "allreduce") == 0) {
        return run_coll(strcmp(mode, "coll") == 0);
    }
    return run_pingpong();
}

int main(int argc, char **argv)
{
    static const char *modes[] = {"stream", "kill", "coll", "allreduce", "pingpong"};
    rcmsg_status_t s;
    int known = 0, st;

    setvbuf(stdout, NULL, _IOLBF, 0);
    for (size_t i = 0; argc > 1 && i < sizeof(modes) / sizeof(modes[0]); i++) {
        known |= strcmp(argv[1], modes[i]) == 0;
    }
    if (!known || parse_options(argc, argv) != 0) {
        fprintf(stderr, "usage: rc_recovery_test stream|kill|coll|allreduce|pingpong "
                        "[--forces N] [--until FILE] [--min-msgs N] [--iters N] [--seed N] "
                        "[--deadline S]\n");
        return 2;
    }
    test_log_to_file("RC_RECOVERY_LOG_DIR");
    rcmsg_event_handler_set(on_event, NULL);
    s = rcmsg_init();
    if (s != RCMSG_OK) {
        printf("rcmsg_init: %s\n", rcmsg_strerror(s));
        return s == RCMSG_ERR_NO_DEVICE ? 77 : 1;
    }
    rank = rcmsg_rank(), size = rcmsg_size(), world = rcmsg_comm_world();
    rc_btl = rcmsg_wireup_btl(rcmsg_core_wireup(), "rc");
    if (rc_btl == NULL) {
        printf("SKIP: no rc transport (RCMSG_TRANSPORTS=rc,self in the Soft-RoCE guest)\n");
        rcmsg_finalize();
        return 77;
    }
    seed = mix64(seed * 1000003 + (uint64_t)rank);
    t_start = now_s();
    st = run(argv[1]);
    s = rcmsg_finalize();
    if (s != RCMSG_OK) {
        printf("FAIL rank %d: rcmsg_finalize: %s\n", rank, rcmsg_status_name(s));
        st = 1;
    } else {
        printf("rank %d: finalized after %.1f s\n", rank, now_s() - t_start);
    }
    return st;
}
