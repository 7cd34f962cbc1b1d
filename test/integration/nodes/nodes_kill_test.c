/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A whole node's ranks lost (test/integration/nodes/nodes_kill.sh): every rank exchanges
 * checked messages with every live peer in rounds (1 KiB eager and 64 KiB rendezvous
 * alternately: each round a receive and a send per peer, every byte, the length and the
 * order checked), until the ranks of the victim host (argv[1]) are killed from outside
 * (SIGKILL, or their VM stopped). The survivors note, per lost peer, the first failed request
 * (its status and the CLOCK_REALTIME when it failed: the script compares it with the kill time
 * taken on the same node), go on with the live peers for 5 more checked rounds and finalize.
 * The survivors may learn of the loss in different rounds: byte 0 of every message says whether
 * its sender has had its 5 rounds, and a rank stops after the first round in which it and every
 * live peer had them (every survivor sees the same flags, so all stop in the same round and no
 * receive is left waiting for a peer that has finalized).
 *
 *   nodes_kill_test VICTIM_HOST
 *
 * Prints "rank R: host H, pid P", then rank 0 "rank 0: running" (the script may strike), and
 * on each survivor "rank R: peer P failed: first error STATUS at T" per victim, "rank R: 5
 * rounds checked with the live peers after the loss", "rank R: finalized" and
 * "rank R: 0 failure(s)". A survivor losing a peer of its own node, a wrong byte or no loss
 * within 120 s fails ("FAIL rank R ...", exit 1).
 */
#include "../test_check.h"

#include <rcmsg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BIG   65536
#define SMALL 1024
#define TAG   21

static int rank, size, failures;
static rcmsg_comm_t world;

static double realtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static unsigned char pattern(int from, int to, int round, size_t i)
{
    return (unsigned char)(from * 31 + to * 7 + round * 13 + (int)(i % 251));
}

typedef struct {
    int victim; /* on the victim host */
    int lost;   /* a request with it failed */
    int done;   /* its last message said it has had its rounds after the loss */
    unsigned char *in, *out;
    rcmsg_request_t rreq, sreq;
} peer_t;

/* One round with every live peer, telling each whether this rank is DONE; a failed request
 * marks its peer lost. */
static void round_once(peer_t *pr, int round, int done)
{
    size_t len = round % 2 ? BIG : SMALL;

    for (int p = 0; p < size; p++) {
        if (p == rank || pr[p].lost) {
            continue;
        }
        for (size_t i = 0; i < len; i++) {
            pr[p].out[i] = pattern(rank, p, round, i);
        }
        pr[p].out[0] = (unsigned char)done;
        rcmsg_irecv(pr[p].in, BIG, p, TAG, world, &pr[p].rreq);
        rcmsg_isend(pr[p].out, len, p, TAG, world, &pr[p].sreq);
    }
    for (int p = 0; p < size; p++) {
        rcmsg_msg_status_t st;
        rcmsg_status_t rs, ss;

        if (p == rank || pr[p].lost) {
            continue;
        }
        rs = rcmsg_wait(&pr[p].rreq, &st);
        ss = rcmsg_wait(&pr[p].sreq, NULL);
        if (rs != RCMSG_OK || ss != RCMSG_OK) {
            rcmsg_status_t s = rs != RCMSG_OK ? rs : ss;
            printf("rank %d: peer %d failed: first error %s at %.3f\n", rank, p,
                   rcmsg_status_name(s), realtime());
            CHECK(pr[p].victim, "peer %d of a surviving node failed: %s", p, rcmsg_status_name(s));
            pr[p].lost = 1;
            continue;
        }
        CHECK(st.count == len, "round %d: %zu bytes from peer %d, want %zu", round, st.count, p,
              len);
        CHECK(pr[p].in[0] <= 1, "round %d: flag %d from peer %d", round, pr[p].in[0], p);
        pr[p].done = pr[p].in[0] == 1;
        for (size_t i = 1; i < len && i < st.count; i++) {
            if (pr[p].in[i] != pattern(p, rank, round, i)) {
                CHECK(0, "round %d: byte %zu from peer %d wrong", round, i, p);
                break;
            }
        }
    }
}

/* Every live peer said in the last round that it has had its rounds after the loss. */
static int live_peers_done(const peer_t *pr)
{
    for (int p = 0; p < size; p++) {
        if (p != rank && !pr[p].lost && !pr[p].done) {
            return 0;
        }
    }
    return 1;
}

static int victims_lost(const peer_t *pr)
{
    for (int p = 0; p < size; p++) {
        if (pr[p].victim && !pr[p].lost) {
            return 0;
        }
    }
    return 1;
}

int main(int argc, char **argv)
{
    char host[64] = "";
    int32_t mine, *all;
    peer_t *pr;
    double end;
    int round = 0, after = 0;

    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc != 2) {
        fprintf(stderr, "usage: nodes_kill_test VICTIM_HOST\n");
        return 2;
    }
    if (rcmsg_init() != RCMSG_OK) {
        printf("FAIL: rcmsg_init failed\n");
        return 1;
    }
    rank = rcmsg_rank(), size = rcmsg_size(), world = rcmsg_comm_world();
    gethostname(host, sizeof(host) - 1);
    mine = strcmp(host, argv[1]) == 0;
    all = calloc((size_t)size, sizeof(*all));
    pr = calloc((size_t)size, sizeof(*pr));
    if (all == NULL || pr == NULL || rcmsg_allgather(&mine, all, 1, RCMSG_INT32, world) != 0) {
        printf("FAIL rank %d: setup\n", rank);
        return 1;
    }
    for (int p = 0; p < size; p++) {
        pr[p].victim = all[p] && !mine;
        pr[p].in = malloc(BIG);
        pr[p].out = malloc(BIG);
    }
    printf("rank %d: host %s, pid %d\n", rank, host, (int)getpid());
    end = realtime() + 120;
    for (int stop = 0; !stop && realtime() < end;) {
        int before = victims_lost(pr) && !mine;
        int done = after >= 5;

        round_once(pr, round++, done);
        if (rank == 0 && round == 3) {
            printf("rank 0: running\n");
        }
        after += before;
        stop = done && live_peers_done(pr);
    }
    CHECK(after >= 5, "the victims' loss not seen within 120 s (round %d)", round);
    if (after >= 5) {
        printf("rank %d: 5 rounds checked with the live peers after the loss\n", rank);
    }
    if (rcmsg_finalize() != RCMSG_OK) {
        CHECK(0, "rcmsg_finalize failed");
    } else {
        printf("rank %d: finalized\n", rank);
    }
    printf("rank %d: %d failure(s)\n", rank, failures);
    return failures != 0;
}
