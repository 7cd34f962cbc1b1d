/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Communicator context ids and their agreement (pml_ctx.c; the rule for reusing one is at the
 * top of the file).
 */
#ifndef RCMSG_PML_CTX_H
#define RCMSG_PML_CTX_H

#include "pml_wait.h"

typedef struct {
    int32_t color, key, rank; /* a split's entry; rank: the sender's rank in the parent */
} pml_agree_entry_t;

rcmsg_status_t pml_ctx_init(void);
void pml_ctx_fini(void);
/* Whether ctx (either space) is the context of a communicator freed here, whose late messages
 * are refused. */
bool pml_ctx_dead(uint32_t ctx);
/* ctx becomes live (pml_comm_create), or dead (c is freed: c->world is taken over). */
void pml_ctx_take(uint32_t ctx);
void pml_ctx_bury(struct rcmsg_comm *c);
/* The agreement on a new context among the n ranks of comm listed in ranks (comm ranks, the
 * same list in the same order everywhere, this rank among them; NULL: every rank of comm), in
 * comm's collective space (coll) or its point-to-point space (internal tag): each sends mine
 * to every other, all_p (NULL, or n entries) gets them in the order of ranks, and *ctx_p the
 * lowest context free on all. RCMSG_ERR_NO_RESOURCE when none is (the limit is logged); a
 * member lost (or any failure) fails it at once with that status, never waiting for the rest. */
rcmsg_status_t pml_ctx_agree(const char *what, rcmsg_comm_t comm, bool coll, const int *ranks,
                             int n, pml_agree_entry_t mine, pml_agree_entry_t *all_p,
                             uint32_t *ctx_p);
/* The same, step by step (pml_ctx_agree runs it to the end; rcmsg_comm_idup from a progress
 * hook): an agreement of the n ranks of comm in ranks (NULL: all; kept by the caller while it
 * runs) on comm's space (coll) with tag (its own, so that its exchanges never meet another
 * agreement's; in the point-to-point space, rcmsg_comm_create_ranks's, one of its list and
 * mine.key instead: pml_ctx.c); seq: its number among comm's agreements, the same on every member
 * (the order in which the bitmaps go to waiting agreements of one parent). nonblocking: it may wait
 * while this process blocks in other calls (its first exchange only joins: top of pml_ctx.c). */
typedef struct pml_agree pml_agree_t;
rcmsg_status_t pml_agree_new(const char *what, rcmsg_comm_t comm, bool coll, const int *ranks,
                             int n, int tag, uint32_t seq, bool nonblocking, pml_agree_entry_t mine,
                             pml_agree_t **a_p);
/* Posts and completes its exchanges without waiting; whether it is over. */
bool pml_agree_advance(pml_agree_t *a);
/* Once over: its outcome, as pml_ctx_agree's (on RCMSG_OK the bitmaps are held until
 * pml_ctx_agree_end). */
rcmsg_status_t pml_agree_result(const pml_agree_t *a, pml_agree_entry_t *all_p, uint32_t *ctx_p);
/* Once over (or at finalize). NULL: nothing. */
void pml_agree_free(pml_agree_t *a);
/* After a pml_ctx_agree (or pml_agree_result) that returned RCMSG_OK, once the id was taken
 * (pml_comm_create) or not (this process is in no new communicator): other agreements may use the
 * bitmaps. */
void pml_ctx_agree_end(void);

#endif /* RCMSG_PML_CTX_H */
