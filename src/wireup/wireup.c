/* SPDX-License-Identifier: BSD-3-Clause */
/* Wireup through PMIx: job info, one address exchange, every endpoint up before init returns. */
#include "config.h"

#include "wireup.h"
#include "wireup_launcher.h"
#include "wireup_lazy.h"

#include "base/clock.h"
#include "base/config_table.h"
#include "base/dump_signal.h"
#include "base/hash.h"
#include "base/log.h"
#include "base/stats.h"
#include "base/watch.h"

#include <limits.h>
#include <pmix.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WIREUP_KEY "rcmsg.addr"

enum { PH_PMIX, PH_OPEN, PH_EXCHANGE, PH_CONNECT, PH_TOTAL, PH_FENCE, PH_GETS, PH_CLOSE };

/* PMIx_Finalize was called in this process after a launched (not singleton) PMIx_Init: PMIx
 * cannot be initialized again (its job data is gone; PMIx_Get answers NOT-FOUND). */
static bool wireup_launcher_finalized;

/* PMIx_Get calls of this process (job info and addresses; rcmsg_wireup_t.pmix_gets: those of
 * rcmsg_init); addresses fetched on first use may count from another thread (rc's) */
static _Atomic int wireup_pmix_gets;

static double now_ms(void)
{
    return (double)rcmsg_clock_us() / 1e3;
}

/* ---- PMIx ------------------------------------------------------------------------------ */

static rcmsg_status_t get_number(const pmix_proc_t *proc, const char *key, int *out_p)
{
    pmix_value_t *val = NULL;
    pmix_status_t rc = PMIx_Get(proc, key, NULL, 0, &val);
    int n = 0;

    wireup_pmix_gets++;

    if (rc != PMIX_SUCCESS || val == NULL) {
        rcmsg_error("PMIx_Get(%s) failed: %s", key, PMIx_Error_string(rc));
        return RCMSG_ERR_LAUNCHER;
    }
    PMIX_VALUE_GET_NUMBER(rc, val, n, int);
    PMIX_VALUE_RELEASE(val);
    if (rc != PMIX_SUCCESS) {
        rcmsg_error("PMIx key %s is not a number", key);
        return RCMSG_ERR_LAUNCHER;
    }
    *out_p = n;
    return RCMSG_OK;
}

/* The node this rank runs on, as the launcher names it (both keys are optional). */
static void wireup_node(rcmsg_wireup_t *w, const pmix_proc_t *me)
{
    pmix_value_t *val = NULL;
    pmix_status_t rc;

    w->node_id = -1;
    wireup_pmix_gets += 2;
    rc = PMIx_Get(me, PMIX_NODEID, NULL, 0, &val);
    if (rc == PMIX_SUCCESS && val != NULL) {
        PMIX_VALUE_GET_NUMBER(rc, val, w->node_id, int);
        PMIX_VALUE_RELEASE(val);
        val = NULL;
    }
    rc = PMIx_Get(me, PMIX_HOSTNAME, NULL, 0, &val);
    if (rc == PMIX_SUCCESS && val != NULL && val->type == PMIX_STRING) {
        snprintf(w->hostname, sizeof(w->hostname), "%s", val->data.string);
    }
    if (val != NULL) {
        PMIX_VALUE_RELEASE(val);
    }
    rcmsg_info("rank %d of %d, local rank %d of %d, node %d (%s), namespace %s", w->job.rank,
               w->job.size, w->job.local_rank, w->job.local_size, w->node_id,
               w->hostname[0] ? w->hostname : "no hostname from the launcher", w->nspace);
}

/* The launchers' variables for the job's size, the most specific first: Open MPI's mpirun and
 * Hydra set theirs in the processes they start, while a job step's SLURM_STEP_NUM_TASKS may be
 * inherited from an outer step (mpirun's daemons under Slurm, mpiexec inside srun --pty). */
static const char *const launcher_size_vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE",
                                                 "SLURM_STEP_NUM_TASKS"};

