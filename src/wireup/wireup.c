/* SPDX-License-Identifier: BSD-3-Clause */
/* Wireup through PMIx: job info, one address exchange, every endpoint up before init returns. */
#include "config.h"

#include "wireup.h"
#include "wireup_launcher.h"

#include "base/clock.h"
#include "base/config_table.h"
#include "base/log.h"
#include "btl_rc/rc_btl.h"
#include "btl_self/self_btl.h"
#include "btl_sm/sm_btl.h"

#include <pmix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WIREUP_KEY "rcmsg.addr"

enum { PH_PMIX, PH_OPEN, PH_EXCHANGE, PH_CONNECT, PH_TOTAL };

/* PMIx_Finalize was called in this process after a launched (not singleton) PMIx_Init: PMIx
 * cannot be initialized again (its job data is gone; PMIx_Get answers NOT-FOUND). */
static bool wireup_launcher_finalized;

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

/* A launcher variable that says this process is one of several, or NULL. */
static const char *multi_process_hint(void)
{
    static const char *const vars[] = {"SLURM_STEP_NUM_TASKS", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE"};
    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
        const char *v = rcmsg_config_foreign(vars[i]);
        if (v != NULL && atoi(v) > 1) {
            return vars[i];
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

static rcmsg_status_t wireup_publish(rcmsg_wireup_t *w, rcmsg_status_t open_status)
{
    size_t cap = rcmsg_rc_btl_addr_max(w->job.size) + 256, rc_len = 0, sm_len = 0, blen;
    uint8_t *rc_addr = malloc(cap), *sm_addr = malloc(256), *blob = malloc(cap + 512);
    rcmsg_wireup_section_t secs[2];
    int nsecs = 0;
    pmix_value_t val;
    pmix_status_t rc;
    rcmsg_status_t status = RCMSG_ERR_NO_MEMORY;

    if (rc_addr == NULL || sm_addr == NULL || blob == NULL) {
        goto out;
    }
    if (open_status == RCMSG_OK && w->rc != NULL) {
        rc_len = cap;
        status = w->rc->ops->addr_pack(w->rc, rc_addr, &rc_len);
        if (status != RCMSG_OK) {
            goto out;
        }
        secs[nsecs++] = (rcmsg_wireup_section_t){"rc", rc_addr, rc_len};
    }
    if (open_status == RCMSG_OK && w->sm != NULL) {
        sm_len = 256;
        status = w->sm->ops->addr_pack(w->sm, sm_addr, &sm_len);
        if (status != RCMSG_OK) {
            goto out;
        }
        secs[nsecs++] = (rcmsg_wireup_section_t){"sm", sm_addr, sm_len};
    }
    blen = rcmsg_wireup_blob_build(blob, cap + 512, open_status, secs, nsecs);
    val.type = PMIX_BYTE_OBJECT;
    val.data.bo.bytes = (char *)blob;
    val.data.bo.size = blen;
    rc = PMIx_Put(PMIX_GLOBAL, WIREUP_KEY, &val);
    if (rc == PMIX_SUCCESS) {
        rc = PMIx_Commit();
    }
    status = rc == PMIX_SUCCESS ? RCMSG_OK : RCMSG_ERR_LAUNCHER;
    if (rc != PMIX_SUCCESS) {
        rcmsg_error("PMIx_Put/Commit of the %zu-byte address failed: %s", blen,
                    PMIx_Error_string(rc));
    }
out:
    free(rc_addr);
    free(sm_addr);
    free(blob);
    return status;
}

/* Connects to one peer with the transport that reaches it: sm on this node, else rc. */
static rcmsg_status_t wireup_connect_peer(rcmsg_wireup_t *w, int peer, const void *blob, size_t len)
{
    rcmsg_status_t peer_status = RCMSG_OK, s_sm, s_rc;
    const void *sm_sec = NULL, *rc_sec = NULL;
    size_t sm_len = 0, rc_len = 0;

    s_sm = rcmsg_wireup_blob_section(blob, len, peer, "sm", &sm_sec, &sm_len, &peer_status);
    if (s_sm == RCMSG_ERR_PEER_DATA) {
        return s_sm;
    }
    s_rc = rcmsg_wireup_blob_section(blob, len, peer, "rc", &rc_sec, &rc_len, &peer_status);
    if (peer_status != RCMSG_OK) {
        rcmsg_error("peer %d failed in rcmsg_init: %s (%s); its own messages say why", peer,
                    rcmsg_strerror(peer_status), rcmsg_status_name(peer_status));
        return RCMSG_ERR_CONNECTION;
    }
    if (w->sm != NULL && s_sm == RCMSG_OK &&
        rcmsg_sm_addr_node_key(sm_sec, sm_len) == rcmsg_sm_node_key()) {
        w->peer_btl[peer] = w->sm;
        return w->sm->ops->connect(w->sm, peer, sm_sec, sm_len);
    }
    if (w->rc != NULL && s_rc == RCMSG_OK) {
        w->peer_btl[peer] = w->rc;
        return w->rc->ops->connect(w->rc, peer, rc_sec, rc_len);
    }
    rcmsg_error("no transport reaches peer %d: %s (RCMSG_TRANSPORTS=%s)", peer,
                w->rc == NULL ? "it needs rc, which this rank has not opened"
                              : "it has not opened rc",
                rcmsg_config_text(RCMSG_CFG_TRANSPORTS));
    return RCMSG_ERR_CONNECTION;
}

/* After the fence: every peer's blob, checked, and its QP connected. */
/* After the fence: every peer's blob, checked, and a transport connected to it. */
static rcmsg_status_t wireup_connect_all(rcmsg_wireup_t *w, double *get_ms_p)
{
    rcmsg_status_t status = RCMSG_OK;
    pmix_proc_t proc;
    double t_get = 0, t0;
    int nsm = 0, nrc = 0;

    for (int peer = 0; peer < w->job.size && status == RCMSG_OK; peer++) {
        pmix_value_t *val = NULL;
        pmix_status_t rc;

        if (peer == w->job.rank) {
            continue;
        }
        t0 = now_ms();
        PMIX_LOAD_PROCID(&proc, w->nspace, (pmix_rank_t)peer);
        status = rcmsg_wireup_launcher_get(w->launcher, &proc, WIREUP_KEY, &val, &rc);
        t_get += now_ms() - t0;
        if (status != RCMSG_OK || val->type != PMIX_BYTE_OBJECT) {
            rcmsg_error("no address from peer %d: PMIx_Get: %s%s", peer, PMIx_Error_string(rc),
                        status == RCMSG_ERR_TIMEOUT ? " (RCMSG_LAUNCHER_TIMEOUT expired)" : "");
            status = status != RCMSG_OK ? status : RCMSG_ERR_PEER_DATA;
        } else {
            status = wireup_connect_peer(w, peer, val->data.bo.bytes, val->data.bo.size);
            nsm += status == RCMSG_OK && w->peer_btl[peer] == w->sm;
            nrc += status == RCMSG_OK && w->peer_btl[peer] == w->rc;
        }
        if (val != NULL) {
            PMIX_VALUE_RELEASE(val);
        }
    }
    if (status == RCMSG_OK) {
        rcmsg_info("transports: self for this rank, sm for %d peer(s), rc for %d peer(s)", nsm,
                   nrc);
    }
    *get_ms_p = t_get;
    return status;
}

/* Which transports RCMSG_TRANSPORTS allows; an unknown name is an error. */
static rcmsg_status_t wireup_allowed(bool *sm_p, bool *rc_p)
{
    size_t n;
    char *const *items = rcmsg_config_list(RCMSG_CFG_TRANSPORTS, &n);

    *sm_p = *rc_p = false;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(items[i], "sm") == 0) {
            *sm_p = true;
        } else if (strcmp(items[i], "rc") == 0) {
            *rc_p = true;
        } else if (strcmp(items[i], "self") != 0) {
            rcmsg_error("RCMSG_TRANSPORTS: unknown transport '%s' (known: self, sm, rc)", items[i]);
            return RCMSG_ERR_CONFIG;
        }
    }
    return RCMSG_OK;
}

/* Opens the transports this rank needs: sm for local peers, rc for remote ones (or for local
 * ones too when sm is not allowed). A failure is returned for publishing. */
static rcmsg_status_t wireup_open(rcmsg_wireup_t *w)
{
    bool sm_ok, rc_ok;
    rcmsg_status_t s = wireup_allowed(&sm_ok, &rc_ok);
    bool remote = w->job.size > w->job.local_size;

    if (s != RCMSG_OK) {
        return s;
    }
    if (sm_ok && w->job.local_size > 1) {
        s = rcmsg_sm_btl_open(&w->job, &w->sm);
        if (s != RCMSG_OK) {
            w->sm = NULL;
            rcmsg_error("cannot open the sm transport (%s)", rcmsg_status_name(s));
            return s;
        }
    }
    if (w->job.size > 1 && (remote || w->sm == NULL)) {
        if (!rc_ok) {
            rcmsg_error("%s, but RCMSG_TRANSPORTS=%s excludes rc",
                        remote ? "peers run on other nodes" : "sm is not used for local peers",
                        rcmsg_config_text(RCMSG_CFG_TRANSPORTS));
            return RCMSG_ERR_CONFIG;
        }
        s = rcmsg_rc_btl_open(&w->job, &w->rc);
        if (s != RCMSG_OK) {
            w->rc = NULL;
            rcmsg_error("cannot open the rc transport (%s) but %s need it", rcmsg_status_name(s),
                        remote ? "peers on other nodes" : "local peers");
            return s;
        }
    }
    return RCMSG_OK;
}

/* ---- init and fini --------------------------------------------------------------------- */

static void wireup_release(rcmsg_wireup_t *w)
{
    if (w->rc != NULL) {
        w->rc->ops->close(w->rc);
    }
    if (w->sm != NULL) {
        w->sm->ops->close(w->sm);
    }
    if (w->self != NULL) {
        w->self->ops->close(w->self);
    }
    if (w->pmix_up) {
        PMIx_Finalize(NULL, 0);
        wireup_launcher_finalized = !w->singleton;
    }
    if (w->launcher != NULL) {
        rcmsg_wireup_launcher_stop(w->launcher); /* after PMIx_Finalize: no handler runs now */
        free(w->launcher);
    }
    free(w->peer_btl);
    free(w);
}

rcmsg_status_t rcmsg_wireup_init(rcmsg_status_t prior, rcmsg_wireup_t **w_p)
{
    rcmsg_wireup_t *w = calloc(1, sizeof(*w));
    rcmsg_status_t status, open_status = prior;
    double t0 = now_ms(), t;

    if (w == NULL || (w->launcher = calloc(1, sizeof(*w->launcher))) == NULL) {
        free(w);
        return RCMSG_ERR_NO_MEMORY;
    }
    status = wireup_pmix_init(w);
    if (status != RCMSG_OK) {
        goto err;
    }
    rcmsg_log_set_rank(w->job.rank);
    w->phase_ms[PH_PMIX] = now_ms() - t0;
    w->peer_btl = calloc((size_t)w->job.size, sizeof(*w->peer_btl));
    if (w->peer_btl == NULL) {
        status = RCMSG_ERR_NO_MEMORY;
        goto err;
    }
    status = rcmsg_self_btl_open(&w->job, &w->self);
    if (status != RCMSG_OK) {
        goto err;
    }
    w->peer_btl[w->job.rank] = w->self;

    t = now_ms();
    /* a failure here (or before) is published, not returned, so that no peer waits in the
     * fence for this rank and every peer learns why it fails */
    if (open_status == RCMSG_OK) {
        open_status = wireup_open(w);
    }
    w->phase_ms[PH_OPEN] = now_ms() - t;

    t = now_ms();
    if (!w->singleton) {
        status = wireup_publish(w, open_status);
        if (status == RCMSG_OK) {
            status = wireup_fence(w, true, "the address exchange of rcmsg_init");
        }
        if (status != RCMSG_OK) {
            goto err;
        }
    }
    w->phase_ms[PH_EXCHANGE] = now_ms() - t;

    t = now_ms();
    status = open_status;
    if (status == RCMSG_OK) {
        double get_ms = 0;
        status = wireup_connect_all(w, &get_ms);
        w->phase_ms[PH_EXCHANGE] += get_ms; /* PMIx_Get of each address is exchange time */
        t += get_ms;
    }
    /* every rank, whatever its own outcome, waits until all have connected: no message can
     * reach a QP still in INIT, and nobody is left waiting for a rank that gave up */
    if (!w->singleton) {
        rcmsg_status_t s = wireup_fence(w, false, "the closing barrier of rcmsg_init");
        if (status == RCMSG_OK) {
            status = s;
        }
    }
    w->phase_ms[PH_CONNECT] = now_ms() - t;
    if (status != RCMSG_OK) {
        goto err;
    }
    if (w->rc != NULL) {
        rcmsg_rc_btl_dump(w->rc, RCMSG_LOG_DEBUG);
    }
    w->phase_ms[PH_TOTAL] = now_ms() - t0;
    rcmsg_info("wireup of %d rank(s) in %.1f ms: pmix init %.1f, transport open %.1f, address "
               "exchange %.1f, qp transitions %.1f",
               w->job.size, w->phase_ms[PH_TOTAL], w->phase_ms[PH_PMIX], w->phase_ms[PH_OPEN],
               w->phase_ms[PH_EXCHANGE], w->phase_ms[PH_CONNECT]);
    *w_p = w;
    return RCMSG_OK;

err:
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

    if (w->rc != NULL) {
        status = w->rc->ops->flush(w->rc);
    }
    /* no rank tears its QPs down while a peer may still be sending to it */
    if (rcmsg_wireup_poll(w, NULL, NULL) != RCMSG_OK) {
        s = RCMSG_ERR_LAUNCHER; /* logged when noticed */
        rcmsg_warn("finalize without the closing barrier: the launcher is gone");
    } else if (peer_lost) {
        rcmsg_warn("finalize without the closing barrier: a peer was lost during the job");
    } else {
        s = wireup_fence(w, false, "the closing barrier of rcmsg_finalize");
    }
    if (status == RCMSG_OK) {
        status = s;
    }
    wireup_release(w);
    return status;
}
