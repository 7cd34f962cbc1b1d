/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Monitoring and diagnostics (issue 16): counters, the stall dump, SIGUSR1, the QP state sync
 * and the event callbacks, through the public API plus the rc test hooks
 * (rcmsg_rc_btl_force_qp_err, rcmsg_rc_btl_force_error, rcmsg_rc_btl_recoveries). Every
 * message's bytes and length are checked. An event handler is registered before rcmsg_init
 * in every mode; it prints each event ("rank R: event KIND peer P transport T status S cause
 * C") and counts it per kind and peer.
 *
 *   monitor_test init                 rcmsg_init and rcmsg_finalize only (bad settings)
 *   monitor_test traffic NxLEN...     rank 0 sends N messages of LEN bytes to rank 1 for each
 *                                     group, in order (blocking sends, tag 100 + group);
 *                                     rank 1 receives and checks them. Nothing else goes
 *                                     between the ranks: no collective, no reply (rcmsg_init
 *                                     and the closing barrier of rcmsg_finalize use the
 *                                     launcher, not the pml), so the counters are exact
 *   monitor_test stall                rank 1 posts a receive (any source, tag 77, 64 B) and
 *                                     waits for it; rank 0 sends it after 4 s without any
 *                                     rcmsg call meanwhile
 *   monitor_test stall_nbc            rank 1 waits in an ibarrier that rank 0 starts after 4 s
 *   monitor_test pingpong SECS        ranks 0 and 1: checked round trips (64 B and 100 KiB
 *                                     alternately) for SECS seconds
 *   monitor_test events sm|rc         3+ ranks: each rank got CONNECTED once for every other
 *                                     rank (over that transport) by the first collective; then
 *                                     the last rank kills itself (SIGKILL) and the others must
 *                                     get PEER_FAILED for it exactly once, with an error
 *                                     status, and no RECOVERED (the killed rank prints its
 *                                     CONNECTED check first: "rank R: events: CONNECTED once
 *                                     for each other rank over T, F failures")
 *   monitor_test recover N            2 ranks, rc: rank 0 forces N errors on its QP to rank 1
 *                                     (rcmsg_rc_btl_force_error): N RECOVERED events on each
 *                                     side, CONNECTED still once, traffic checked after each
 *   monitor_test qpsync N MS          2 ranks, rc: rank 0 moves its QP to rank 1 into ERR
 *                                     behind the mirror's back (rcmsg_rc_btl_force_qp_err) N
 *                                     times while both ranks idle (no request pending, so only
 *                                     the sync can notice); each time until rank 0 found
 *                                     the ERR (rcmsg_rc_btl_breaks) must be <= 2 x MS
 *                                     (RCMSG_QP_SYNC_INTERVAL) + QPSYNC_SLACK_MS, and the
 *                                     recovery must complete (20 s); traffic checked after each
 *   monitor_test stuck S              2 ranks, rc: rank 0's QP to rank 1 swallows its requests
 *                                     (rcmsg_rc_btl_force_stuck: SQD and a signaled flush); a
 *                                     round trip waits until the stuck-queue watch recovers the
 *                                     connection: S s (its bound) -1.5 / +4 s; one recovery on
 *                                     each side; checked traffic after
 *   monitor_test stucksend S          the same with no flush: the oldest request is the round
 *                                     trip's SEND (it may wait on receive buffers): the watch
 *                                     probes rank 1 after 1 s and recovers at S + 1.5 s
 *   monitor_test idle                 2 ranks: two checked round trips, then both idle (rank
 *                                     1 in a blocking receive from rank 0, tag 77, 64 B; rank
 *                                     0 testing a receive) until $MONITOR_DIR/go exists; then
 *                                     one more round trip
 *
 *   monitor_test recycle              3 ranks, rc, RCMSG_CONNECT=lazy RCMSG_QP_MAX_ACTIVE=1:
 *                                     rank 0 talks to 1, then to 2; its connection to 1 is
 *                                     recycled: DISCONNECTED once on ranks 0 and 1
 *
 * Modes can follow each other in one run: "monitor_test qpsync 3 500 + stuck 5.8 + recover 3 +
 * events rc". qpsync, stuck and recover run between ranks 0 and 1; other ranks wait for the next
 * mode.
 * After events or recover, no CONNECTED, RECOVERED or PEER_FAILED event may come later (checked
 * after rcmsg_finalize: a FAIL line, and no "rank R: finalized").
 *
 * With MONITOR_DIR set, each process writes its standard error (rcmsg's log, the stats and
 * the dumps) to MONITOR_DIR/PID.log and, after rcmsg_init, its pid to MONITOR_DIR/pid.RANK.
 * Each rank ends with "rank R: MODE: ... F failures" and "rank R: finalized" (after which
 * SIGUSR1's disposition must be the default again); a failed check prints "FAIL rank R line
 * L: ..." and the program exits 1.
 */
#include "config.h"

#include "btl_rc/rc_btl.h"
#include "core/core.h"
#include "../test_check.h"
#include "../test_log.h"

#include <pthread.h>
#include <rcmsg.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define TAG_STALL       77
#define TAG_PING        5
#define TAG_IDLE        6 /* never sent: rcmsg_iprobe on it only drives progress */
#define TAG_WAKE        7
#define TAG_KILL_GO     8 /* events: every survivor is out of the barrier */
#define PING_BIG        (100 * 1024)
#define MAX_PEERS       64
#define QPSYNC_SLACK_MS 500 /* a sync tick late on a loaded emulated guest */

enum { EV_KINDS = 4 };
static const char *const ev_names[EV_KINDS] = {
    [RCMSG_EVENT_CONNECTED] = "CONNECTED",
    [RCMSG_EVENT_DISCONNECTED] = "DISCONNECTED",
    [RCMSG_EVENT_RECOVERED] = "RECOVERED",
    [RCMSG_EVENT_PEER_FAILED] = "PEER_FAILED",
};

static int rank = -1, size, failures;
static rcmsg_comm_t world;
static pthread_t main_thread;
static int ev_count[EV_KINDS][MAX_PEERS];
/* the counts a mode checked last (events, recover): no event may come after its checks */
static int ev_checked[EV_KINDS][MAX_PEERS], ev_were_checked;
static rcmsg_status_t ev_status[EV_KINDS][MAX_PEERS];
static char ev_transport[EV_KINDS][MAX_PEERS][16];
static char ev_cause[EV_KINDS][MAX_PEERS][200];

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void on_event(const rcmsg_event_t *ev, void *arg)
{
    CHECK(arg == &ev_count, "the handler got arg %p, not the one registered", arg);
    CHECK(pthread_equal(pthread_self(), main_thread), "the handler ran on another thread");
    if ((int)ev->kind < 0 || (int)ev->kind >= EV_KINDS || ev->peer < 0 || ev->peer >= MAX_PEERS) {
        CHECK(0, "an event of kind %d for peer %d", (int)ev->kind, ev->peer);
        return;
    }
    /* rank: the handler may run at the end of rcmsg_init, before main sets its rank */
    printf("rank %d: event %s peer %d transport %s status %s cause %s\n", rcmsg_rank(),
           ev_names[ev->kind], ev->peer, ev->transport != NULL ? ev->transport : "(null)",
           rcmsg_status_name(ev->status), ev->cause != NULL ? ev->cause : "(null)");
    ev_count[ev->kind][ev->peer]++;
    ev_status[ev->kind][ev->peer] = ev->status;
    snprintf(ev_transport[ev->kind][ev->peer], sizeof(ev_transport[0][0]), "%s",
             ev->transport != NULL ? ev->transport : "(null)");
    snprintf(ev_cause[ev->kind][ev->peer], sizeof(ev_cause[0][0]), "%s",
             ev->cause != NULL ? ev->cause : "");
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

static uint8_t pattern(uint32_t key, size_t i)
{
    return (uint8_t)(key * 131u + i * 13u + (i >> 8) + 1u);
}

static void fill(uint8_t *buf, size_t len, uint32_t key)
{
    for (size_t i = 0; i < len; i++) {
        buf[i] = pattern(key, i);
    }
}

/* Checks a received message against the pattern; counts a failure with what differs. */
static void check_msg(const char *what, const uint8_t *buf, size_t len, uint32_t key,
                      const rcmsg_msg_status_t *st, int src)
{
    CHECK(st->error == RCMSG_OK && st->count == len && st->source == src,
          "%s: status %s, %zu bytes from %d (expected %zu from %d)", what,
          rcmsg_status_name(st->error), st->count, st->source, len, src);
    for (size_t i = 0; i < len; i++) {
        if (buf[i] != pattern(key, i)) {
            CHECK(0, "%s: byte %zu of %zu differs", what, i, len);
            return;
        }
    }
}

/* Drives progress for secs seconds (events are delivered from progress). */
static void progress_for(double secs)
{
    double end = now_s() + secs;
    int flag;

    while (now_s() < end) {
        rcmsg_iprobe(RCMSG_ANY_SOURCE, TAG_IDLE, world, &flag, NULL);
        usleep(1000);
    }
}

static void write_pid_file(void)
{
    const char *dir = getenv("MONITOR_DIR");
    char path[4096], tmp[4200];
    FILE *f;

    if (dir == NULL) {
        return;
    }
    snprintf(path, sizeof(path), "%s/pid.%d", dir, rank);
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    f = fopen(tmp, "w");
    if (f == NULL || fprintf(f, "%d\n", (int)getpid()) < 0 || fclose(f) != 0 ||
        rename(tmp, path) != 0) {
        printf("FAIL rank %d: cannot write %s\n", rank, path);
        exit(1);
    }
}

/* ---- traffic --------------------------------------------------------------------------- */

static int traffic(int ngroups, char **groups)
{
    long total = 0;
    uint8_t *buf;

    for (int g = 0; g < ngroups; g++) {
        long n;
        size_t len;
        if (sscanf(groups[g], "%ldx%zu", &n, &len) != 2 || n < 0) {
            printf("FAIL rank %d: bad group '%s' (NxLEN)\n", rank, groups[g]);
            return 1;
        }
        buf = xmalloc(len + 1);
        for (long k = 0; k < n && rank <= 1; k++) {
            uint32_t key = (uint32_t)(g * 100003 + k);
            rcmsg_msg_status_t st;
            if (rank == 0) {
                fill(buf, len, key);
                CHECK(rcmsg_send(buf, len, 1, 100 + g, world) == RCMSG_OK, "send %ld of group %d",
                      k, g);
            } else {
                memset(buf, 0, len + 1);
                CHECK(rcmsg_recv(buf, len + 1, 0, 100 + g, world, &st) == RCMSG_OK,
                      "receive %ld of group %d", k, g);
                check_msg(groups[g], buf, len, key, &st, 0);
            }
            total++;
        }
        free(buf);
    }
    printf("rank %d: traffic: %ld messages %s, %d failures\n", rank, total,
           rank == 0   ? "sent"
           : rank == 1 ? "received and checked"
                       : "(idle)",
           failures);
    return failures != 0;
}

/* ---- stall ----------------------------------------------------------------------------- */

static int stall(void)
{
    uint8_t buf[64];
    rcmsg_request_t r;
    rcmsg_msg_status_t st;
    double t0 = now_s(), waited;

    if (rank == 0) {
        sleep(4);
        fill(buf, sizeof(buf), TAG_STALL);
        CHECK(rcmsg_send(buf, sizeof(buf), 1, TAG_STALL, world) == RCMSG_OK, "stall: send");
    } else if (rank == 1) {
        CHECK(rcmsg_irecv(buf, sizeof(buf), RCMSG_ANY_SOURCE, TAG_STALL, world, &r) == RCMSG_OK,
              "stall: irecv");
        CHECK(rcmsg_wait(&r, &st) == RCMSG_OK, "stall: wait");
        waited = now_s() - t0;
        check_msg("stall", buf, sizeof(buf), TAG_STALL, &st, 0);
        printf("rank 1: stall: the receive completed after %.1f s\n", waited);
        CHECK(waited >= 3.0, "stall: the receive completed after %.1f s, before rank 0 sent",
              waited);
    }
    printf("rank %d: stall: %d failures\n", rank, failures);
    return failures != 0;
}

/* A nonblocking collective stalls: rank 1's ibarrier waits for rank 0, which starts its own
 * after 4 s without any rcmsg call meanwhile. */
static int stall_nbc(void)
{
    rcmsg_request_t r;

    if (rank == 0) {
        sleep(4);
    }
    CHECK(rcmsg_ibarrier(world, &r) == RCMSG_OK, "stall_nbc: ibarrier");
    CHECK(rcmsg_wait(&r, NULL) == RCMSG_OK, "stall_nbc: wait");
    printf("rank %d: stall_nbc: %d failures\n", rank, failures);
    return failures != 0;
}

/* ---- pingpong -------------------------------------------------------------------------- */

/* One checked round trip of len bytes started by rank 0; stop travels in the first byte. */
static int round_trip(uint8_t *buf, size_t len, uint32_t seq, int stop)
{
    rcmsg_msg_status_t st;
    char what[64];
    size_t cap = PING_BIG + 1;

    snprintf(what, sizeof(what), "round trip %u", seq);
    if (rank == 0) {
        fill(buf, len, seq);
        buf[0] = (uint8_t)stop;
        CHECK(rcmsg_send(buf, len, 1, TAG_PING, world) == RCMSG_OK, "%s: send", what);
        CHECK(rcmsg_recv(buf, cap, 1, TAG_PING, world, &st) == RCMSG_OK, "%s: receive", what);
        check_msg(what, buf, len, seq + 1, &st, 1);
        return stop;
    }
    CHECK(rcmsg_recv(buf, cap, 0, TAG_PING, world, &st) == RCMSG_OK, "%s: receive", what);
    stop = buf[0];
    buf[0] = pattern(seq, 0);
    check_msg(what, buf, st.count, seq, &st, 0);
    fill(buf, st.count, seq + 1);
    CHECK(rcmsg_send(buf, st.count, 0, TAG_PING, world) == RCMSG_OK, "%s: reply", what);
    return stop;
}

static int pingpong(double secs)
{
    uint8_t *buf = xmalloc(PING_BIG + 1);
    double t0 = now_s();
    uint32_t seq = 0;
    int stop = 0;

    while (rank <= 1 && !stop) {
        size_t len = seq % 2 ? PING_BIG : 64;
        stop = round_trip(buf, len, seq, rank == 0 && now_s() - t0 >= secs);
        seq++;
    }
    free(buf);
    printf("rank %d: pingpong: %u round trips checked, %d failures\n", rank, seq, failures);
    return failures != 0;
}

/* ---- events ---------------------------------------------------------------------------- */

/* The counts just checked: main checks after rcmsg_finalize that no event came since. */
static void ev_checked_now(void)
{
    memcpy(ev_checked, ev_count, sizeof(ev_checked));
    ev_were_checked = 1;
}

/* After rcmsg_finalize: no CONNECTED, RECOVERED or PEER_FAILED event after the last checks. */
static int ev_none_since_checked(void)
{
    static const rcmsg_event_kind_t kinds[] = {RCMSG_EVENT_CONNECTED, RCMSG_EVENT_RECOVERED,
                                               RCMSG_EVENT_PEER_FAILED};
    int bad = 0;

    for (int k = 0; ev_were_checked && k < 3; k++) {
        for (int p = 0; p < MAX_PEERS; p++) {
            if (ev_count[kinds[k]][p] != ev_checked[kinds[k]][p]) {
                printf("FAIL rank %d: %d %s event(s) for peer %d after the checks\n", rank,
                       ev_count[kinds[k]][p] - ev_checked[kinds[k]][p], ev_names[kinds[k]], p);
                bad = 1;
            }
        }
    }
    return bad;
}

/* Every other rank got CONNECTED exactly once (by its transport), this rank none. */
static void check_connected(const char *transport)
{
    for (int p = 0; p < size; p++) {
        int want = p != rank;
        CHECK(ev_count[RCMSG_EVENT_CONNECTED][p] == want,
              "%d CONNECTED event(s) for peer %d, not %d", ev_count[RCMSG_EVENT_CONNECTED][p], p,
              want);
        CHECK(!want || strcmp(ev_transport[RCMSG_EVENT_CONNECTED][p], transport) == 0,
              "CONNECTED for peer %d names transport '%s', not '%s'", p,
              ev_transport[RCMSG_EVENT_CONNECTED][p], transport);
    }
}

static int events(const char *transport)
{
    int victim = size - 1, v, recovered[MAX_PEERS];
    rcmsg_status_t s;
    double t0;

    if (size < 3 || size > MAX_PEERS) {
        printf("SKIP: events needs 3 to %d ranks\n", MAX_PEERS);
        exit(77);
    }
    CHECK(rcmsg_barrier(world) == RCMSG_OK, "barrier");
    check_connected(transport);
    memcpy(recovered, ev_count[RCMSG_EVENT_RECOVERED], sizeof(recovered));
    /* the victim dies once every other rank is out of the barrier (a loss fails the world's
     * collectives, a barrier still under way in another rank too) */
    if (rank != victim) {
        v = rank;
        CHECK(rcmsg_send(&v, sizeof(v), victim, TAG_KILL_GO, world) == RCMSG_OK, "send to victim");
    } else {
        for (int i = 0; i < size - 1; i++) {
            CHECK(rcmsg_recv(&v, sizeof(v), RCMSG_ANY_SOURCE, TAG_KILL_GO, world, NULL) == RCMSG_OK,
                  "receive before the kill");
        }
    }
    if (rank == victim) {
        printf("rank %d: events: CONNECTED once for each other rank over %s, %d failures\n", rank,
               transport, failures);
        printf("rank %d: killing itself with SIGKILL\n", rank);
        fflush(stdout);
        raise(SIGKILL);
    }
    t0 = now_s();
    s = rcmsg_recv(&v, sizeof(v), victim, 1, world, NULL);
    printf("rank %d: receive from the killed rank %d returned %s after %.1f s\n", rank, victim,
           rcmsg_status_name(s), now_s() - t0);
    CHECK(s == RCMSG_ERR_CONNECTION, "the receive from the killed rank returned %s",
          rcmsg_status_name(s));
    progress_for(0.5); /* a second event would come now */
    for (int p = 0; p < size; p++) {
        int want = p == victim;
        CHECK(ev_count[RCMSG_EVENT_PEER_FAILED][p] == want,
              "%d PEER_FAILED event(s) for peer %d, not %d", ev_count[RCMSG_EVENT_PEER_FAILED][p],
              p, want);
    }
    CHECK(ev_count[RCMSG_EVENT_RECOVERED][victim] == 0, "%d RECOVERED event(s) for the killed rank",
          ev_count[RCMSG_EVENT_RECOVERED][victim]);
    for (int p = 0; p < size; p++) {
        CHECK(ev_count[RCMSG_EVENT_RECOVERED][p] == recovered[p],
              "%d RECOVERED event(s) for peer %d while a rank was killed",
              ev_count[RCMSG_EVENT_RECOVERED][p] - recovered[p], p);
    }
    s = ev_status[RCMSG_EVENT_PEER_FAILED][victim];
    CHECK(s < 0, "PEER_FAILED for the killed rank with status %s, not an error",
          rcmsg_status_name(s));
    /* the cause in words: the transport's reason ("sm: local rank 2 (pid N) is gone: ...",
     * "rc: transport retry counter exceeded") or the launcher's report, not the status text */
    CHECK(strncmp(ev_cause[RCMSG_EVENT_PEER_FAILED][victim], "sm: ", 4) == 0 ||
              strncmp(ev_cause[RCMSG_EVENT_PEER_FAILED][victim], "rc: ", 4) == 0 ||
              strstr(ev_cause[RCMSG_EVENT_PEER_FAILED][victim], "launcher") != NULL,
          "PEER_FAILED's cause '%s' names neither the transport's reason nor the launcher",
          ev_cause[RCMSG_EVENT_PEER_FAILED][victim]);
    CHECK(strcmp(ev_transport[RCMSG_EVENT_PEER_FAILED][victim], transport) == 0,
          "PEER_FAILED names transport '%s', not '%s'",
          ev_transport[RCMSG_EVENT_PEER_FAILED][victim], transport);
    check_connected(transport);
    ev_checked_now();
    printf("rank %d: events: PEER_FAILED %d for rank %d (%s), %d failures\n", rank,
           ev_count[RCMSG_EVENT_PEER_FAILED][victim], victim, rcmsg_status_name(s), failures);
    return failures != 0;
}

/* ---- rc: forced recoveries, the QP sync, idle ------------------------------------------ */

static rcmsg_btl_t *rc_btl(void)
{
    rcmsg_btl_t *btl = rcmsg_wireup_btl(rcmsg_core_wireup(), "rc");

    if (btl == NULL) {
        printf("SKIP: needs rc (RCMSG_TRANSPORTS=rc,self in the Soft-RoCE guest)\n");
        rcmsg_finalize();
        exit(77);
    }
    return btl;
}

/* Progress until count(btl, the other rank) reaches want; seconds taken, or -1 after limit s. */
static double await_count(uint64_t (*count)(rcmsg_btl_t *, int), rcmsg_btl_t *btl, uint64_t want,
                          double limit)
{
    double t0 = now_s();
    int flag;

    while (count(btl, rank ^ 1) < want) {
        if (now_s() - t0 > limit) {
            return -1;
        }
        rcmsg_iprobe(RCMSG_ANY_SOURCE, TAG_IDLE, world, &flag, NULL);
    }
    return now_s() - t0;
}

/* Recoveries of the connection to the other rank completed (want of them), or found broken. */
static double await_recoveries(rcmsg_btl_t *btl, uint64_t want, double limit)
{
    return await_count(rcmsg_rc_btl_recoveries, btl, want, limit);
}

static double await_break(rcmsg_btl_t *btl, uint64_t want, double limit)
{
    return await_count(rcmsg_rc_btl_breaks, btl, want, limit);
}

/* Rank 0 forces (qp_err: behind the mirror's back) until the hook takes it (not while a
 * connect or a recovery is under way). */
static rcmsg_status_t force(rcmsg_btl_t *btl, int qp_err)
{
    double t0 = now_s();
    rcmsg_status_t s;
    int flag;

    for (;;) {
        s = qp_err ? rcmsg_rc_btl_force_qp_err(btl, 1) : rcmsg_rc_btl_force_error(btl, 1);
        if (s != RCMSG_ERR_STATE || now_s() - t0 > 10) {
            return s;
        }
        rcmsg_iprobe(RCMSG_ANY_SOURCE, TAG_IDLE, world, &flag, NULL);
    }
}

static int recover(long n)
{
    rcmsg_btl_t *btl = rc_btl();
    uint8_t *buf;
    int peer = rank ^ 1, ev_before;
    uint64_t base, total;

    /* counted before the barrier: rank 0 forces its first error as soon as it leaves the
     * barrier, and rank 1 (still inside it, or its async thread) may recover before it leaves;
     * the earlier modes' recoveries are all counted by then (qpsync awaits each one) */
    base = rank > 1 ? 0 : rcmsg_rc_btl_recoveries(btl, peer);
    ev_before = rank > 1 ? 0 : ev_count[RCMSG_EVENT_RECOVERED][peer];
    CHECK(rcmsg_barrier(world) == RCMSG_OK, "barrier");
    check_connected("rc");
    if (rank > 1) {
        return 0; /* between ranks 0 and 1 only */
    }
    buf = xmalloc(PING_BIG + 1);
    for (long i = 0; i < n; i++) {
        if (rank == 0) {
            rcmsg_status_t s = force(btl, 0);
            CHECK(s == RCMSG_OK, "rcmsg_rc_btl_force_error: %s", rcmsg_status_name(s));
            CHECK(await_recoveries(btl, base + (uint64_t)i + 1, 20) >= 0,
                  "recovery %ld not done in 20 s", i + 1);
        }
        round_trip(buf, i % 2 ? PING_BIG : 64, (uint32_t)i, 0);
    }
    CHECK(await_recoveries(btl, base + (uint64_t)n, 20) >= 0, "not %ld recoveries counted in 20 s",
          n);
    progress_for(0.3);
    total = rcmsg_rc_btl_recoveries(btl, peer);
    CHECK(ev_count[RCMSG_EVENT_RECOVERED][peer] - ev_before == n,
          "%d RECOVERED event(s) for peer %d, not %ld",
          ev_count[RCMSG_EVENT_RECOVERED][peer] - ev_before, peer, n);
    CHECK((uint64_t)ev_count[RCMSG_EVENT_RECOVERED][peer] == total,
          "%d RECOVERED events in all for %lu recoveries", ev_count[RCMSG_EVENT_RECOVERED][peer],
          (unsigned long)total);
    CHECK(n == 0 || strcmp(ev_transport[RCMSG_EVENT_RECOVERED][peer], "rc") == 0,
          "RECOVERED names transport '%s'", ev_transport[RCMSG_EVENT_RECOVERED][peer]);
    CHECK(ev_count[RCMSG_EVENT_PEER_FAILED][peer] == 0, "PEER_FAILED for peer %d", peer);
    CHECK(ev_count[RCMSG_EVENT_CONNECTED][peer] == 1,
          "%d CONNECTED events for peer %d: a recovery is no new connection",
          ev_count[RCMSG_EVENT_CONNECTED][peer], peer);
    ev_checked_now();
    free(buf);
    printf("rank %d: recover: %ld forced, %lu recoveries in all, %d RECOVERED events in all, %d "
           "CONNECTED, %d failures\n",
           rank, n, (unsigned long)total, ev_count[RCMSG_EVENT_RECOVERED][peer],
           ev_count[RCMSG_EVENT_CONNECTED][peer], failures);
    return failures != 0;
}

static int qpsync(long n, long period_ms)
{
    rcmsg_btl_t *btl = rc_btl();
    uint8_t *buf;
    double bound = (2.0 * (double)period_ms + QPSYNC_SLACK_MS) / 1000, worst = 0;
    uint64_t base, breaks0;

    CHECK(rcmsg_barrier(world) == RCMSG_OK, "barrier");
    if (rank > 1) {
        return 0; /* between ranks 0 and 1 only */
    }
    buf = xmalloc(PING_BIG + 1);
    base = rcmsg_rc_btl_recoveries(btl, rank ^ 1); /* those of earlier modes */
    breaks0 = rcmsg_rc_btl_breaks(btl, rank ^ 1);
    for (long i = 0; i < n; i++) {
        double t;
        round_trip(buf, i % 2 ? PING_BIG : 64, (uint32_t)(2 * i), 0);
        /* at a random phase of the sync period, once the last round trip's acks are in (a
         * send still outstanding would be flushed, and its completion notice the ERR) */
        usleep((useconds_t)(50 + rand() % (int)(period_ms + 1)) * 1000u);
        if (rank == 0) {
            rcmsg_status_t s = force(btl, 1);
            CHECK(s == RCMSG_OK, "rcmsg_rc_btl_force_qp_err: %s", rcmsg_status_name(s));
        }
        /* no request pending on either side: only the sync can notice the ERR */
        if (rank == 0) {
            double found = await_break(btl, breaks0 + (uint64_t)i + 1, 10);
            t = await_recoveries(btl, base + (uint64_t)i + 1, 20);
            printf("rank 0: qpsync: qp forced into ERR (%ld of %ld): found after %.3f s, "
                   "recovered after %.3f s more\n",
                   i + 1, n, found, t);
            CHECK(found >= 0 && found <= bound,
                  "qpsync: found after %.3f s (-1: not in 10 s), beyond 2 x %ld ms + %d ms", found,
                  period_ms, QPSYNC_SLACK_MS);
            CHECK(t >= 0, "qpsync: recovery %ld not done in 20 s", i + 1);
            worst = found > worst ? found : worst;
        } else {
            t = await_recoveries(btl, base + (uint64_t)i + 1, 30);
            CHECK(t >= 0, "qpsync: recovery %ld not counted in 30 s", i + 1);
        }
        round_trip(buf, i % 2 ? 64 : PING_BIG, (uint32_t)(2 * i + 1), 0);
    }
    free(buf);
    printf(
        "rank %d: qpsync: %ld forced, %lu recoveries, slowest %.3f s (bound %.3f s), %d failures\n",
        rank, n, (unsigned long)(rcmsg_rc_btl_recoveries(btl, rank ^ 1) - base), worst, bound,
        failures);
    return failures != 0;
}

/* Rank 0's QP to rank 1 swallows its requests (SQD, rcmsg_rc_btl_force_stuck): the stuck-queue
 * watch recovers it after `bound` s (4 x the device's retries + the slack, rc_sync.h), and the
 * round trip that waited on it completes, intact, within a few seconds of that. With `send`
 * the oldest request is the round trip's SEND, not a flush marker: one that may wait on rank
 * 1's receive buffers, so the watch probes rank 1 after 1 s (rc_cm.h, "Probe") and recovers
 * at the bound, its answer 2 s old by then; the bound counts from the liveness probe's flush,
 * which makes a completion due (+1.5 s). */
static int stuck(double bound, bool send)
{
    const char *mode = send ? "stucksend" : "stuck";
    rcmsg_btl_t *btl = rc_btl();
    uint8_t *buf;
    uint64_t base = rank > 1 ? 0 : rcmsg_rc_btl_recoveries(btl, rank ^ 1);
    double t0, t;
    int flag;

    CHECK(rcmsg_barrier(world) == RCMSG_OK, "barrier");
    if (rank > 1) {
        return 0; /* between ranks 0 and 1 only */
    }
    buf = xmalloc(PING_BIG + 1);
    round_trip(buf, 64, 900, 0); /* both out of the barrier, the connection up */
    t0 = now_s();
    if (rank == 0) {
        rcmsg_status_t s;
        while ((s = rcmsg_rc_btl_force_stuck(btl, 1, !send)) == RCMSG_ERR_STATE &&
               now_s() - t0 < 10) {
            rcmsg_iprobe(RCMSG_ANY_SOURCE, TAG_IDLE, world, &flag, NULL);
        }
        CHECK(s == RCMSG_OK, "rcmsg_rc_btl_force_stuck: %s", rcmsg_status_name(s));
    }
    round_trip(buf, 64, 902, 0);
    t = now_s() - t0;
    if (send) {
        /* the SEND alone is unsignaled: a completion is due once the waiting rank's liveness
         * probe posted a signaled flush behind it (RCMSG_LIVENESS_INTERVAL, 1 s) */
        bound += 1.5;
    }
    CHECK(await_recoveries(btl, base + 1, 20) >= 0, "%s: no recovery counted in 20 s", mode);
    CHECK(rank != 0 || (t >= bound - 1.5 && t <= bound + 4),
          "%s: the round trip took %.3f s, not the watch's %.1f s (-1.5 s, +4 s)", mode, t, bound);
    round_trip(buf, PING_BIG, 904, 0);
    free(buf);
    printf("rank %d: %s: round trip after %.3f s (watch bound %.1f s), %lu recovery(ies), %d "
           "failures\n",
           rank, mode, t, bound, (unsigned long)(rcmsg_rc_btl_recoveries(btl, rank ^ 1) - base),
           failures);
    return failures != 0;
}

static int idle(void)
{
    const char *dir = getenv("MONITOR_DIR");
    uint8_t *buf = xmalloc(PING_BIG + 1);
    char go[4096];
    rcmsg_request_t r;
    rcmsg_msg_status_t st;
    int v = 0, w = 0, flag = 0;

    if (dir == NULL || size != 2) {
        printf("SKIP: idle needs MONITOR_DIR and 2 ranks\n");
        exit(77);
    }
    snprintf(go, sizeof(go), "%s/go", dir);
    round_trip(buf, PING_BIG, 0, 0);
    round_trip(buf, 64, 1, 0);
    printf("rank %d: idle: running\n", rank);
    if (rank == 1) {
        CHECK(rcmsg_recv(buf, 64, 0, TAG_STALL, world, &st) == RCMSG_OK, "idle: receive");
        check_msg("idle", buf, 64, TAG_STALL, &st, 0);
        v = 42;
        CHECK(rcmsg_send(&v, sizeof(v), 0, TAG_WAKE, world) == RCMSG_OK, "idle: send");
    } else {
        /* no request pending while it waits for the script (an iprobe progresses): rank 0
         * never stalls, so its only dump is SIGUSR1's */
        while (access(go, F_OK) != 0) {
            CHECK(rcmsg_iprobe(1, TAG_WAKE, world, &flag, NULL) == RCMSG_OK && !flag,
                  "idle: rank 1 sent before it was woken");
            usleep(10000);
        }
        CHECK(rcmsg_irecv(&w, sizeof(w), 1, TAG_WAKE, world, &r) == RCMSG_OK, "idle: irecv");
        fill(buf, 64, TAG_STALL);
        CHECK(rcmsg_send(buf, 64, 1, TAG_STALL, world) == RCMSG_OK, "idle: send");
        CHECK(rcmsg_wait(&r, NULL) == RCMSG_OK && w == 42, "idle: the receive (%d)", w);
    }
    round_trip(buf, PING_BIG, 2, 0);
    free(buf);
    printf("rank %d: idle: %d failures\n", rank, failures);
    return failures != 0;
}

/* rc with RCMSG_CONNECT=lazy and RCMSG_QP_MAX_ACTIVE=1, 3 ranks: rank 0 talks to rank 1, then
 * to rank 2, so its idle connection to rank 1 is recycled first. Ranks 0 and 1 must get
 * DISCONNECTED for each other (within 15 s, progressing), and the disconnects counter agrees
 * (checked by the script in the JSON). Point-to-point only: a collective would connect more. */
static int recycle(void)
{
    uint8_t buf[64];
    rcmsg_msg_status_t st;
    int other = rank == 0 ? 1 : rank == 1 ? 0 : -1, flag = 0;
    double t0;

    if (size != 3) {
        printf("SKIP: recycle needs 3 ranks\n");
        exit(77);
    }
    memset(buf, rank, sizeof(buf));
    for (int peer = 1; peer < 3; peer++) {
        if (rank == 0) {
            CHECK(rcmsg_send(buf, sizeof(buf), peer, TAG_PING, world) == RCMSG_OK, "send");
            CHECK(rcmsg_recv(buf, sizeof(buf), peer, TAG_PING, world, &st) == RCMSG_OK, "recv");
        } else if (rank == peer) {
            CHECK(rcmsg_recv(buf, sizeof(buf), 0, TAG_PING, world, &st) == RCMSG_OK, "recv");
            CHECK(rcmsg_send(buf, sizeof(buf), 0, TAG_PING, world) == RCMSG_OK, "send");
        }
    }
    t0 = now_s();
    while (other >= 0 && ev_count[RCMSG_EVENT_DISCONNECTED][other] == 0 && now_s() - t0 < 15) {
        CHECK(rcmsg_iprobe(RCMSG_ANY_SOURCE, TAG_WAKE, world, &flag, NULL) == RCMSG_OK, "iprobe");
        usleep(1000);
    }
    if (other >= 0) {
        CHECK(ev_count[RCMSG_EVENT_DISCONNECTED][other] == 1,
              "%d DISCONNECTED event(s) for peer %d, not 1",
              ev_count[RCMSG_EVENT_DISCONNECTED][other], other);
    }
    CHECK(rank == 1 || ev_count[RCMSG_EVENT_CONNECTED][2 - rank] == (rank == 0 || rank == 2),
          "CONNECTED for the second peer");
    /* rank 2 stays until rank 0 is done with the recycling (its connection to 0 was made) */
    printf("rank %d: recycle: %d failures\n", rank, failures);
    return failures != 0;
}

/* One mode: argv[0] the mode, argv[1 .. argc - 1] its arguments. */
static int run(int argc, char **argv)
{
    const char *m = argv[0];

    if (strcmp(m, "init") == 0) {
        return 0;
    }
    if (size < 2) {
        printf("SKIP: mode %s needs 2 ranks or more\n", m);
        rcmsg_finalize();
        exit(77);
    }
    if (strcmp(m, "traffic") == 0) {
        return traffic(argc - 1, argv + 1);
    } else if (strcmp(m, "stall") == 0 && argc == 1) {
        return stall();
    } else if (strcmp(m, "stall_nbc") == 0 && argc == 1) {
        return stall_nbc();
    } else if (strcmp(m, "pingpong") == 0 && argc == 2) {
        return pingpong(atof(argv[1]));
    } else if (strcmp(m, "events") == 0 && argc == 2) {
        return events(argv[1]);
    } else if (strcmp(m, "recover") == 0 && argc == 2) {
        return recover(atol(argv[1]));
    } else if (strcmp(m, "qpsync") == 0 && argc == 3) {
        return qpsync(atol(argv[1]), atol(argv[2]));
    } else if ((strcmp(m, "stuck") == 0 || strcmp(m, "stucksend") == 0) && argc == 2) {
        return stuck(atof(argv[1]), strcmp(m, "stucksend") == 0);
    } else if (strcmp(m, "idle") == 0 && argc == 1) {
        return idle();
    } else if (strcmp(m, "recycle") == 0 && argc == 1) {
        return recycle();
    }
    printf("FAIL: bad arguments for mode %s\n", m);
    return 2;
}

/* The modes of the command line, separated by "+", one after the other. */
static int run_all(int argc, char **argv)
{
    int st = 0;

    for (int i = 1, j; i < argc; i = j + 1) {
        for (j = i; j < argc && strcmp(argv[j], "+") != 0;) {
            j++;
        }
        if (j == i) {
            printf("FAIL: an empty mode in the command line\n");
            return 2;
        }
        st |= run(j - i, argv + i);
    }
    return st;
}

int main(int argc, char **argv)
{
    rcmsg_status_t s;
    int st;

    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc < 2) {
        fprintf(stderr,
                "usage: monitor_test MODE [+ MODE]...; MODE: init|traffic NxLEN...|stall|stall_nbc|"
                "pingpong SECS|events sm|rc|recover N|qpsync N MS|idle\n");
        return 2;
    }
    test_log_to_file("MONITOR_DIR");
    main_thread = pthread_self();
    s = rcmsg_event_handler_set(on_event, &ev_count);
    if (s != RCMSG_OK) {
        printf("FAIL: rcmsg_event_handler_set before rcmsg_init: %s\n", rcmsg_status_name(s));
        return 1;
    }
    s = rcmsg_init();
    if (s != RCMSG_OK) {
        printf("rcmsg_init: %s\n", rcmsg_status_name(s));
        return 1;
    }
    rank = rcmsg_rank(), size = rcmsg_size(), world = rcmsg_comm_world();
    srand((unsigned)(getpid() ^ rank));
    write_pid_file();
    st = run_all(argc, argv);
    s = rcmsg_finalize();
    if (s != RCMSG_OK) {
        printf("FAIL rank %d: rcmsg_finalize: %s\n", rank, rcmsg_status_name(s));
        st = 1;
    } else if (ev_none_since_checked()) {
        st = 1;
    } else {
        struct sigaction sa;
        printf("rank %d: finalized\n", rank);
        /* rcmsg's SIGUSR1 handler is gone again */
        if (sigaction(SIGUSR1, NULL, &sa) != 0 || sa.sa_handler != SIG_DFL) {
            printf("FAIL rank %d: SIGUSR1's disposition is not the default after rcmsg_finalize\n",
                   rank);
            st = 1;
        }
    }
    return st;
}