/* launcher_size_vars[i]'s value: a positive count, or 0 (unset, or not a count) */
static long launcher_size_of(size_t i)
{
    const char *v = rcmsg_config_foreign(launcher_size_vars[i]);
    char *end;
    long n = v != NULL ? strtol(v, &end, 10) : 0;

    return v != NULL && end != v && *end == '\0' && n > 0 && n <= INT_MAX ? n : 0;
}

int rcmsg_launcher_size(void)
{
    for (size_t i = 0; i < sizeof(launcher_size_vars) / sizeof(launcher_size_vars[0]); i++) {
        long n = launcher_size_of(i);

        if (n > 0) {
            return (int)n;
        }
    }
    return rcmsg_config_foreign("PMIX_NAMESPACE") == NULL ? 1 : 0;
}

/* A launcher variable that says this process is one of several (any of them), or NULL. */
static const char *multi_process_hint(void)
{
    for (size_t i = 0; i < sizeof(launcher_size_vars) / sizeof(launcher_size_vars[0]); i++) {
        if (launcher_size_of(i) > 1) {
            return launcher_size_vars[i];
        }
    }
    return NULL;
}

static rcmsg_status_t wireup_pmix_init(rcmsg_wireup_t *w)
{
    pmix_proc_t me, wild;
    pmix_status_t rc;
    const char *hint;

    if (wireup_launcher_finalized) {
        rcmsg_error("rcmsg_init after rcmsg_finalize (or after a failed rcmsg_init) is not "
                    "supported under a launcher: PMIx cannot be re-initialized in a process; "
                    "call rcmsg_init once per process");
        return RCMSG_ERR_STATE;
    }
    rc = PMIx_Init(&me, NULL, 0);
    if (rc == PMIX_SUCCESS) {
        w->pmix_up = true;
        snprintf(w->nspace, sizeof(w->nspace), "%s", me.nspace);
        w->job.rank = (int)me.rank;
        w->job.id = rcmsg_hash_bytes64(w->nspace, strlen(w->nspace)); /* the CM's job check */
        PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
        if (get_number(&wild, PMIX_JOB_SIZE, &w->job.size) != RCMSG_OK ||
            get_number(&me, PMIX_LOCAL_RANK, &w->job.local_rank) != RCMSG_OK ||
            get_number(&wild, PMIX_LOCAL_SIZE, &w->job.local_size) != RCMSG_OK) {
            return RCMSG_ERR_LAUNCHER;
        }
        if (w->job.size < 1 || w->job.rank < 0 || w->job.rank >= w->job.size) {
            rcmsg_error("PMIx gave rank %d of job size %d", w->job.rank, w->job.size);
            return RCMSG_ERR_LAUNCHER;
        }
        wireup_node(w, &me);
        return rcmsg_wireup_launcher_start(w->launcher, &me, w->job.size);
    }
    hint = multi_process_hint();
    if (hint != NULL) {
        rcmsg_error("%s=%s says this is one of several processes, but no PMIx server answered "
                    "(PMIx_Init: %s): under Slurm run 'srun --mpi=pmix', or start the job with "
                    "Open MPI's mpirun",
                    hint, rcmsg_config_foreign(hint), PMIx_Error_string(rc));
        if (rc == PMIX_ERR_UNREACH) {
            PMIx_Finalize(NULL, 0);
        }
        return RCMSG_ERR_LAUNCHER;
    }
    if (rc == PMIX_ERR_UNREACH && rcmsg_config_foreign("PMIX_NAMESPACE") == NULL) {
        /* no launcher: a 1-process job (PMIx itself stays usable as a singleton) */
        w->pmix_up = true;
        w->singleton = true;
        w->job = (rcmsg_btl_job_t){.rank = 0, .size = 1, .local_rank = 0, .local_size = 1};
        rcmsg_info("no PMIx server: running as a singleton (1-process job)");
        return RCMSG_OK;
    }
    rcmsg_error("PMIx_Init failed: %s%s", PMIx_Error_string(rc),
                rcmsg_config_foreign("PMIX_NAMESPACE") != NULL
                    ? " (PMIX_NAMESPACE is set: is the launcher's PMIx server still alive?)"
                    : "");
    return RCMSG_ERR_LAUNCHER;
}

