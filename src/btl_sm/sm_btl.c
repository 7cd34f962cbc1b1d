/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * btl_sm: shared-memory transport between ranks of one node. This file: its settings, open
 * and close, the ops table, progress, and noticing lost peers. The segment layout and the
 * files of the other concerns are described in sm_internal.h.
 */
#define _GNU_SOURCE
#include "config.h"

#include "sm_internal.h"

#include "base/clock.h"
#include "base/config_table.h"
#include "base/log.h"
#include "base/watch.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The one place sm reads its settings. The cells are sized for the eager limit unless
 * RCMSG_SM_CELL_SIZE says otherwise; then the limit is capped to what they hold. */
static rcmsg_status_t sm_config_read(sm_config_t *cfg)
{
    size_t cell = rcmsg_config_size(RCMSG_CFG_SM_CELL_SIZE);

    *cfg = (sm_config_t){
        .ncells = (unsigned)rcmsg_config_int(RCMSG_CFG_SM_CELLS),
        .eager_limit = rcmsg_config_size(RCMSG_CFG_SM_EAGER_LIMIT),
        .staging = (rcmsg_config_size(RCMSG_CFG_SM_STAGING) + 63) & ~(size_t)63,
        .credits = (int)rcmsg_config_int(RCMSG_CFG_SM_EAGER_CREDITS),
        .cma = (rcmsg_sm_cma_t)rcmsg_config_enum(RCMSG_CFG_SM_CMA),
        .batch = (unsigned)rcmsg_config_int(RCMSG_CFG_POLL_BATCH),
        /* a wait may sleep, or RCMSG_ASYNC_PROGRESS=full's thread does between rounds */
        .sleeps = rcmsg_config_enum(RCMSG_CFG_WAIT_MODE) != RCMSG_WAIT_POLL ||
                  rcmsg_config_enum(RCMSG_CFG_ASYNC_PROGRESS) == RCMSG_ASYNC_PROGRESS_FULL,
    };
    cfg->cma_text = rcmsg_config_enum_text(RCMSG_CFG_SM_CMA);
    if (!rcmsg_config_is_set(RCMSG_CFG_SM_EAGER_CREDITS) &&
        rcmsg_config_is_set(RCMSG_CFG_EAGER_CREDITS)) {
        cfg->credits = (int)rcmsg_config_int(RCMSG_CFG_EAGER_CREDITS); /* the one the user set */
    }
    if (cell == 0) {
        cfg->cell_size = cfg->eager_limit + RCMSG_BTL_HDR_ROOM;
        cfg->cells_derived = true;
        return RCMSG_OK;
    }
    if (cell < RCMSG_BTL_HDR_ROOM) {
        rcmsg_error("invalid value '%s' for RCMSG_SM_CELL_SIZE: expected 0 (sized for "
                    "RCMSG_SM_EAGER_LIMIT) or at least %d bytes (a header)",
                    rcmsg_config_text(RCMSG_CFG_SM_CELL_SIZE), RCMSG_BTL_HDR_ROOM);
        return RCMSG_ERR_CONFIG;
    }
    cfg->cell_size = cell;
    if (cfg->eager_limit > cell - RCMSG_BTL_HDR_ROOM) {
        rcmsg_info("sm: eager limit capped to %zu bytes by RCMSG_SM_CELL_SIZE=%s (RCMSG_SM_EAGER_"
                   "LIMIT=%s)",
                   cell - RCMSG_BTL_HDR_ROOM, rcmsg_config_text(RCMSG_CFG_SM_CELL_SIZE),
                   rcmsg_config_text(RCMSG_CFG_SM_EAGER_LIMIT));
        cfg->eager_limit = cell - RCMSG_BTL_HDR_ROOM;
    }
    return RCMSG_OK;
}

/* Whether p finalized before it went (it said so in its segment's header, in sm_close): its
 * exit is the end of the job on that rank, not a loss. */
static bool sm_peer_closed(const sm_peer_t *p)
{
    return p->seg != NULL &&
           atomic_load_explicit(&((sm_seg_hdr_t *)p->seg)->closed, memory_order_acquire) != 0;
}

void sm_peer_fail(sm_btl_t *sm, sm_peer_t *p, const char *why)
{
    if (p->failed) {
        return;
    }
    p->failed = true;
    atomic_store(&p->exit_said, true);
    if (sm_peer_closed(p)) {
        rcmsg_info("peer %d (local rank %d, pid %d) finalized and exited; a later operation to it "
                   "fails with %s",
                   p->world, p->local_rank, (int)p->pid, rcmsg_status_name(RCMSG_ERR_CONNECTION));
    } else {
        rcmsg_error("peer %d (local rank %d, pid %d) is gone: %s; every pending and later "
                    "operation to it fails with %s",
                    p->world, p->local_rank, (int)p->pid, why,
                    rcmsg_status_name(RCMSG_ERR_CONNECTION));
    }
    p->staged_req_pending = false;
    p->owe_done = false;
    if (p->staged != NULL) {
        rcmsg_btl_desc_t *d = p->staged;
        p->staged = NULL;
        d->complete(d, RCMSG_ERR_CONNECTION);
    }
    if (sm->super.fail_cb != NULL) {
        char cause[160];

        snprintf(cause, sizeof(cause), "sm: local rank %d (pid %d) is gone: %s", p->local_rank,
                 (int)p->pid, why);
        sm->super.fail_cb(sm->super.cb_arg, p->world, RCMSG_ERR_CONNECTION, cause);
    }
}

