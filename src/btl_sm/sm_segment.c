/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * btl_sm: the segment. This rank's own (a memfd, created at open) and its peers' (mapped at
 * connect through /proc/<pid>/fd/<fd>, named by the address record each rank publishes).
 */
#define _GNU_SOURCE
#include "config.h"

#include "sm_internal.h"

#include "base/event.h"
#include "base/hash.h"
#include "base/log.h"
#include "base/stats.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

uint64_t rcmsg_sm_node_key(void)
{
    char buf[256] = "";
    uint64_t h;
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");

    if (f != NULL) {
        if (fgets(buf, sizeof(buf) - 64, f) == NULL) {
            buf[0] = '\0';
        }
        fclose(f);
    }
    gethostname(buf + strlen(buf), 63);
    h = rcmsg_hash_bytes64(buf, strlen(buf));
    return h != 0 ? h : 1;
}

/* ---- address --------------------------------------------------------------------------- */

/* node_key u64, pid u32, fd u32, seg_size u64, local_rank u32, nlocal u32, ncells u32,
 * cell_size u32, staging u64, wake_fd u32, sleeps u32, credits u32, unused u32 (host byte
 * order: only ever read on the same node) */
typedef struct {
    uint64_t node_key;
    uint32_t pid, fd;
    uint64_t seg_size;
    uint32_t local_rank, nlocal, ncells, cell_size;
    uint64_t staging;
    uint32_t wake_fd, sleeps;
    uint32_t credits, unused;
} sm_addr_t;
RCMSG_STATIC_ASSERT(sizeof(sm_addr_t) == RCMSG_SM_ADDR_LEN,
                    "the sm address record has no padding and is what addr_max announces");

uint64_t rcmsg_sm_addr_node_key(const void *addr, size_t len)
{
    sm_addr_t a;

    if (len != sizeof(a)) {
        return 0;
    }
    memcpy(&a, addr, sizeof(a));
    return a.node_key;
}

rcmsg_status_t sm_addr_pack(rcmsg_btl_t *btl, void *buf, size_t *len_p)
{
    sm_btl_t *sm = sm_btl_of(btl);
    sm_addr_t a = {.node_key = rcmsg_sm_node_key(),
                   .pid = (uint32_t)getpid(),
                   .fd = (uint32_t)sm->memfd,
                   .seg_size = sm->seg_size,
                   .local_rank = (uint32_t)sm->job.local_rank,
                   .nlocal = (uint32_t)sm->job.local_size,
                   .ncells = sm->cfg.ncells,
                   .cell_size = (uint32_t)sm->cfg.cell_size,
                   .staging = sm->cfg.staging,
                   .wake_fd = (uint32_t)sm->wake_fd,
                   .sleeps = sm->cfg.sleeps,
                   .credits = (uint32_t)sm->cfg.credits};

    if (*len_p < sizeof(a)) {
        return RCMSG_ERR_INVALID_PARAM;
    }
    memcpy(buf, &a, sizeof(a));
    *len_p = sizeof(a);
    return RCMSG_OK;
}

/* Does the peer's segment have this rank's layout? Names the variable that differs. */
static rcmsg_status_t sm_addr_check(const sm_btl_t *sm, int peer, const sm_addr_t *a)
{
    if (a->node_key != rcmsg_sm_node_key()) {
        rcmsg_error("sm address of peer %d is from another node (boot id and host name differ)",
                    peer);
        return RCMSG_ERR_PEER_DATA;
    }
    if (a->local_rank >= (uint32_t)sm->job.local_size ||
        a->nlocal != (uint32_t)sm->job.local_size) {
        rcmsg_error("sm: peer %d is local rank %u of %u, this rank counts %d local ranks: the "
                    "launcher's local ranks are inconsistent",
                    peer, a->local_rank, a->nlocal, sm->job.local_size);
        return RCMSG_ERR_PEER_DATA;
    }
    if (a->cell_size != sm->cfg.cell_size) {
        rcmsg_error("peer %d uses %u-byte shared-memory cells, this rank %zu: set the same "
                    "%s on every rank%s",
                    peer, a->cell_size, sm->cfg.cell_size,
                    sm->cfg.cells_derived ? "RCMSG_SM_EAGER_LIMIT" : "RCMSG_SM_CELL_SIZE",
                    sm->cfg.cells_derived ? " (it sizes the cells while RCMSG_SM_CELL_SIZE is 0)"
                                          : "");
        return RCMSG_ERR_CONFIG;
    }
    if (a->ncells != sm->cfg.ncells) {
        rcmsg_error("peer %d has %u cells per shared-memory ring, this rank %u: set the same "
                    "RCMSG_SM_CELLS on every rank",
                    peer, a->ncells, sm->cfg.ncells);
        return RCMSG_ERR_CONFIG;
    }
    if (a->staging != sm->cfg.staging) {
        rcmsg_error("peer %d has a %llu-byte staging area, this rank %zu (rounded up to 64 "
                    "bytes): set the same RCMSG_SM_STAGING on every rank",
                    peer, (unsigned long long)a->staging, sm->cfg.staging);
        return RCMSG_ERR_CONFIG;
    }
    if (a->credits != (uint32_t)sm->cfg.credits) {
        /* each side counts the other's buffers: different counts would stall the sender */
        rcmsg_error(
            "peer %d lends %u eager credits per local peer, this rank %d: set the same "
            "RCMSG_SM_EAGER_CREDITS on every rank (where it is unset, a RCMSG_EAGER_CREDITS "
            "set counts)",
            peer, a->credits, sm->cfg.credits);
        return RCMSG_ERR_CONFIG;
    }
    if (a->seg_size != sm->seg_size) {
        rcmsg_error("peer %d has a %llu-byte shared segment, this rank %zu with the same settings: "
                    "are both running the same rcmsg library?",
                    peer, (unsigned long long)a->seg_size, sm->seg_size);
        return RCMSG_ERR_PEER_DATA;
    }
    return RCMSG_OK;
}