static rcmsg_status_t wireup_fence(rcmsg_wireup_t *w, bool collect, const char *what)
{
    if (w->singleton) {
        return RCMSG_OK;
    }
    return rcmsg_wireup_launcher_fence(w->launcher, collect, what);
}

/* ---- transports ------------------------------------------------------------------------ */

/* Room for the blob's header and for each section's header (the codec's are a few bytes). */
#define WIREUP_BLOB_SLACK 64

/* This rank's addresses during init: one section per opened transport. */
typedef struct {
    rcmsg_btl_section_t secs[RCMSG_BTL_MAX];
    int n;
    uint8_t *buf;
} wireup_addrs_t;

/* Packs the address of every opened transport into addrs (freed by the caller). */
static rcmsg_status_t wireup_pack(rcmsg_wireup_t *w, wireup_addrs_t *addrs)
{
    size_t cap = 0, used = 0;

    for (int i = 0; i < w->btls.n; i++) {
        cap += w->btls.btls[i]->component->addr_max(&w->job);
    }
    addrs->buf = malloc(cap > 0 ? cap : 1);
    if (addrs->buf == NULL) {
        rcmsg_error("no memory to pack the transports' addresses (%zu bytes)", cap);
        return RCMSG_ERR_NO_MEMORY;
    }
    for (int i = 0; i < w->btls.n; i++) {
        rcmsg_btl_t *btl = w->btls.btls[i];
        size_t len = btl->component->addr_max(&w->job);
        rcmsg_status_t s = btl->ops->addr_pack(btl, addrs->buf + used, &len);

        if (s != RCMSG_OK) {
            rcmsg_error("cannot pack the address of the %s transport (%s)", btl->component->name,
                        rcmsg_status_name(s));
            return s;
        }
        addrs->secs[addrs->n++] =
            (rcmsg_btl_section_t){btl->component->name, addrs->buf + used, len};
        used += len;
    }
    return RCMSG_OK;
}

/* Puts blen bytes of blob under this rank's key and commits it. */
static rcmsg_status_t wireup_put(uint8_t *blob, size_t blen)
{
    pmix_value_t val;
    pmix_status_t rc;

    val.type = PMIX_BYTE_OBJECT;
    val.data.bo.bytes = (char *)blob;
    val.data.bo.size = blen;
    rc = PMIx_Put(PMIX_GLOBAL, WIREUP_KEY, &val);
    if (rc == PMIX_SUCCESS) {
        rc = PMIx_Commit();
    }
    if (rc != PMIX_SUCCESS) {
        rcmsg_error("PMIx_Put/Commit of the %zu-byte address failed: %s", blen,
                    PMIx_Error_string(rc));
        return RCMSG_ERR_LAUNCHER;
    }
    return RCMSG_OK;
}

/* Puts this rank's blob: its addresses and the status. When *status_p is a failure, or the
 * blob cannot be built, the blob carries only the failure (then in *status_p), so that the
 * peers learn it at once instead of waiting for this rank. */
static rcmsg_status_t wireup_publish(const wireup_addrs_t *addrs, rcmsg_status_t *status_p)
{
    rcmsg_wireup_section_t secs[RCMSG_BTL_MAX];
    int nsecs = *status_p == RCMSG_OK ? addrs->n : 0;
    size_t cap = WIREUP_BLOB_SLACK, blen = 0;
    uint8_t *blob, failed[WIREUP_BLOB_SLACK];
    rcmsg_status_t s;

    for (int i = 0; i < nsecs; i++) {
        secs[i] =
            (rcmsg_wireup_section_t){addrs->secs[i].name, addrs->secs[i].data, addrs->secs[i].len};
        cap += WIREUP_BLOB_SLACK + secs[i].len;
    }
    blob = malloc(cap);
    if (blob == NULL) {
        rcmsg_error("no memory for the %zu-byte address blob", cap);
        *status_p = RCMSG_ERR_NO_MEMORY;
    } else if ((blen = rcmsg_wireup_blob_build(blob, cap, *status_p, secs, nsecs)) == 0) {
        rcmsg_error("the address blob of %d section(s) does not fit %zu bytes", nsecs, cap);
        *status_p = RCMSG_ERR_STATE;
    }
    if (blen == 0) { /* the failure alone: no sections, it fits */
        blen = rcmsg_wireup_blob_build(failed, sizeof(failed), *status_p, NULL, 0);
        s = wireup_put(failed, blen);
    } else {
        s = wireup_put(blob, blen);
    }
    free(blob);
    return s;
}