/* Gone, or a zombie (exited, not yet reaped: kill(pid, 0) would still succeed). */
static bool sm_pid_alive(pid_t pid)
{
    char path[64], buf[256], *paren;
    ssize_t n;
    int fd;

    if (kill(pid, 0) != 0 && errno == ESRCH) {
        return false;
    }
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return errno != ENOENT;
    }
    n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    buf[n > 0 ? n : 0] = '\0';
    paren = strrchr(buf, ')'); /* "pid (comm) S ..." */
    return paren == NULL || paren[1] == '\0' || paren[2] != 'Z';
}

int sm_liveness(sm_btl_t *sm)
{
    uint64_t now = rcmsg_clock_coarse_us();
    int lost = 0;

    if (!rcmsg_deadline_passed_at(sm->next_check, now)) {
        return 0;
    }
    sm->next_check = rcmsg_deadline_after(now, SM_LIVENESS_US);
    for (int i = 0; i < sm->job.size; i++) {
        sm_peer_t *p = &sm->peers[i];
        if (p->seg != NULL && !p->failed && !sm_pid_alive(p->pid)) {
            sm_peer_fail(sm, p, "its process exited");
            lost++;
        }
    }
    return lost;
}

/* ---- the watch thread's share (base/watch.h) -------------------------------------------- */

/* The watch thread: p's pidfd is readable (its process exited) or, without one, the periodic
 * look finds it gone. Said now, at the time the bound is about; the application's next call
 * fails the peer (sm_watch_take). Reads only what connect set before the registration. */
static int sm_watch_ready(void *arg)
{
    sm_peer_t *p = arg;

    if (p->pidfd < 0 && sm_pid_alive(p->pid)) {
        return RCMSG_WATCH_QUIET;
    }
    if (sm_peer_closed(p)) {
        return RCMSG_WATCH_DONE; /* it finalized: no news (a later operation to it fails) */
    }
    if (!atomic_exchange(&p->exit_said, true)) {
        rcmsg_error("peer %d (local rank %d, pid %d) exited: requests involving it fail with %s "
                    "from this rank's next rcmsg call on",
                    p->world, p->local_rank, (int)p->pid, rcmsg_status_name(RCMSG_ERR_CONNECTION));
    }
    return RCMSG_WATCH_FOUND | RCMSG_WATCH_DONE;
}

/* The application, at the news: looks at every peer now (the peer fails as in a wait). */
static void sm_watch_take(void *arg)
{
    sm_btl_t *sm = arg;

    sm->next_check = rcmsg_deadline_at(0);
    (void)sm_liveness(sm);
}

rcmsg_status_t sm_watch_peer(sm_btl_t *sm, sm_peer_t *p)
{
    rcmsg_status_t s = RCMSG_OK;

    if (!sm->watched) {
        s = rcmsg_watch_take_add(sm_watch_take, sm);
        sm->watched = s == RCMSG_OK;
    }
    p->pidfd = rcmsg_watch_pidfd(p->pid); /* -1 (ENOSYS, or already gone): looked at instead */
    return s == RCMSG_OK ? rcmsg_watch_add(p->pidfd, SM_LIVENESS_US, sm_watch_ready, p) : s;
}

void sm_watch_forget(sm_btl_t *sm)
{
    for (int i = 0; sm->peers != NULL && i < sm->job.size; i++) {
        if (sm->peers[i].seg != NULL) {
            rcmsg_watch_forget(&sm->peers[i]);
        }
        if (sm->peers[i].pidfd >= 0) {
            close(sm->peers[i].pidfd);
            sm->peers[i].pidfd = -1;
        }
    }
    if (sm->watched) {
        rcmsg_watch_forget(sm);
        sm->watched = false;
    }
}

static int sm_progress(rcmsg_btl_t *btl)
{
    sm_btl_t *sm = sm_btl_of(btl);
    int n = 0;

    for (int i = 0; i < sm->ndone; i++) {
        sm->done[i]->complete(sm->done[i], RCMSG_OK);
    }
    n += sm->ndone;
    sm->ndone = 0;
    sm->stop = false;
    for (int s = 0; s < sm->job.local_size && !sm->stop; s++) {
        n += sm_ring_poll(sm, s);
    }
    if ((++sm->calls & 1023) == 0) {
        n += sm_liveness(sm); /* reads the clock; checks peers every 100 ms (and in sm_arm) */
    }
    return n;
}

