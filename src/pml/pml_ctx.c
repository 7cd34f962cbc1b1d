/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Communicator context ids, agreed by the members (as MPICH and Open MPI do, never derived):
 * every process keeps a bitmap of its ids, and the ranks making a communicator exchange theirs
 * and take the lowest id free on all of them (a bitwise AND). The context on the wire is the
 * id times two (the low bit is the collective space); id 0 is the world.
 *
 * An id is in one of three states on a process:
 *   free: no communicator of this process has it, and no message for an old one can come;
 *   live: a communicator of this process has it;
 *   dead: its communicator was freed here. Late messages for it (sent before the other
 *         members freed it, or a BREAK) are refused, never adopted by a new communicator.
 * The rule for reusing a dead id X of freed communicator C on process A: X becomes free again
 * only at the end of an agreement (pml_ctx_agree) among a set S of processes containing every
 * member of C, in which every member of S reported X not live, and A has no receive still
 * posted on it. Every member of S sends its report to A directly, after it freed C (X not
 * live), and a pair delivers in order: once A holds every report, every message of C sent to
 * A has arrived (and was refused). So no message of C can reach a communicator that reuses X.
 * An agreement chooses among the ids free on all at its start: a member that finished it may
 * send on the new context at once, and the message must find the id free (kept for adoption),
 * not dead. When none is free on all but ids were freed by this agreement's releases, the
 * members exchange once more (so a program that freed communicators at the limit goes on).
 * A dead id whose members never agree again in one set stays dead (and counts against the
 * limit): communicators made again from the parent of the freed ones get those ids back.
 *
 * The exchange goes to every member directly (as the split's allgather), carrying only the
 * words of the bitmaps up to the last one with an id taken; the ids beyond are free.
 *
 * Threads (RCMSG_THREAD_MULTIPLE, docs/threads.md): several threads may make communicators at
 * once from different parents, and an agreement lets the core lock go while it waits, so two
 * agreements of one process could offer the same free id to two communicators. As MPICH's
 * context-id mask: the bitmaps are used by one agreement at a time (ids.agreeing, held from
 * its offer until the caller took the id: pml_ctx_agree_end); an agreement that cannot have
 * them offers nothing (busy), and when any member was busy, all of that round retry. The
 * bitmaps go to the waiting agreement whose parent's context is the lowest: the same one on
 * every process it involves, so that one always goes through (no livelock).
 */
#include "config.h"

#include "pml_internal.h"

#include <stdlib.h>
#include <string.h>

#define WORD_BITS    64
#define PML_CTX_WANT 64 /* agreements under way at once (threads); more wait to start */

typedef struct {
    uint64_t free[PML_CTX_WORDS]; /* 1: free */
    uint64_t dead[PML_CTX_WORDS]; /* 1: dead */
    int *dead_world[PML_CTX_IDS]; /* dead: the freed communicator's members (world ranks) */
    int dead_n[PML_CTX_IDS];
    int nlive, ndead;
    uint8_t *in_set;             /* [pml.size]: scratch for pml_ctx_agree */
    bool agreeing;               /* an agreement holds the bitmaps (top of the file: threads) */
    uint32_t want[PML_CTX_WANT]; /* the parents' contexts of the agreements under way */
    int nwant;
} pml_ctx_ids_t;

static pml_ctx_ids_t ids;

/* The message of an agreement: the split's entry, then two bitmaps of nwords words each:
 * the ids this process can take (free or candidate), and those not live here. */
typedef struct {
    pml_agree_entry_t e;
    uint32_t nwords;
    uint32_t busy; /* 1: this process's bitmaps were in use by another agreement: retry */
    uint64_t words[2 * PML_CTX_WORDS];
} agree_msg_t;

static bool bit_get(const uint64_t *w, unsigned i)
{
    return (w[i / WORD_BITS] >> (i % WORD_BITS)) & 1u;
}

static void bit_set(uint64_t *w, unsigned i, bool v)
{
    uint64_t b = (uint64_t)1 << (i % WORD_BITS);

    w[i / WORD_BITS] = v ? w[i / WORD_BITS] | b : w[i / WORD_BITS] & ~b;
}

rcmsg_status_t pml_ctx_init(void)
{
    pml_ctx_fini();
    ids.in_set = calloc((size_t)pml.size, 1);
    if (ids.in_set == NULL) {
        rcmsg_error("out of memory for the communicator context ids");
        return RCMSG_ERR_NO_MEMORY;
    }
    memset(ids.free, 0xff, sizeof(ids.free));
    return RCMSG_OK;
}

void pml_ctx_fini(void)
{
    for (unsigned i = 0; i < PML_CTX_IDS; i++) {
        free(ids.dead_world[i]);
    }
    free(ids.in_set);
    memset(&ids, 0, sizeof(ids));
}

void pml_ctx_take(uint32_t ctx)
{
    unsigned id = ctx >> 1;

    if (id < PML_CTX_IDS && bit_get(ids.free, id)) {
        bit_set(ids.free, id, false);
        ids.nlive++;
    }
}

bool pml_ctx_dead(uint32_t ctx)
{
    return (ctx >> 1) < PML_CTX_IDS && bit_get(ids.dead, ctx >> 1);
}

void pml_ctx_bury(struct rcmsg_comm *c)
{
    unsigned id = c->ctx >> 1;

    if (id == 0 || id >= PML_CTX_IDS || bit_get(ids.free, id) || bit_get(ids.dead, id)) {
        return; /* (never: a live communicator has a live id) */
    }
    bit_set(ids.dead, id, true);
    ids.dead_world[id] = c->world; /* taken over: pml_comm_destroy frees NULL */
    ids.dead_n[id] = c->size;
    c->world = NULL;
    ids.nlive--;
    ids.ndead++;
}

/* Whether dead id may be freed by an agreement among the processes marked in ids.in_set: all
 * its members are among them, and no receive is posted on it here. */
static bool dead_candidate(unsigned id)
{
    for (int i = 0; i < ids.dead_n[id]; i++) {
        if (!ids.in_set[ids.dead_world[id][i]]) {
            return false;
        }
    }
    return !rcmsg_match_ctx_posted(&pml_rcv.match, id << 1) &&
           !rcmsg_match_ctx_posted(&pml_rcv.match, (id << 1) | 1u);
}

static void dead_release(unsigned id)
{
    free(ids.dead_world[id]);
    ids.dead_world[id] = NULL;
    ids.dead_n[id] = 0;
    bit_set(ids.dead, id, false);
    bit_set(ids.free, id, true);
    ids.ndead--;
    rcmsg_match_ctx_release(&pml_rcv.match, id << 1);
    rcmsg_match_ctx_release(&pml_rcv.match, (id << 1) | 1u);
}

/* This process's message: its two bitmaps, cut after the last word with an id taken. */
static void msg_fill(agree_msg_t *m)
{
    uint64_t notlive[PML_CTX_WORDS];
    unsigned n = 0;

    for (unsigned w = 0; w < PML_CTX_WORDS; w++) {
        m->words[w] = ids.free[w];
        notlive[w] = ids.free[w] | ids.dead[w];
        n = ~ids.free[w] != 0 || ~notlive[w] != 0 ? w + 1 : n;
    }
    m->nwords = n;
    memcpy(m->words + n, notlive, sizeof(uint64_t) * n);
    m->busy = 0;
}

/* Whether the agreement of parent context ctx may have the bitmaps now (top: threads). */
static bool agree_may(uint32_t ctx)
{
    for (int i = 0; i < ids.nwant; i++) {
        if (ids.want[i] < ctx) {
            return false;
        }
    }
    return !ids.agreeing;
}

static void want_set(uint32_t ctx, bool on)
{
    for (int i = 0; !on && i < ids.nwant; i++) {
        if (ids.want[i] == ctx) {
            ids.want[i] = ids.want[--ids.nwant];
            return;
        }
    }
    while (on && ids.nwant == PML_CTX_WANT) {
        unsigned idle = 0;
        pml_idle(&idle); /* (64 agreements under way in one process) */
    }
    if (on) {
        ids.want[ids.nwant++] = ctx;
    }
}

void pml_ctx_agree_end(void)
{
    ids.agreeing = false;
}

static size_t msg_len(uint32_t nwords)
{
    return offsetof(agree_msg_t, words) + sizeof(uint64_t) * 2 * nwords;
}

/* Exchanges m with the n ranks of comm in ranks (comm ranks; NULL: all of comm), into all[n]
 * (in the order of ranks). Always waits for what it posted (the buffers outlive the
 * requests). */
static rcmsg_status_t agree_exchange(rcmsg_comm_t comm, bool coll, const int *ranks, int n,
                                     const agree_msg_t *m, agree_msg_t *all)
{
    int tag = coll ? PML_TAG_SPLIT : PML_TAG_AGREE;
    rcmsg_request_t *reqs = calloc((size_t)n * 2, sizeof(*reqs));
    rcmsg_status_t s = RCMSG_OK, w;
    int nreq = 0;

    if (reqs == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    for (int i = 0; i < n && s == RCMSG_OK; i++) {
        int peer = ranks != NULL ? ranks[i] : i;

        s = rcmsg_pml_irecv_unchecked(&all[i], sizeof(all[i]), peer, tag, comm, coll, &reqs[nreq]);
        nreq += s == RCMSG_OK;
        if (s == RCMSG_OK) {
            s = rcmsg_pml_isend_unchecked(m, msg_len(m->nwords), peer, tag, comm, coll,
                                          &reqs[nreq]);
            nreq += s == RCMSG_OK;
        }
    }
    w = rcmsg_waitall((size_t)nreq, reqs, NULL);
    free(reqs);
    return s != RCMSG_OK ? s : w;
}

/* The AND of every process's two bitmaps (words beyond a message's own are all free) into
 * can and notlive; RCMSG_ERR_PEER_DATA when a message is malformed. */
static rcmsg_status_t agree_reduce(const agree_msg_t *all, int n, uint64_t *can, uint64_t *notlive)
{
    memset(can, 0xff, sizeof(uint64_t) * PML_CTX_WORDS);
    memset(notlive, 0xff, sizeof(uint64_t) * PML_CTX_WORDS);
    for (int i = 0; i < n; i++) {
        uint32_t k = all[i].nwords;

        if (k > PML_CTX_WORDS) {
            rcmsg_error("communicator creation: a member sent %u words of context ids (at most "
                        "%d)",
                        k, PML_CTX_WORDS);
            return RCMSG_ERR_PEER_DATA;
        }
        for (uint32_t w = 0; w < k; w++) {
            can[w] &= all[i].words[w];
            notlive[w] &= all[i].words[k + w];
        }
    }
    return RCMSG_OK;
}

/* The lowest id of the bitmap (id 0, the world, left out); 0 when there is none. */
static unsigned agree_pick(const uint64_t *can)
{
    for (unsigned w = 0; w < PML_CTX_WORDS; w++) {
        uint64_t b = w == 0 ? can[w] & ~(uint64_t)1 : can[w];
        if (b != 0) {
            return w * WORD_BITS + (unsigned)__builtin_ctzll(b);
        }
    }
    return 0;
}

/* Whether no id is free on all but some is dead on some and not live on any: the same answer
 * on every process (the ANDs are), which then agree once more after their releases. */
static bool agree_again(const uint64_t *can, const uint64_t *notlive)
{
    uint64_t dead_somewhere[PML_CTX_WORDS];

    for (unsigned w = 0; w < PML_CTX_WORDS; w++) {
        dead_somewhere[w] = notlive[w] & ~can[w];
    }
    return agree_pick(can) == 0 && agree_pick(dead_somewhere) != 0;
}

/* Frees the dead ids this agreement allows (see the rule at the top). */
static void agree_release(const uint64_t *notlive)
{
    for (unsigned w = 0; w < PML_CTX_WORDS && ids.ndead > 0; w++) {
        for (uint64_t d = ids.dead[w] & notlive[w]; d != 0; d &= d - 1) {
            unsigned id = w * WORD_BITS + (unsigned)__builtin_ctzll(d);
            if (dead_candidate(id)) {
                dead_release(id);
            }
        }
    }
}

static void set_mark(rcmsg_comm_t comm, const int *ranks, int n, bool on)
{
    for (int i = 0; i < n; i++) {
        ids.in_set[comm->world[ranks != NULL ? ranks[i] : i]] = on;
    }
}

static rcmsg_status_t agree_exhausted(const char *what)
{
    rcmsg_error("%s: no communicator context id is free on every member: a process holds at "
                "most %d communicators at once (the world included; here %d are live and %d "
                "freed but not yet reusable); free some and retry",
                what, PML_CTX_IDS, ids.nlive, ids.ndead);
    return RCMSG_ERR_NO_RESOURCE;
}

/* One exchange with the bitmaps: offered only when this agreement holds them (*held), retried
 * (after an idle round) until no member was busy; the bitmaps still held on RCMSG_OK. */
static rcmsg_status_t agree_round(rcmsg_comm_t comm, bool coll, const int *ranks, int n,
                                  agree_msg_t *m, agree_msg_t *all, bool *held)
{
    rcmsg_status_t s;
    unsigned idle = 0;
    bool busy;

    do {
        if (!*held && agree_may(comm->ctx)) {
            ids.agreeing = *held = true;
        }
        msg_fill(m);
        if (!*held) {
            m->nwords = 0;
            m->busy = 1;
        }
        s = agree_exchange(comm, coll, ranks, n, m, all);
        busy = false;
        for (int i = 0; s == RCMSG_OK && i < n; i++) {
            busy = busy || all[i].busy != 0;
        }
        if ((s != RCMSG_OK || busy) && *held) {
            ids.agreeing = *held = false; /* let go: the lowest waiting takes them */
        }
        if (s == RCMSG_OK && busy) {
            rcmsg_debug("communicator creation on context 0x%x: a member's ids were in use by "
                        "another thread's agreement: again",
                        comm->ctx);
            pml_idle(&idle);
        }
    } while (s == RCMSG_OK && busy);
    return s;
}

rcmsg_status_t pml_ctx_agree(const char *what, rcmsg_comm_t comm, bool coll, const int *ranks,
                             int n, pml_agree_entry_t mine, pml_agree_entry_t *all_p,
                             uint32_t *ctx_p)
{
    agree_msg_t *m = malloc(sizeof(*m)), *all = calloc((size_t)n, sizeof(*all));
    uint64_t can[PML_CTX_WORDS], notlive[PML_CTX_WORDS];
    rcmsg_status_t s = RCMSG_ERR_NO_MEMORY;
    bool held = false;
    unsigned id;

    if (m == NULL || all == NULL) {
        rcmsg_error("%s: out of memory for the agreement on a context id", what);
        goto out;
    }
    m->e = mine;
    want_set(comm->ctx, true);
    for (int round = 0; round < 2; round++) {
        s = agree_round(comm, coll, ranks, n, m, all, &held);
        if (s == RCMSG_OK) {
            s = agree_reduce(all, n, can, notlive);
        }
        for (int i = 0; s == RCMSG_OK && round == 0 && all_p != NULL && i < n; i++) {
            all_p[i] = all[i].e;
        }
        if (s != RCMSG_OK) {
            break;
        }
        set_mark(comm, ranks, n, true);
        agree_release(notlive);
        set_mark(comm, ranks, n, false);
        if (!agree_again(can, notlive)) {
            break;
        }
    }
    want_set(comm->ctx, false);
    if (s == RCMSG_OK) {
        id = agree_pick(can);
        s = id == 0 ? agree_exhausted(what) : RCMSG_OK;
        *ctx_p = id << 1;
    }
    if (s != RCMSG_OK && held) {
        pml_ctx_agree_end(); /* (on RCMSG_OK: by the caller, once it took the id) */
    }
out:
    free(m);
    free(all);
    return s;
}