/* Packs this rank's addresses (when *open_status_p is RCMSG_OK), publishes them with the
 * status and waits in the fence that collects every rank's. A failure to pack or publish the
 * addresses becomes this rank's *open_status_p and is published like a failure to open;
 * the return is a failure of the exchange itself (the launcher). */
static rcmsg_status_t wireup_exchange(rcmsg_wireup_t *w, rcmsg_status_t *open_status_p,
                                      wireup_addrs_t *own)
{
    rcmsg_status_t status;

    if (*open_status_p == RCMSG_OK) {
        *open_status_p = wireup_pack(w, own);
    }
    if (w->singleton) {
        return RCMSG_OK;
    }
    status = wireup_publish(own, open_status_p);
    if (status == RCMSG_OK) {
        /* addresses fetched on first use: the fence only says that every rank published; the
         * data is not collected (each get asks the launcher for one peer's) */
        status = wireup_fence(w, !w->lazy_fetch, "the address exchange of rcmsg_init");
    }
    return status;
}

/* The sections of a peer's blob named after this rank's opened transports, and its status. */
rcmsg_status_t rcmsg_wireup_peer_sections(rcmsg_wireup_t *w, int peer, const void *blob, size_t len,
                                          rcmsg_btl_section_t *secs, int *nsecs_p)
{
    rcmsg_status_t peer_status = RCMSG_OK;
    int n = 0;

    for (int i = 0; i < w->btls.n; i++) {
        const char *name = w->btls.btls[i]->component->name;
        const void *data = NULL;
        size_t dlen = 0;
        rcmsg_status_t s =
            rcmsg_wireup_blob_section(blob, len, peer, name, &data, &dlen, &peer_status);

        if (s == RCMSG_ERR_PEER_DATA) {
            return s;
        }
        if (s == RCMSG_OK) {
            secs[n++] = (rcmsg_btl_section_t){name, data, dlen};
        }
    }
    if (peer_status != RCMSG_OK) {
        rcmsg_error("peer %d failed in rcmsg_init: %s (%s); its own messages say why", peer,
                    rcmsg_strerror(peer_status), rcmsg_status_name(peer_status));
        return RCMSG_ERR_CONNECTION;
    }
    *nsecs_p = n;
    return RCMSG_OK;
}

static const rcmsg_btl_section_t *section_named(const rcmsg_btl_section_t *secs, int nsecs,
                                                const char *name)
{
    int i = 0;

    while (i < nsecs - 1 && strcmp(secs[i].name, name) != 0) {
        i++;
    }
    return &secs[i]; /* the one rcmsg_btl_select() found: it is there */
}

/* Connects to one peer with the reachable transport of highest priority. */
static rcmsg_status_t wireup_connect_peer(rcmsg_wireup_t *w, int peer,
                                          const rcmsg_btl_section_t *secs, int nsecs)
{
    int i = rcmsg_btl_select(&w->btls, peer, secs, nsecs);
    const rcmsg_btl_section_t *sec;
    char why[160];

    if (i < 0) {
        rcmsg_btl_unreached_why(&rcmsg_btl_table, &w->btls, secs, nsecs, why, sizeof(why));
        rcmsg_error("no transport reaches peer %d: %s (RCMSG_TRANSPORTS=%s)", peer, why,
                    w->transports);
        return RCMSG_ERR_CONNECTION;
    }
    w->peer_btl[peer] = w->btls.btls[i];
    sec = section_named(secs, nsecs, w->btls.btls[i]->component->name);
    return w->btls.btls[i]->ops->connect(w->btls.btls[i], peer, sec->data, sec->len);
}