static void sm_close(rcmsg_btl_t *btl)
{
    sm_btl_t *sm = sm_btl_of(btl);

    if (sm->seg != NULL) { /* a peer's watch that sees this process exit now is told why */
        atomic_store_explicit(&((sm_seg_hdr_t *)sm->seg)->closed, 1, memory_order_release);
    }
    sm_watch_forget(sm); /* (the thread is stopped: wireup stops it before the close) */
    for (int i = 0; sm->peers != NULL && i < sm->job.size; i++) {
        if (sm->peers[i].seg != NULL) {
            munmap(sm->peers[i].seg, sm->peers[i].seg_size);
        }
        if (sm->peers[i].wake_fd >= 0) {
            close(sm->peers[i].wake_fd);
        }
    }
    if (sm->seg != NULL) {
        munmap(sm->seg, sm->seg_size);
    }
    if (sm->memfd >= 0) {
        close(sm->memfd);
    }
    if (sm->wake_fd >= 0) {
        close(sm->wake_fd);
        close(sm->wake_wr);
    }
    free(sm->done);
    free(sm->peers);
    free(sm->local_to_world);
    free(sm);
}

static const rcmsg_btl_ops_t sm_ops = {
    .addr_pack = sm_addr_pack,
    .connect = sm_connect,
    .send = sm_send,
    .get = sm_get,
    .put = sm_osc_put,                 /* atomic: none, src/osc asks the target by message */
    .mem_reg = rcmsg_btl_mem_reg_none, /* CMA needs none */
    .mem_dereg = rcmsg_btl_mem_dereg_none,
    .ping = rcmsg_btl_ping_none, /* lost peers are noticed without probes */
    .progress = sm_progress,
    .connect_progress = rcmsg_btl_connect_progress_none,
    .flush = rcmsg_btl_flush_none, /* a send is in the peer's memory at once */
    .forget = rcmsg_btl_forget_none,
    .event_fd = sm_event_fd, /* the wakeup pipe: see sm_arm */
    .arm = sm_arm,
    .close = sm_close,
};

/* The peer table, all unconnected. */
static rcmsg_status_t sm_peers_alloc(sm_btl_t *sm)
{
    sm->peers = calloc((size_t)sm->job.size, sizeof(*sm->peers));
    sm->local_to_world = malloc(sizeof(int) * (size_t)sm->job.local_size);
    if (sm->peers == NULL || sm->local_to_world == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    for (int i = 0; i < sm->job.size; i++) {
        sm->peers[i].wake_fd = -1;
        sm->peers[i].pidfd = -1;
    }
    for (int i = 0; i < sm->job.local_size; i++) {
        sm->local_to_world[i] = -1;
    }
    return RCMSG_OK;
}

rcmsg_status_t rcmsg_sm_btl_open(const rcmsg_btl_job_t *job, rcmsg_btl_t **btl_p)
{
    sm_btl_t *sm = calloc(1, sizeof(*sm));
    rcmsg_status_t s;

    if (sm == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    sm->memfd = -1;
    sm->wake_fd = -1;
    sm->job = *job;
    sm->super.name = "sm";
    sm->super.ops = &sm_ops;
    s = sm_config_read(&sm->cfg);
    if (s != RCMSG_OK) {
        free(sm);
        return s;
    }
    sm->cell_stride = (sizeof(sm_cell_t) + sm->cfg.cell_size + 63) & ~(size_t)63;
    sm->cell_mask = (sm->cfg.ncells & (sm->cfg.ncells - 1)) == 0 ? sm->cfg.ncells - 1 : 0;
    sm->ring_size = sizeof(sm_ring_t) + sm->cfg.ncells * sm->cell_stride;
    sm->seg_size =
        sizeof(sm_seg_hdr_t) + (size_t)job->local_size * (sm->ring_size + sm->cfg.staging);
    s = sm_peers_alloc(sm);
    if (s == RCMSG_OK) {
        s = sm_segment_create(sm);
    }
    if (s == RCMSG_OK && sm->cfg.sleeps) {
        s = sm_wake_create(sm);
    }
    if (s != RCMSG_OK) {
        sm_close(&sm->super);
        return s;
    }
    sm->super.caps = (rcmsg_btl_caps_t){.max_send = sm->cfg.cell_size,
                                        .eager_limit = sm->cfg.eager_limit,
                                        .max_inline = 0,
                                        .max_get = SIZE_MAX,
                                        .max_gets = 16,
                                        .stops = 1,
                                        .eager_credits = sm->cfg.credits};
    rcmsg_info("sm: %zu-byte segment (memfd, nothing in /dev/shm): %u cells of %zu bytes per "
               "local sender, eager up to %zu bytes, %zu-byte staging; CMA %s",
               sm->seg_size, sm->cfg.ncells, sm->cfg.cell_size, sm->cfg.eager_limit,
               sm->cfg.staging, sm->cfg.cma_text);
    *btl_p = &sm->super;
    return RCMSG_OK;
}
