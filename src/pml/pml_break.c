/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A member of a communicator is lost: the communicator's collectives fail from then on, on
 * every member (BREAK), while point-to-point among the others goes on.
 */
#include "config.h"

#include "pml_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

pml_break_t pml_brk;

rcmsg_status_t pml_break_init(void)
{
    pml_brk.gone = calloc((size_t)pml.size, sizeof(*pml_brk.gone)); /* RCMSG_OK: not lost */
    return pml_brk.gone != NULL ? RCMSG_OK : RCMSG_ERR_NO_MEMORY;
}

void pml_break_fini(void)
{
    free(pml_brk.gone);
    memset(&pml_brk, 0, sizeof(pml_brk));
}

/* A member of c is lost (world rank peer: seen by this rank; or c's rank lost, which rank
 * reporter told us of): a collective of c can no longer complete (the live ranks it waits for
 * may be waiting for the lost one), so c's collectives fail from now on with status, on this
 * rank as soon as it knows: the receives posted in its collective space (fail_orphaned), later
 * posts, and what arrives there (refused: a rendezvous sender is released). Point-to-point on
 * c goes on among the others. */
void pml_comm_break(struct rcmsg_comm *c, int peer, rcmsg_status_t status, int reporter)
{
    char says[40] = "";
    long n;

    c->coll_lost = status;
    if (reporter >= 0) {
        snprintf(says, sizeof(says), " (says world rank %d)", reporter);
    }
    n = pml_unexp_refuse(c->ctx | 1u,
                         "a member of the communicator is lost, so its collectives fail", status);
    rcmsg_log(c == pml_comms.world || n > 0 ? RCMSG_LOG_WARN : RCMSG_LOG_INFO,
              "communicator 0x%x: its collectives fail from now on with %s, as world rank %d is "
              "among its %d members and is lost%s (%ld unreceived collective message(s) "
              "discarded); point-to-point among the others goes on",
              c->ctx, rcmsg_status_name(status), peer, c->size, says, n);
}

static bool comm_has(const struct rcmsg_comm *c, int world_rank)
{
    for (int i = 0; i < c->size; i++) {
        if (c->world[i] == world_rank) {
            return true;
        }
    }
    return false;
}

/* The other live members of c learn of its break from this rank, which saw the loss itself:
 * a member waiting for another live one in a collective could otherwise wait until that one
 * exits. Those told do not pass it on, so a loss costs each direct witness one BREAK per
 * member (the launcher's loss ends the job: nobody is told). */
static void comm_break_tell(const struct rcmsg_comm *c, int peer)
{
    rcmsg_pml_rts_t h = {.hdr = {.type = RCMSG_PML_BREAK, .ctx = c->ctx | 1u, .src = c->rank},
                         .status = c->coll_lost};

    if (pml.lost_launcher != RCMSG_OK) {
        return;
    }
    for (int i = 0; i < c->size; i++) {
        if (c->world[i] == peer) {
            h.hdr.tag = i;
        }
    }
    for (int i = 0; i < c->size; i++) {
        if (i != c->rank && !pml_peer_failed(c->world[i])) {
            (void)pml_queue_ctl(c->world[i], &h); /* (out of memory: logged; it learns later) */
        }
    }
}

void pml_comms_break(int peer, rcmsg_status_t status, int reporter)
{
    bool tell = reporter < 0 && !pml_peer_reported(peer) && peer != pml.rank;

    if (pml_brk.gone[peer] == RCMSG_OK) {
        pml_brk.gone[peer] = status; /* communicators made from now on are broken at once */
    }
    for (rcmsg_queue_link_t *l = rcmsg_queue_first(&pml_comms.live); l != NULL;
         l = rcmsg_queue_next(l)) {
        struct rcmsg_comm *c = RCMSG_CONTAINER_OF(l, struct rcmsg_comm, live_link);
        /* (one adopting its early messages is broken by pml_comm_create after the walk over
         * them, in which a lying sender fails) */
        if (!c->adopting && c->coll_lost == RCMSG_OK && comm_has(c, peer)) {
            pml_comm_break(c, peer, status, reporter);
            if (tell) {
                comm_break_tell(c, peer);
            }
        }
    }
}