rcmsg_status_t rcmsg_wireup_get_addr(rcmsg_wireup_t *w, int peer, pmix_value_t **val_p)
{
    pmix_status_t rc;
    pmix_proc_t proc;
    rcmsg_status_t status;

    PMIX_LOAD_PROCID(&proc, w->nspace, (pmix_rank_t)peer);
    wireup_pmix_gets++;
    *val_p = NULL;
    status = rcmsg_wireup_launcher_get(w->launcher, &proc, WIREUP_KEY, val_p, &rc);
    if (status != RCMSG_OK || (*val_p)->type != PMIX_BYTE_OBJECT) {
        rcmsg_error("no address from peer %d: PMIx_Get: %s%s", peer, PMIx_Error_string(rc),
                    status == RCMSG_ERR_TIMEOUT ? " (RCMSG_LAUNCHER_TIMEOUT expired)" : "");
        return status != RCMSG_OK ? status : RCMSG_ERR_PEER_DATA;
    }
    rcmsg_debug("address of peer %d: %zu bytes", peer, (*val_p)->data.bo.size); /* O(1) each */
    return RCMSG_OK;
}

/* A peer's blob from PMIx, parsed, and a transport connected to it. */
static rcmsg_status_t wireup_fetch_connect(rcmsg_wireup_t *w, int peer, double *get_ms_p)
{
    rcmsg_btl_section_t secs[RCMSG_BTL_MAX];
    int nsecs = 0;
    pmix_value_t *val = NULL;
    double t0 = now_ms();
    rcmsg_status_t status = rcmsg_wireup_get_addr(w, peer, &val);

    *get_ms_p += now_ms() - t0;
    if (status == RCMSG_OK) {
        status = rcmsg_wireup_peer_sections(w, peer, val->data.bo.bytes, val->data.bo.size, secs,
                                            &nsecs);
    }
    if (status == RCMSG_OK) {
        status = wireup_connect_peer(w, peer, secs, nsecs);
    }
    if (val != NULL) {
        PMIX_VALUE_RELEASE(val);
    }
    return status;
}

/* "self for this rank, sm for 3 peer(s), rc for 0 peer(s)": every component of the table. */
static void wireup_log_choice(rcmsg_wireup_t *w)
{
    char line[256] = "";
    size_t used = 0;

    for (int c = 0; c < rcmsg_btl_table.n && used < sizeof(line); c++) {
        const rcmsg_btl_component_t *comp = rcmsg_btl_table.comps[c];
        bool mine = w->peer_btl[w->job.rank]->component == comp;
        int n = 0;

        for (int peer = 0; peer < w->job.size; peer++) {
            n += peer != w->job.rank && w->peer_btl[peer]->component == comp;
        }
        used += (size_t)snprintf(line + used, sizeof(line) - used, "%s%s for %s", c ? ", " : "",
                                 comp->name, mine ? "this rank" : "");
        if (used < sizeof(line) && (!mine || n > 0)) {
            used += (size_t)snprintf(line + used, sizeof(line) - used, "%s%d peer(s)",
                                     mine ? " and " : "", n);
        }
    }
    rcmsg_info("transports: %s", line);
}

/* Drives the connects every transport started until all are done or one failed (each
 * transport bounds its handshakes: rc, RCMSG_CM_TIMEOUT x RCMSG_CM_RETRIES). A rank that
 * waits for its peers yields the CPU between rounds: with more ranks than cores (a node
 * oversubscribed, an emulated guest) the peers it waits for need that CPU to answer. */
