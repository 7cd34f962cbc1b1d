/* SPDX-License-Identifier: BSD-3-Clause */
/* rcmsg_init / rcmsg_finalize and the process-wide state. */
#include "config.h"

#include "core.h"
#include "core_progress.h"

#include "base/config_table.h"
#include "base/dump_signal.h"
#include "base/event.h"
#include "base/log.h"
#include "base/mt.h"
#include "base/stats.h"
#include "base/topo.h"
#include "collectives/coll.h"
#include "pml/pml.h"

#include <time.h>

static rcmsg_wireup_t *core_wireup;
static int core_thread_level; /* granted by rcmsg_init_thread (rcmsg.h): read-only meanwhile */

rcmsg_wireup_t *rcmsg_core_wireup(void)
{
    return core_wireup;
}

rcmsg_status_t rcmsg_init(void)
{
    int provided;

    return rcmsg_init_thread(RCMSG_THREAD_SINGLE, &provided);
}

rcmsg_status_t rcmsg_init_thread(int required, int *provided)
{
    rcmsg_status_t status;
    int taken;

    if (core_wireup != NULL) {
        rcmsg_error("rcmsg_init called twice");
        return RCMSG_ERR_STATE;
    }
    if (provided == NULL || required < RCMSG_THREAD_SINGLE || required > RCMSG_THREAD_MULTIPLE) {
        rcmsg_error("rcmsg_init_thread: %s", provided == NULL
                                                 ? "provided is NULL"
                                                 : "required is not an RCMSG_THREAD_* level");
        return RCMSG_ERR_INVALID_PARAM;
    }
    /* the lock is on before anything runs (btl_rc's threads start in the pml's init); with
     * RCMSG_ASYNC_PROGRESS=full at every level (the progress thread calls in), the level
     * granted staying the one asked */
    core_thread_level = required;
    status = rcmsg_config_load(NULL);
    rcmsg_mt_on = required == RCMSG_THREAD_MULTIPLE ||
                  (status == RCMSG_OK &&
                   rcmsg_config_enum(RCMSG_CFG_ASYNC_PROGRESS) == RCMSG_ASYNC_PROGRESS_FULL);
    taken = rcmsg_mt_enter();
    if (status != RCMSG_OK) {
        rcmsg_error("rcmsg_init: invalid RCMSG_* settings (see above; rcmsg_info lists them)");
    } else if (rcmsg_config_enum(RCMSG_CFG_ASYNC_PROGRESS) == RCMSG_ASYNC_PROGRESS_FULL) {
        status = rcmsg_core_progress_start(); /* parked until the pml is up; logs a failure */
    }
    /* a bad setting still takes part in wireup (as a failure), so no peer waits for this rank */
    status = rcmsg_wireup_init(status, &core_wireup);
    if (status == RCMSG_OK) {
        status = rcmsg_pml_init(core_wireup);
        if (status == RCMSG_OK) {
            rcmsg_coll_init();
            rcmsg_event_deliver(); /* the connections init made */
            rcmsg_core_progress_go();
        } else {
            rcmsg_pml_fini();
            rcmsg_wireup_fini(core_wireup, false);
            rcmsg_pml_fini_recv_end();
        }
    }
    if (status != RCMSG_OK) {
        rcmsg_core_progress_stop();
        core_wireup = NULL;
        rcmsg_error("rcmsg_init failed: %s", rcmsg_strerror(status));
        rcmsg_event_clear();
        rcmsg_stats_fini();
        rcmsg_topo_release();
        rcmsg_config_unload();
        rcmsg_dump_signal_restore();
        core_thread_level = RCMSG_THREAD_SINGLE;
        rcmsg_mt_on = false;
    }
    *provided = core_thread_level;
    rcmsg_mt_leave(&taken);
    return status;
}

rcmsg_status_t rcmsg_query_thread(int *provided)
{
    if (provided == NULL) {
        rcmsg_error("rcmsg_query_thread: provided is NULL");
        return RCMSG_ERR_INVALID_PARAM;
    }
    *provided = core_thread_level;
    return RCMSG_OK;
}

void rcmsg_thread_enter(void)
{
    (void)rcmsg_mt_enter();
}

void rcmsg_thread_leave(void)
{
    const int taken = rcmsg_mt_depth > 0; /* (rcmsg_mt_on is cleared by the finalize inside) */

    rcmsg_mt_leave(&taken);
}

void rcmsg_thread_pause(void)
{
    rcmsg_mt_pause(true);
}

void rcmsg_thread_nap(unsigned us)
{
    struct timespec ts = {(time_t)(us / 1000000), (long)(us % 1000000) * 1000};
    unsigned depth = rcmsg_mt_suspend();

    nanosleep(&ts, NULL);
    rcmsg_mt_resume(depth);
}

/* A SIGUSR1 that no wait of finalize printed (it came after the last one): nothing is left. */
static void core_dump_last(rcmsg_status_t status)
{
    if (rcmsg_dump_signal_take()) {
        rcmsg_log_dump("begin (SIGUSR1)");
        rcmsg_log_dump("finalize: everything released; rcmsg_finalize returns %s",
                       rcmsg_status_name(status));
        rcmsg_log_dump("end");
    }
}

rcmsg_status_t rcmsg_finalize(void)
{
    rcmsg_status_t status, s;
    bool peer_lost;
    RCMSG_MT_GUARD(); /* (let go at the return: after rcmsg_mt_on is cleared) */

    if (core_wireup == NULL) {
        return RCMSG_ERR_NOT_INITIALIZED;
    }
    rcmsg_event_deliver(); /* what happened since the last progress */
    if (rcmsg_pml_live_requests() == 0) {
        rcmsg_core_progress_stop(); /* before anything is released */
    }
    status = rcmsg_pml_fini();
    if (status == RCMSG_ERR_PENDING) {
        return status; /* requests pending: nothing released, the caller may complete them */
    }
    peer_lost = rcmsg_pml_peer_lost(); /* then the survivors parted, flushed: no barrier */
    s = rcmsg_wireup_fini(core_wireup, peer_lost); /* (the pml answers peers meanwhile) */
    rcmsg_pml_fini_recv_end();
    status = status == RCMSG_OK ? s : status;
    core_wireup = NULL;
    rcmsg_event_clear();
    rcmsg_stats_report();
    rcmsg_stats_fini();
    rcmsg_topo_release();
    rcmsg_config_unload();
    core_dump_last(status);
    rcmsg_dump_signal_restore(); /* caught until here: SIGUSR1 never kills a rank in finalize */
    rcmsg_log_set_rank(-1);
    core_thread_level = RCMSG_THREAD_SINGLE;
    rcmsg_mt_on = false; /* every other thread is out of rcmsg (finalize is called last) */
    return status;
}

void rcmsg_abort(int status, const char *reason)
{
    int st = status & 0xff;

    if (st == 0) {
        st = 1; /* a nonzero code whose low 8 bits are 0 must not exit 0 */
    }
    rcmsg_error("aborting the job (exit status %d): %s", st,
                reason != NULL ? reason : "rcmsg_abort called");
    rcmsg_wireup_abort(core_wireup, st, reason != NULL ? reason : "rcmsg_abort");
}

int rcmsg_rank(void)
{
    return core_wireup != NULL ? core_wireup->job.rank : -1;
}

int rcmsg_size(void)
{
    return core_wireup != NULL ? core_wireup->job.size : -1;
}