/* Decodes and checks a peer's address record, including that its local rank is free. */
static rcmsg_status_t sm_addr_decode(const sm_btl_t *sm, int peer, const void *addr, size_t len,
                                     sm_addr_t *a_p)
{
    sm_addr_t a;

    if (len != sizeof(a)) {
        rcmsg_error("sm address of peer %d is %zu bytes, expected %zu", peer, len, sizeof(a));
        return RCMSG_ERR_PEER_DATA;
    }
    memcpy(&a, addr, sizeof(a));
    if (a.local_rank < (uint32_t)sm->job.local_size &&
        (a.local_rank == (uint32_t)sm->job.local_rank || sm->local_to_world[a.local_rank] >= 0)) {
        rcmsg_error("sm: peer %d claims local rank %u, already taken (this rank is local rank %d): "
                    "the launcher's local ranks are inconsistent",
                    peer, a.local_rank, sm->job.local_rank);
        return RCMSG_ERR_PEER_DATA;
    }
    *a_p = a;
    return sm_addr_check(sm, peer, &a);
}

/* Maps the peer's segment (and opens its wakeup pipe when it sleeps) into p->seg. */
static rcmsg_status_t sm_peer_map(sm_peer_t *p, int peer, const sm_addr_t *a)
{
    char path[64];
    sm_seg_hdr_t *h;
    int fd;

    snprintf(path, sizeof(path), "/proc/%u/fd/%u", a->pid, a->fd);
    fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        rcmsg_error("cannot open the shared segment of peer %d (%s): %m", peer, path);
        return RCMSG_ERR_IO;
    }
    if (a->sleeps && sm_wake_open(p, peer, a->pid, a->wake_fd) != RCMSG_OK) {
        close(fd);
        return RCMSG_ERR_IO;
    }
    p->seg = mmap(NULL, a->seg_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p->seg == MAP_FAILED) {
        p->seg = NULL;
        rcmsg_error("cannot map the shared segment of peer %d: %m", peer);
        return RCMSG_ERR_IO;
    }
    h = (sm_seg_hdr_t *)p->seg;
    if (h->magic != SM_MAGIC || h->pid != a->pid) {
        rcmsg_error("shared segment of peer %d has a bad header", peer);
        munmap(p->seg, a->seg_size);
        p->seg = NULL;
        return RCMSG_ERR_PEER_DATA;
    }
    return RCMSG_OK;
}

rcmsg_status_t sm_connect(rcmsg_btl_t *btl, int peer, const void *addr, size_t len)
{
    sm_btl_t *sm = sm_btl_of(btl);
    sm_peer_t *p = &sm->peers[peer];
    sm_addr_t a;
    rcmsg_status_t s;

    s = sm_addr_decode(sm, peer, addr, len, &a);
    if (s != RCMSG_OK) {
        return s;
    }
    s = sm_peer_map(p, peer, &a);
    if (s != RCMSG_OK) {
        return s;
    }
    p->world = peer;
    p->local_rank = (int)a.local_rank;
    p->pid = (pid_t)a.pid;
    p->seg_size = a.seg_size;
    p->cma = sm_cma_probe(sm, p);
    p->sleeps = a.sleeps != 0;
    sm->local_to_world[p->local_rank] = peer;
    if (!p->cma) {
        rcmsg_info("sm: single-copy reads (CMA) from peer %d are not permitted%s; large messages "
                   "are copied through the shared segment",
                   peer,
                   sm->cfg.cma == RCMSG_SM_CMA_NO ? " (RCMSG_SM_CMA=no)" : " (ptrace scope?)");
    }
    s = sm_watch_peer(sm, p);
    if (s != RCMSG_OK) {
        return s;
    }
    rcmsg_debug("sm: peer %d (local rank %d, pid %d) mapped", peer, p->local_rank, (int)p->pid);
    rcmsg_stat_add(peer, RCMSG_STAT_connects, 1);
    rcmsg_event_post(RCMSG_EVENT_CONNECTED, peer, "sm", RCMSG_OK,
                     "shared segment of local rank %d (pid %d) mapped", p->local_rank, (int)p->pid);
    return RCMSG_OK;
}

rcmsg_status_t sm_segment_create(sm_btl_t *sm)
{
    sm->memfd = memfd_create("rcmsg-sm", MFD_CLOEXEC);
    /* a memfd is created 0777: only this user's processes may open it through /proc */
    if (sm->memfd < 0 || fchmod(sm->memfd, 0600) != 0 ||
        ftruncate(sm->memfd, (off_t)sm->seg_size) != 0) {
        rcmsg_error("cannot create the %zu-byte shared segment (memfd): %m", sm->seg_size);
        return RCMSG_ERR_IO;
    }
    sm->seg = mmap(NULL, sm->seg_size, PROT_READ | PROT_WRITE, MAP_SHARED, sm->memfd, 0);
    if (sm->seg == MAP_FAILED) {
        sm->seg = NULL;
        rcmsg_error("cannot map the shared segment: %m");
        return RCMSG_ERR_IO;
    }
    *(sm_seg_hdr_t *)sm->seg = (sm_seg_hdr_t){.magic = SM_MAGIC,
                                              .pid = (uint32_t)getpid(),
                                              .local_rank = (uint32_t)sm->job.local_rank,
                                              .nlocal = (uint32_t)sm->job.local_size,
                                              .ncells = sm->cfg.ncells,
                                              .cell_size = sm->cfg.cell_size,
                                              .staging = sm->cfg.staging};
    return RCMSG_OK;
}