static rcmsg_status_t wireup_connect_finish(rcmsg_wireup_t *w)
{
    bool pending = false;

    do {
        if (pending) {
            sched_yield();
        }
        pending = false;
        for (int i = 0; i < w->btls.n; i++) {
            rcmsg_status_t s = w->btls.btls[i]->ops->connect_progress(w->btls.btls[i]);
            if (s != RCMSG_OK && s != RCMSG_INPROGRESS) {
                return s;
            }
            pending |= s == RCMSG_INPROGRESS;
        }
    } while (pending);
    return RCMSG_OK;
}

/* Between address fetches: the transports answer the handshakes of the peers given so far. */
static void wireup_connect_poll(rcmsg_wireup_t *w)
{
    for (int i = 0; i < w->btls.n; i++) {
        if (w->btls.btls[i]->ops->connect_poll != NULL) {
            w->btls.btls[i]->ops->connect_poll(w->btls.btls[i]);
        }
    }
}

/* After the fence: every peer's blob, checked, and a transport connected to it (polled between
 * the fetches); this rank connects to itself with its own addresses. */
static rcmsg_status_t wireup_connect_all(rcmsg_wireup_t *w, const wireup_addrs_t *own,
                                         double *get_ms_p)
{
    rcmsg_status_t status = wireup_connect_peer(w, w->job.rank, own->secs, own->n);

    *get_ms_p = 0;
    for (int peer = 0; peer < w->job.size && status == RCMSG_OK; peer++) {
        if (peer == w->job.rank) {
            continue;
        }
        if (w->deferred != NULL && w->deferred[peer]) {
            w->peer_btl[peer] = w->lazy_btl; /* its address on first use */
            continue;
        }
        status = wireup_fetch_connect(w, peer, get_ms_p);
        wireup_connect_poll(w);
    }
    if (status == RCMSG_OK) {
        status = wireup_connect_finish(w);
    }
    if (status == RCMSG_OK) {
        wireup_log_choice(w);
    }
    return status;
}

/* During the closing fences of init and finalize: the transports keep answering handshakes of
 * peers that are not done yet (a lost last packet is sent again by the peer and must be
 * answered; a peer connects lazily, or recycles a connection). */
static void wireup_fence_poll(void *arg)
{
    rcmsg_wireup_t *w = arg;

    for (int i = 0; i < w->btls.n; i++) {
        w->btls.btls[i]->ops->connect_progress(w->btls.btls[i]);
    }
}

/* The closing fence of finalize: as wireup_fence_poll, the layer above answers its peers
 * (fini_poll: a cancel asked of this rank, a message it refuses), and a SIGUSR1 prints what is left
 * (the pml's requests, messages and communicators are released by then): the fence waited
 * for and the transports' state (rcmsg_info --dump). */
static void wireup_fini_poll(void *arg)
{
    rcmsg_wireup_t *w = arg;

    wireup_fence_poll(w);
    if (w->fini_poll != NULL) {
        w->fini_poll(w->fini_poll_arg);
    }
    if (!rcmsg_dump_signal_take()) {
        return;
    }
    rcmsg_log_dump("begin (SIGUSR1)");
    rcmsg_log_dump("finalize: waiting in the closing barrier of rcmsg_finalize for every rank "
                   "(at most RCMSG_LAUNCHER_TIMEOUT=%s); requests and communicators released",
                   w->launcher->timeout_text);
    for (int i = 0; i < w->btls.n; i++) {
        rcmsg_btl_t *btl = w->btls.btls[i];

        if (btl->component != NULL && btl->component->dump_state != NULL) {
            btl->component->dump_state(btl);
        }
    }
    rcmsg_log_dump("end");
}

/* Opens the transports this rank needs (btl_component.h: by priority, each allowed one that
 * serves ranks no opened one serves yet). A failure is returned for publishing. */
