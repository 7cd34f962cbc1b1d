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
 * Several agreements at once: threads (RCMSG_THREAD_MULTIPLE, docs/threads.md) may make
 * communicators from different parents, an agreement lets the core lock go while it waits,
 * and rcmsg_comm_idup's agreements run from a progress hook while the process does anything
 * else (other idups, blocking creation on any communicator). Two agreements of one process
 * could then offer the same free id to two communicators. As MPICH's context-id mask: the
 * bitmaps are used by one agreement at a time (ids.agreeing, held from its offer until the
 * caller took the id: pml_ctx_agree_end); an agreement that cannot have them offers nothing
 * (busy), and when any member was busy, all of that round exchange again. The rules that keep
 * this from deadlocking:
 *   - join first: an agreement holds the bitmaps only while every member is known to be in
 *     it (after one complete exchange: each member sent), since a member not yet in it may
 *     be waiting for something that needs this process's bitmaps (an idup of another parent
 *     posted here, which that member waits for before it calls this one). So the first
 *     exchange of a nonblocking agreement offers nothing, nor a blocking one's when another
 *     agreement may want the bitmaps meanwhile (threads on, or an idup under way here); a
 *     lone blocking agreement offers at once (one exchange, as before).
 *   - priority: among the agreements joined and waiting (ids.want), the bitmaps go to the one
 *     of the lowest key, its parent's context then its number among the parent's agreements
 *     (idups in the order posted, blocking ones after them): the same order on every process
 *     it involves, so that one always goes through (no livelock), and every member of it
 *     keeps answering (a blocking call waits in progress, which advances the idups).
 * Each agreement has its own tag (idups: PML_TAG_IDUP of their number), so that its rounds
 * never meet another's. rcmsg_comm_create_ranks's, in the parent's point-to-point space among
 * some of its ranks only, have PML_TAG_AGREE of a hash of their list and key: the same on every
 * member whatever each did before (no count that a member which skipped a call would get
 * wrong), so that agreements of other lists never meet; those of one list and key follow each
 * other in order per pair, as each member does as many exchanges as the others.
 *
 * A member lost (or any failure of an exchange) ends the agreement on this rank without
 * waiting for the others: once a request of an exchange failed, the rest are taken back
 * (receives nothing matched, sends by a cancel) and the agreement fails with the first
 * failure; so does a member known lost while the exchange waits (seen here, or told by a
 * witness's BREAK), even one whose message of that exchange came: each survivor learns of the
 * loss in whichever exchange it is (within the liveness bounds, docs/liveness.md) and none
 * waits for a survivor that gave up. What of a failed create_ranks agreement is here unreceived
 * (its members' messages sent before they knew) is discarded at its end, returning its eager
 * credits; one that comes later is held as any unexpected message (at most two from each
 * survivor, which can be one exchange ahead of this rank).
 */
#include "config.h"

#include "pml_internal.h"
#include "base/config_table.h"
#include "base/hash.h"
#include "base/mt.h"
#include "progress/progress.h"

#include <stdlib.h>
#include <string.h>

#define WORD_BITS 64

typedef struct {
    uint64_t free[PML_CTX_WORDS]; /* 1: free */
    uint64_t dead[PML_CTX_WORDS]; /* 1: dead */
    int *dead_world[PML_CTX_IDS]; /* dead: the freed communicator's members (world ranks) */
    int dead_n[PML_CTX_IDS];
    int nlive, ndead;
    uint8_t *in_set;   /* [pml.size]: scratch for an agreement's releases */
    bool agreeing;     /* an agreement holds the bitmaps (top of the file: threads) */
    pml_agree_t *want; /* the joined agreements waiting for the bitmaps (want_next) */
    int nonblocking;   /* nonblocking agreements under way (pml_agree_start's) */
    long kill_after;   /* RCMSG_TEST_AGREE_KILL: die after so many agreement sends (0: never) */
    long sent;         /* agreement messages sent, for kill_after */
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
    ids.kill_after = (long)rcmsg_config_int(RCMSG_CFG_TEST_AGREE_KILL);
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

/* One agreement under way: a blocking call's (pml_ctx_agree) or a nonblocking one's
 * (rcmsg_comm_idup, advanced from a progress hook). Each exchange is one message to and from
 * every member; the next is posted once the last completed. */
struct pml_agree {
    const char *what;
    rcmsg_comm_t comm;
    bool coll, nonblocking;
    bool join;        /* the first exchange offers nothing (top of the file: threads) */
    const int *ranks; /* the caller's (NULL: all of comm) */
    int n, tag;
    uint64_t key;          /* parent's context << 32 | its number there: the same on every member */
    agree_msg_t *m;        /* this process's message (sent from here) */
    agree_msg_t *all;      /* [n]: the members' messages of the last exchange */
    rcmsg_request_t *reqs; /* [2n]: the exchange posted */
    int nreq, exchanges;   /* exchanges: completed */
    bool posted, held, wanting, again, done;
    bool broken;    /* an exchange failed (not only the outcome): messages may still come */
    bool abandoned; /* a request failed: the rest were taken back (top of the file) */
    rcmsg_status_t err;
    unsigned id; /* the id chosen */
    pml_agree_t *want_next;
};

/* Whether agreement a may have the bitmaps now (top: threads). */
static bool agree_may(const pml_agree_t *a)
{
    for (const pml_agree_t *w = ids.want; w != NULL; w = w->want_next) {
        if (w->key < a->key) {
            return false;
        }
    }
    return !ids.agreeing;
}

/* a waits for the bitmaps (on), or no longer. */
static void want_set(pml_agree_t *a, bool on)
{
    pml_agree_t **pp = &ids.want;

    if (on && !a->wanting) {
        a->want_next = ids.want;
        ids.want = a;
    }
    while (!on && a->wanting && *pp != a) {
        pp = &(*pp)->want_next;
    }
    if (!on && a->wanting) {
        *pp = a->want_next;
    }
    a->wanting = on;
}

static void let_go(pml_agree_t *a)
{
    if (a->held) {
        ids.agreeing = a->held = false; /* the lowest waiting takes them */
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

/* RCMSG_TEST_AGREE_KILL: a test's member lost at a chosen point of an agreement. */
static void test_kill(void)
{
    if (ids.kill_after > 0 && ++ids.sent == ids.kill_after) {
        rcmsg_warn("RCMSG_TEST_AGREE_KILL=%ld: this process kills itself (SIGKILL) after its "
                   "agreement message %ld",
                   ids.kill_after, ids.sent);
        raise(SIGKILL);
    }
}

/* Posts the next exchange: the bitmaps offered only when a holds them (taken now if it may),
 * else busy. A posting that fails is a's error (what was posted still completes). */
static void exchange_post(pml_agree_t *a)
{
    if (!a->held && !(a->join && a->exchanges == 0) && agree_may(a)) {
        ids.agreeing = a->held = true;
    }
    msg_fill(a->m);
    if (!a->held) {
        a->m->nwords = 0;
        a->m->busy = 1;
    }
    a->nreq = 0;
    for (int i = 0; i < a->n && a->err == RCMSG_OK; i++) {
        int peer = a->ranks != NULL ? a->ranks[i] : i;
        rcmsg_status_t s = rcmsg_pml_irecv_unchecked(&a->all[i], sizeof(a->all[i]), peer, a->tag,
                                                     a->comm, a->coll, &a->reqs[a->nreq]);

        a->nreq += s == RCMSG_OK;
        if (s == RCMSG_OK) {
            s = rcmsg_pml_isend_unchecked(a->m, msg_len(a->m->nwords), peer, a->tag, a->comm,
                                          a->coll, &a->reqs[a->nreq]);
            a->nreq += s == RCMSG_OK;
            test_kill();
        }
        a->err = s;
    }
    a->posted = true;
}

/* A request of the exchange failed (or its posting did): the others are not waited for (a
 * survivor that gave up never sends its part; top of the file): receives nothing matched are
 * taken back, sends cancelled (they complete at once, or at their receiver's answer, or at its
 * loss: bounded); those already matched complete as they are. */
static void exchange_abandon(pml_agree_t *a)
{
    rcmsg_debug("communicator creation on context 0x%x: a member is lost or failed (%s): the "
                "agreement ends here without waiting for the others",
                a->comm->ctx, rcmsg_status_name(a->err));
    for (int i = 0; i < a->nreq; i++) {
        rcmsg_request_t r = a->reqs[i];

        if (r == RCMSG_REQUEST_NULL || rcmsg_pml_req_done(r)) {
            continue;
        }
        if (r->kind == PML_REQ_RECV) {
            (void)rcmsg_pml_cancel_recv(&a->reqs[i]); /* (matched already: it completes) */
        } else {
            (void)rcmsg_cancel(&a->reqs[i]);
        }
    }
    a->abandoned = true;
}

/* The status a member of a was lost with, as this rank knows (seen here, or told by a BREAK),
 * or RCMSG_OK: a survivor whose requests to the lost one completed (it had its message) must
 * not wait for survivors that gave up. */
static rcmsg_status_t agree_lost(const pml_agree_t *a)
{
    for (int i = 0; i < a->n; i++) {
        rcmsg_status_t s = pml_peer_gone(a->comm->world[a->ranks != NULL ? a->ranks[i] : i]);

        if (s != RCMSG_OK) {
            return s;
        }
    }
    return RCMSG_OK;
}

/* Whether the exchange posted has completed (its requests then freed, the first failure a's
 * error, or a member's loss while any was pending), or ended at a failure (exchange_abandon). */
static bool exchange_done(pml_agree_t *a)
{
    bool pending = false;

    for (int i = 0; i < a->nreq; i++) {
        rcmsg_request_t r = a->reqs[i];

        if (r != RCMSG_REQUEST_NULL && !rcmsg_pml_req_done(r)) {
            pending = true;
        } else if (r != RCMSG_REQUEST_NULL && a->err == RCMSG_OK && !r->cancelled) {
            a->err = r->st.error; /* (the first failure found) */
        }
    }
    if (pending && a->err == RCMSG_OK) {
        a->err = agree_lost(a);
    }
    if (pending && a->err != RCMSG_OK && !a->abandoned) {
        exchange_abandon(a);
        return exchange_done(a);
    }
    if (pending) {
        return false;
    }
    for (int i = 0; i < a->nreq; i++) {
        rcmsg_status_t s =
            a->reqs[i] != RCMSG_REQUEST_NULL ? rcmsg_wait(&a->reqs[i], NULL) : RCMSG_OK;

        a->err = a->err == RCMSG_OK ? s : a->err;
    }
    a->broken = a->err != RCMSG_OK;
    a->nreq = 0;
    a->posted = false;
    a->exchanges++;
    return true;
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

static rcmsg_status_t agree_exhausted(const pml_agree_t *a)
{
    rcmsg_log(rcmsg_pml_caller_level(a->comm),
              "%s: no communicator context id is free on every member: a process holds at "
              "most %d communicators at once (the world included; here %d are live and %d "
              "freed but not yet reusable); free some and retry",
              a->what, PML_CTX_IDS, ids.nlive, ids.ndead);
    return RCMSG_ERR_NO_RESOURCE;
}

static void agree_finish(pml_agree_t *a)
{
    a->done = true;
    if (!a->coll && a->broken) { /* (top of the file: a failed one's messages) */
        pml_unexp_refuse_from(a->comm->ctx, RCMSG_ANY_SOURCE, a->tag,
                              "a message of a communicator-creation agreement that failed", a->err);
    }
    want_set(a, false);
    ids.nonblocking -= a->nonblocking;
    if (a->err != RCMSG_OK) {
        let_go(a); /* (on RCMSG_OK: by the caller, once it took the id) */
    }
}

/* After an exchange: again when a member was busy (every member is in the agreement now: it
 * waits for the bitmaps), or once more after releases; else the lowest id free on all. False
 * when busy: the next exchange waits for the next call (a holder elsewhere, maybe a call this
 * one runs in, must progress first: an exchange among one rank completes at once). */
static bool agree_after(pml_agree_t *a)
{
    uint64_t can[PML_CTX_WORDS], notlive[PML_CTX_WORDS];
    bool busy = false;

    for (int i = 0; a->err == RCMSG_OK && i < a->n; i++) {
        busy = busy || a->all[i].busy != 0;
    }
    if (a->err == RCMSG_OK && busy) {
        if (a->exchanges > 1 || !a->join) {
            rcmsg_debug("communicator creation on context 0x%x: a member's ids were in use by "
                        "another agreement: again",
                        a->comm->ctx);
        }
        let_go(a);
        want_set(a, true);
        return false;
    }
    if (a->err == RCMSG_OK) {
        a->err = agree_reduce(a->all, a->n, can, notlive);
    }
    if (a->err == RCMSG_OK) {
        set_mark(a->comm, a->ranks, a->n, true);
        agree_release(notlive);
        set_mark(a->comm, a->ranks, a->n, false);
        if (!a->again && agree_again(can, notlive)) {
            a->again = true;
            return true;
        }
        a->id = agree_pick(can);
        a->err = a->id == 0 ? agree_exhausted(a) : RCMSG_OK;
    }
    agree_finish(a);
    return true;
}

bool pml_agree_advance(pml_agree_t *a)
{
    while (!a->done) {
        if (!a->posted) {
            exchange_post(a);
        }
        if (!exchange_done(a) || !agree_after(a)) {
            return false;
        }
    }
    return true;
}

/* The tag of rcmsg_comm_create_ranks's agreement on the list ranks (n) with key (top). */
static int agree_tag(const int *ranks, int n, int32_t key)
{
    uint64_t h[2] = {ranks != NULL ? rcmsg_hash_bytes64(ranks, sizeof(int) * (size_t)n)
                                   : (uint64_t)n,
                     (uint32_t)key};

    return PML_TAG_AGREE(rcmsg_hash_bytes32(h, sizeof(h)));
}

rcmsg_status_t pml_agree_new(const char *what, rcmsg_comm_t comm, bool coll, const int *ranks,
                             int n, int tag, uint32_t seq, bool nonblocking, pml_agree_entry_t mine,
                             pml_agree_t **a_p)
{
    pml_agree_t *a = calloc(1, sizeof(*a));

    if (a != NULL) {
        a->m = malloc(sizeof(*a->m));
        a->all = calloc((size_t)n, sizeof(*a->all));
        a->reqs = calloc((size_t)n * 2, sizeof(*a->reqs));
    }
    if (a == NULL || a->m == NULL || a->all == NULL || a->reqs == NULL) {
        rcmsg_error("%s: out of memory for the agreement on a context id", what);
        pml_agree_free(a);
        return RCMSG_ERR_NO_MEMORY;
    }
    a->what = what;
    a->comm = comm;
    a->coll = coll;
    a->ranks = ranks;
    a->n = n;
    a->tag = coll ? tag : agree_tag(ranks, n, mine.key);
    a->key = (uint64_t)comm->ctx << 32 | seq;
    a->m->e = mine;
    a->nonblocking = nonblocking;
    /* join first unless nothing else can want the bitmaps while a waits (top: threads) */
    a->join = nonblocking || rcmsg_mt_on || ids.nonblocking > 0;
    ids.nonblocking += nonblocking;
    *a_p = a;
    return RCMSG_OK;
}

rcmsg_status_t pml_agree_result(const pml_agree_t *a, pml_agree_entry_t *all_p, uint32_t *ctx_p)
{
    for (int i = 0; a->err == RCMSG_OK && all_p != NULL && i < a->n; i++) {
        all_p[i] = a->all[i].e;
    }
    *ctx_p = a->id << 1;
    return a->err;
}

void pml_agree_free(pml_agree_t *a)
{
    if (a == NULL) {
        return;
    }
    want_set(a, false);
    if (!a->done) {
        ids.nonblocking -= a->nonblocking;
        let_go(a);
    }
    free(a->m);
    free(a->all);
    free(a->reqs);
    free(a);
}

rcmsg_status_t pml_ctx_agree(const char *what, rcmsg_comm_t comm, bool coll, const int *ranks,
                             int n, pml_agree_entry_t mine, pml_agree_entry_t *all_p,
                             uint32_t *ctx_p)
{
    pml_agree_t *a;
    unsigned idle = 0;
    rcmsg_status_t s =
        pml_agree_new(what, comm, coll, ranks, n, PML_TAG_SPLIT, UINT32_MAX, false, mine, &a);

    if (s != RCMSG_OK) {
        return s;
    }
    while (!pml_agree_advance(a)) {
        if (rcmsg_progress() == 0) {
            pml_idle(&idle);
        }
    }
    s = pml_agree_result(a, all_p, ctx_p);
    pml_agree_free(a);
    return s;
}
