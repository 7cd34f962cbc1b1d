/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Wireup: PMIx job information, one address exchange and the bring-up of every transport
 * endpoint before rcmsg_init() returns.
 *
 *   PMIx_Init -> job info -> open transports (rc: device, CQs, SRQ with receives posted, one
 *   QP per peer in INIT) -> one blob per process (PMIx_Put + PMIx_Commit) -> ONE fence that
 *   collects data -> every QP INIT -> RTR -> RTS.
 *
 * A rank that fails to open its transports still takes part in the fence, with its status in
 * its blob, so that every rank learns of the failure and none waits forever.
 */
#ifndef RCMSG_WIREUP_H
#define RCMSG_WIREUP_H

#include "btl/btl.h"
#include "btl/btl_component.h"

#include <stdbool.h>

typedef struct rcmsg_wireup {
    rcmsg_btl_job_t job;
    bool singleton;
    bool pmix_up;
    char nspace[256];
    char hostname[256];     /* PMIX_HOSTNAME of this rank */
    int node_id;            /* PMIX_NODEID of this rank, -1 when unknown */
    rcmsg_btl_set_t btls;   /* the opened transports (btl_component.h), by priority */
    rcmsg_btl_t **peer_btl; /* [job.size]: the transport that reaches each rank */
    const char *transports; /* RCMSG_TRANSPORTS as the user gave it, for messages */
    /* pmix init, transport open, exchange (publish, fence, gets), connect (with the closing
     * fence), total; then parts: publish and fence, the address gets, the closing fence */
    double phase_ms[8];
    int pmix_gets; /* PMIx_Get calls of rcmsg_init (job info and addresses) */
    /* addresses on first use (a transport's addr_on_demand, wireup_lazy.c): the collecting
     * fence is not collecting, the peers of deferred[] get lazy_btl without their address */
    bool lazy_fetch;
    bool *deferred;                         /* [job.size], or NULL: every address fetched at init */
    rcmsg_btl_t *lazy_btl;                  /* the transport that fetches them */
    struct rcmsg_wireup_launcher *launcher; /* bounded PMIx waits, liveness (wireup_launcher.h) */
    /* set by the layer above at its finalize: polled by the closing barrier of finalize, to
     * answer its peers meanwhile (NULL: nothing to answer) */
    void (*fini_poll)(void *arg);
    void *fini_poll_arg;
} rcmsg_wireup_t;

/* The opened transport of the component named name ("rc", ...), or NULL (for tests and
 * tools that use one transport directly). */
rcmsg_btl_t *rcmsg_wireup_btl(const rcmsg_wireup_t *w, const char *name);

/* Brings the job up; on error everything is released and the status returned. A failure of
 * this rank before wireup (prior: e.g. a bad RCMSG_* value) is published in its blob instead
 * of opening transports, so that every rank fails naming it rather than waiting for it. */
rcmsg_status_t rcmsg_wireup_init(rcmsg_status_t prior, rcmsg_wireup_t **w_p);

/* A barrier across the job through PMIx (no data). */
rcmsg_status_t rcmsg_wireup_barrier(rcmsg_wireup_t *w);

/* Flushes every transport, waits for every rank (barrier, bounded by RCMSG_LAUNCHER_TIMEOUT;
 * skipped when a peer or the launcher was lost, as it would never complete: with peer_lost the
 * pml has flushed, and parted from the survivors, already), closes transports, PMIx_Finalize. */
rcmsg_status_t rcmsg_wireup_fini(rcmsg_wireup_t *w, bool peer_lost);

/* Ends the whole job and exits this process with status (1-255), never returns: PMIx_Abort
 * of every rank of the job (the launcher ends them, whatever it keeps after a rank's exit),
 * then _exit. Bounded: the process exits within a few seconds whatever the launcher does.
 * Without a launcher (singleton, or w NULL) only this process exits. */
void rcmsg_wireup_abort(rcmsg_wireup_t *w, int status, const char *reason)
    __attribute__((noreturn));

/* Launcher liveness, and the launcher's news of other ranks; cheap enough to call from an idle
 * wait (rate-limited inside). RCMSG_ERR_LAUNCHER once the launcher is gone (the PMIx server
 * connection lost, or the launching process dead; logged once, saying why), else RCMSG_OK.
 * Each rank the launcher reported terminated since the last call is passed to
 * lost(arg, world_rank) once. */
typedef void (*rcmsg_wireup_lost_cb_t)(void *arg, int rank);
rcmsg_status_t rcmsg_wireup_poll(rcmsg_wireup_t *w, rcmsg_wireup_lost_cb_t lost, void *arg);

/* Parses a peer's wireup blob: the section named `name` (its data and length), and the
 * peer's status. Exposed for unit tests of malformed input. RCMSG_ERR_PEER_DATA on a bad
 * blob (logged, naming the peer); RCMSG_ERR_NOT_FOUND when the section is absent. */
rcmsg_status_t rcmsg_wireup_blob_section(const void *blob, size_t len, int peer, const char *name,
                                         const void **data_p, size_t *len_p,
                                         rcmsg_status_t *peer_status_p);

/* One transport's part of a blob. */
typedef struct {
    const char *name; /* at most 8 characters */
    const void *data;
    size_t len;
} rcmsg_wireup_section_t;

/* Builds a blob with the sections and a status into buf (at most cap bytes); returns its
 * length or 0 when cap is too small. For unit tests and for wireup itself. */
size_t rcmsg_wireup_blob_build(void *buf, size_t cap, rcmsg_status_t status,
                               const rcmsg_wireup_section_t *secs, int nsecs);

#endif /* RCMSG_WIREUP_H */