static rcmsg_status_t wireup_open(rcmsg_wireup_t *w)
{
    size_t n;
    char *const *items = rcmsg_config_list(RCMSG_CFG_TRANSPORTS, &n);
    unsigned allowed;
    rcmsg_status_t s = rcmsg_btl_allowed(&rcmsg_btl_table, items, n, &allowed);

    w->transports = rcmsg_config_text(RCMSG_CFG_TRANSPORTS);
    if (s != RCMSG_OK) {
        return s;
    }
    s = rcmsg_btl_open_all(&rcmsg_btl_table, &w->job, allowed, w->transports, &w->btls);
    /* the watch thread (base/watch.h): a launched job's launcher and local peers are noticed
     * lost while the application computes; one that cannot start fails init, published */
    if (s == RCMSG_OK && !w->singleton &&
        rcmsg_config_enum(RCMSG_CFG_ASYNC_PROGRESS) != RCMSG_ASYNC_PROGRESS_NO) {
        char what[64];
        snprintf(what, sizeof(what), "RCMSG_ASYNC_PROGRESS=%s",
                 rcmsg_config_text(RCMSG_CFG_ASYNC_PROGRESS));
        s = rcmsg_watch_start(what);
    }
    return s;
}

rcmsg_btl_t *rcmsg_wireup_btl(const rcmsg_wireup_t *w, const char *name)
{
    for (int i = 0; i < w->btls.n; i++) {
        if (strcmp(w->btls.btls[i]->component->name, name) == 0) {
            return w->btls.btls[i];
        }
    }
    return NULL;
}

/* ---- init and fini --------------------------------------------------------------------- */

static void wireup_release(rcmsg_wireup_t *w)
{
    rcmsg_watch_stop(); /* before the transports close: it watches their peers */
    rcmsg_btl_close_all(&w->btls);
    if (w->pmix_up) {
        PMIx_Finalize(NULL, 0);
        wireup_launcher_finalized = !w->singleton;
    }
    if (w->launcher != NULL) {
        rcmsg_wireup_launcher_stop(w->launcher); /* after PMIx_Finalize: no handler runs now */
        free(w->launcher);
    }
    free(w->peer_btl);
    free(w->deferred);
    free(w);
}

