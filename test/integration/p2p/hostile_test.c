/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A buggy or hostile rank of the same job: rank 1 bypasses the point-to-point layer and puts
 * crafted headers on the wire to rank 0 through its transport. Rank 0, waiting for a message
 * from rank 1, must treat it as lost (RCMSG_ERR_PEER_DATA, with the reason logged) instead of
 * believing it.
 *
 *   hostile_test credits   returns 1000 eager credits where none were lent
 *   hostile_test gap       a sequence number that skips messages on a reliable connection
 *   hostile_test src       an EAGER that claims to come from rank 0 itself
 *   hostile_test orphans   RTS headers for a communicator that never appears, without end
 *   hostile_test fin       a FIN for rank 0's rendezvous send, whose status is no rcmsg status
 *   hostile_test fin-none  a FIN that names no rendezvous send of rank 0
 *   hostile_test cancel-ahead  a CANCEL of a message it has not sent (a later sequence number)
 *   hostile_test cancel-lie    a CANCEL of its unexpected message with another tag
 *   hostile_test cancel-ack    a CANCEL_ACK when rank 0 asked for no cancel
 *
 * 2 ranks. Prints "rank 0: receive returned X" and exits non-zero on a failed check.
 */
#include "config.h"

#include "core/core.h"
#include "pml/pml.h"
#include "progress/progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, failures;

#include "../test_check.h"

/* Puts one crafted header (and payload) on the wire to rank 0, waiting for room. */
static rcmsg_status_t inject(rcmsg_pml_hdr_t *h, size_t hlen, const void *data, size_t len)
{
    rcmsg_btl_t *btl = rcmsg_core_wireup()->peer_btl[0];
    rcmsg_status_t s;

    while ((s = btl->ops->send(btl, 0, h, hlen, data, len)) == RCMSG_ERR_NO_RESOURCE) {
        rcmsg_progress();
    }
    CHECK(s == RCMSG_OK || s == RCMSG_ERR_CONNECTION, "inject: %s", rcmsg_status_name(s));
    return s;
}

static void attack(const char *what)
{
    rcmsg_pml_rts_t r = {.hdr = {.type = RCMSG_PML_CREDIT}};
    int v = 0;

    if (strcmp(what, "credits") == 0) {
        r.hdr.credits = 1000;
        inject(&r.hdr, sizeof(r.hdr), NULL, 0);
    } else if (strcmp(what, "gap") == 0) {
        r.hdr.seq = 7;
        inject(&r.hdr, sizeof(r.hdr), NULL, 0);
    } else if (strcmp(what, "src") == 0) {
        r.hdr = (rcmsg_pml_hdr_t){.type = RCMSG_PML_EAGER, .src = 0, .tag = 1, .len = sizeof(v)};
        inject(&r.hdr, sizeof(r.hdr), &v, sizeof(v));
    } else if (strcmp(what, "orphans") == 0) {
        for (uint32_t i = 0; i <= 70000; i++) {
            r.hdr = (rcmsg_pml_hdr_t){
                .type = RCMSG_PML_RTS, .ctx = 0x1234, .src = 1, .tag = 1, .seq = i, .len = 8};
            if (inject(&r.hdr, sizeof(r), NULL, 0) != RCMSG_OK) {
                break; /* rank 0 refused us and left */
            }
        }
    } else if (strcmp(what, "break") == 0) {
        /* a BREAK of the world's collectives naming rank 0, the receiver, as the lost rank */
        r.hdr = (rcmsg_pml_hdr_t){.type = RCMSG_PML_BREAK, .ctx = 1, .src = 1, .tag = 0};
        r.status = RCMSG_ERR_CONNECTION;
        inject(&r.hdr, sizeof(r), NULL, 0);
    } else if (strncmp(what, "cancel", 6) == 0) {
        uint32_t seq = 0;
        if (strcmp(what, "cancel-lie") == 0) { /* message 0, unexpected at rank 0 (tag 9) */
            r.hdr = (rcmsg_pml_hdr_t){.type = RCMSG_PML_EAGER, .src = 1, .tag = 9, .len = 4};
            inject(&r.hdr, sizeof(r.hdr), &v, sizeof(v));
            seq = 1;
        }
        r.hdr = (rcmsg_pml_hdr_t){.type = strcmp(what, "cancel-ack") == 0 ? RCMSG_PML_CANCEL_ACK
                                                                          : RCMSG_PML_CANCEL,
                                  .src = 1,
                                  .tag = 8,
                                  .seq = seq,
                                  .len = 4};
        r.addr = strcmp(what, "cancel-ahead") == 0 ? 5 : 0;
        r.sreq = 77;
        inject(&r.hdr, sizeof(r), NULL, 0);
    } else if (strncmp(what, "fin", 3) == 0) {
        int flag = 0;
        /* rank 0's rendezvous send (its first request: index 0, generation 1) arrived */
        while (!flag) {
            rcmsg_iprobe(0, 2, rcmsg_comm_world(), &flag, NULL);
        }
        r.hdr = (rcmsg_pml_hdr_t){.type = RCMSG_PML_FIN};
        r.sreq = strcmp(what, "fin") == 0 ? (uint64_t)1 << 32 : 77;
        r.status = strcmp(what, "fin") == 0 ? 12345 : 0;
        inject(&r.hdr, sizeof(r), NULL, 0);
    }
}

int main(int argc, char **argv)
{
    rcmsg_status_t s;
    int v;

    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc != 2) {
        fprintf(stderr,
                "usage: hostile_test "
                "credits|gap|src|orphans|fin|fin-none|break|cancel-ahead|cancel-lie|cancel-ack\n");
        return 2;
    }
    s = rcmsg_init();
    if (s != RCMSG_OK || rcmsg_size() != 2) {
        printf("SKIP: needs 2 ranks (init: %s)\n", rcmsg_status_name(s));
        return 77;
    }
    rank = rcmsg_rank();
    if (rank == 1) {
        attack(argv[1]);
    } else {
        if (strncmp(argv[1], "fin", 3) == 0) {
            static char buf[1 << 16];
            rcmsg_request_t req;
            CHECK(rcmsg_isend(buf, sizeof(buf), 1, 2, rcmsg_comm_world(), &req) == RCMSG_OK,
                  "isend");
            s = rcmsg_wait(&req, NULL);
            printf("rank 0: rendezvous send returned %s\n", rcmsg_status_name(s));
            CHECK(s == RCMSG_ERR_PEER_DATA, "the send completed although rank 1 never took it");
        }
        s = rcmsg_recv(&v, sizeof(v), 1, 1, rcmsg_comm_world(), NULL);
        printf("rank 0: receive returned %s\n", rcmsg_status_name(s));
        CHECK(s == RCMSG_ERR_PEER_DATA, "rank 1's bad data was not refused");
    }
    /* rank 0 no longer talks to rank 1: neither waits for the other at the end */
    rcmsg_pml_fini();
    rcmsg_wireup_fini(rcmsg_core_wireup(), true);
    printf("rank %d: %d failure(s)\n", rank, failures);
    return failures != 0;
}