rcmsg_status_t rcmsg_wireup_init(rcmsg_status_t prior, rcmsg_wireup_t **w_p)
{
    rcmsg_wireup_t *w = calloc(1, sizeof(*w));
    wireup_addrs_t own = {.n = 0};
    rcmsg_status_t status, open_status = prior;
    double t0 = now_ms(), t;

    if (w == NULL || (w->launcher = calloc(1, sizeof(*w->launcher))) == NULL) {
        free(w);
        return RCMSG_ERR_NO_MEMORY;
    }
    wireup_pmix_gets = 0;
    status = wireup_pmix_init(w);
    if (status != RCMSG_OK) {
        goto err;
    }
    rcmsg_log_set_rank(w->job.rank);
    w->phase_ms[PH_PMIX] = now_ms() - t0;
    w->peer_btl = calloc((size_t)w->job.size, sizeof(*w->peer_btl));
    if (w->peer_btl == NULL || rcmsg_stats_init(w->job.rank, w->job.size) != 0) {
        status = RCMSG_ERR_NO_MEMORY;
        goto err;
    }
    t = now_ms();
    /* a failure here (or before) is published, not returned, so that no peer waits in the
     * fence for this rank and every peer learns why it fails */
    if (open_status == RCMSG_OK) {
        open_status = rcmsg_stats_file_check(); /* at init: not a long job's counters lost */
    }
    w->lazy_fetch = !w->singleton && rcmsg_wireup_lazy_wanted(w);
    if (open_status == RCMSG_OK) {
        open_status = wireup_open(w);
    }
    if (open_status == RCMSG_OK && w->lazy_fetch) {
        open_status = rcmsg_wireup_lazy_plan(w);
    }
    w->phase_ms[PH_OPEN] = now_ms() - t;

    t = now_ms();
    status = wireup_exchange(w, &open_status, &own);
    if (status != RCMSG_OK) {
        goto err;
    }
    w->phase_ms[PH_EXCHANGE] = w->phase_ms[PH_FENCE] = now_ms() - t;

    t = now_ms();
    status = open_status;
    if (status == RCMSG_OK) {
        double get_ms = 0;
        status = wireup_connect_all(w, &own, &get_ms);
        w->phase_ms[PH_EXCHANGE] += get_ms; /* PMIx_Get of each address is exchange time */
        w->phase_ms[PH_GETS] = get_ms;
        t += get_ms;
    }
    /* every rank, whatever its own outcome, waits until all have connected: no message can
     * reach a QP still in INIT, and nobody is left waiting for a rank that gave up */
    w->phase_ms[PH_CLOSE] = now_ms();
    if (!w->singleton) {
        rcmsg_status_t s = rcmsg_wireup_launcher_fence_poll(
            w->launcher, false, "the closing barrier of rcmsg_init",
            status == RCMSG_OK ? wireup_fence_poll : NULL, w);
        if (status == RCMSG_OK) {
            status = s;
        }
    }
    w->phase_ms[PH_CONNECT] = now_ms() - t;
    w->phase_ms[PH_CLOSE] = now_ms() - w->phase_ms[PH_CLOSE];
    w->pmix_gets += wireup_pmix_gets;
    if (status != RCMSG_OK) {
        goto err;
    }
    free(own.buf);
    rcmsg_btl_dump_all(&w->btls, RCMSG_LOG_DEBUG);
    w->phase_ms[PH_TOTAL] = now_ms() - t0;
    rcmsg_info("wireup of %d rank(s) in %.1f ms: pmix init %.1f, transport open %.1f, address "
               "exchange %.1f (publish and fence %.1f, %d PMIx_Get %.1f), connect %.1f (of it the "
               "closing fence %.1f)",
               w->job.size, w->phase_ms[PH_TOTAL], w->phase_ms[PH_PMIX], w->phase_ms[PH_OPEN],
               w->phase_ms[PH_EXCHANGE], w->phase_ms[PH_FENCE], w->pmix_gets, w->phase_ms[PH_GETS],
               w->phase_ms[PH_CONNECT], w->phase_ms[PH_CLOSE]);
    *w_p = w;
    return RCMSG_OK;

err:
    free(own.buf);
    wireup_release(w);
    return status;
}

rcmsg_status_t rcmsg_wireup_poll(rcmsg_wireup_t *w, rcmsg_wireup_lost_cb_t lost, void *arg)
{
    if (w == NULL || w->launcher == NULL) {
        return RCMSG_OK;
    }
    return rcmsg_wireup_launcher_check(w->launcher, lost, arg);
}

rcmsg_status_t rcmsg_wireup_barrier(rcmsg_wireup_t *w)
{
    return wireup_fence(w, false, "a barrier through the launcher");
}

rcmsg_status_t rcmsg_wireup_fini(rcmsg_wireup_t *w, bool peer_lost)
{
    rcmsg_status_t status = RCMSG_OK, s = RCMSG_OK;

    for (int i = 0; i < w->btls.n && !peer_lost; i++) { /* else the pml flushed, then parted */
        rcmsg_status_t f = w->btls.btls[i]->ops->flush(w->btls.btls[i]);
        status = status == RCMSG_OK ? f : status;
    }
    /* no rank tears its QPs down while a peer may still be sending to it */
    if (rcmsg_wireup_poll(w, NULL, NULL) != RCMSG_OK) {
        s = RCMSG_ERR_LAUNCHER; /* logged when noticed */
        rcmsg_warn("finalize without the closing barrier: the launcher is gone");
    } else if (peer_lost) {
        rcmsg_debug("finalize without the closing barrier: a peer was lost (the pml said which)");
    } else if (!w->singleton) {
        /* the transports keep answering handshakes meanwhile: a peer that still finishes its
         * work may need a connection to this rank (rc's lazy connect) */
        s = rcmsg_wireup_launcher_fence_poll(
            w->launcher, false, "the closing barrier of rcmsg_finalize", wireup_fini_poll, w);
    }
    if (status == RCMSG_OK) {
        status = s;
    }
    wireup_release(w);
    return status;
}
