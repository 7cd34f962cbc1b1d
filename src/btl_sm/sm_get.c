/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * btl_sm: get. A single copy with process_vm_readv (CMA), reported from progress(); where
 * CMA is not permitted the data's owner copies chunks into this rank's staging area on
 * request (a GETREQ cell), and says so with a GETDONE cell.
 */
#define _GNU_SOURCE
#include "config.h"

#include "sm_internal.h"

#include "base/log.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

/* May this process read the peer's memory (CMA)? The kernel checks permission before the
 * address, so reading any address answers: EPERM means no, anything else (even EFAULT) yes. */
bool sm_cma_probe(sm_btl_t *sm, sm_peer_t *p)
{
    char byte;
    struct iovec l = {.iov_base = &byte, .iov_len = 1};
    struct iovec r = {.iov_base = p->seg, .iov_len = 1};

    if (sm->cfg.cma == RCMSG_SM_CMA_NO) {
        return false;
    }
    if (sm->cfg.cma == RCMSG_SM_CMA_YES) {
        return true; /* as asked: a refusal will be an error, not a fallback */
    }
    return process_vm_readv(p->pid, &l, 1, &r, 1, 0) >= 0 || errno != EPERM;
}

static rcmsg_status_t sm_done_push(sm_btl_t *sm, rcmsg_btl_desc_t *desc)
{
    if (sm->ndone == sm->capdone) {
        int cap = sm->capdone ? sm->capdone * 2 : 64;
        rcmsg_btl_desc_t **d = realloc(sm->done, sizeof(*d) * (size_t)cap);
        if (d == NULL) {
            return RCMSG_ERR_NO_MEMORY;
        }
        sm->done = d;
        sm->capdone = cap;
    }
    sm->done[sm->ndone++] = desc;
    return RCMSG_OK;
}

void sm_staged_request(sm_btl_t *sm, sm_peer_t *p)
{
    uint64_t left = p->staged->len - p->staged_done;
    sm_getreq_t req = {.remote_addr = p->staged_remote + p->staged_done,
                       .len = left < sm->cfg.staging ? left : sm->cfg.staging,
                       .token = p->staged_done};

    p->staged_asked = req.len;
    p->staged_req_pending = sm_put(sm, p, SM_CELL_GETREQ, &req, sizeof(req), NULL, 0) != RCMSG_OK;
}

/* Copies len bytes between local memory and the peer's (write: to the peer) with
 * process_vm_readv / process_vm_writev, in pieces: one call moves at most MAX_RW_COUNT (2 GiB -
 * 4 KiB) bytes, and may stop short at a fault. RCMSG_OK once every byte is moved;
 * RCMSG_ERR_UNSUPPORTED when the kernel refuses the first piece with EPERM (the caller may fall
 * back to copies through the peer); otherwise an error, logged here. */
static rcmsg_status_t sm_cma_copy(sm_btl_t *sm, sm_peer_t *p, char *local, uint64_t remote_addr,
                                  size_t len, bool write)
{
    size_t done = 0;

    while (done < len) {
        size_t piece = len - done < SM_CMA_PIECE ? len - done : SM_CMA_PIECE;
        struct iovec l = {.iov_base = local + done, .iov_len = piece};
        struct iovec r = {.iov_base = (void *)(uintptr_t)(remote_addr + done), .iov_len = piece};
        ssize_t n = write ? process_vm_writev(p->pid, &l, 1, &r, 1, 0)
                          : process_vm_readv(p->pid, &l, 1, &r, 1, 0);

        if (n > 0) {
            done += (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0 && errno == ESRCH) {
            sm_peer_fail(sm, p, "its process exited");
            return RCMSG_ERR_CONNECTION;
        }
        if (n < 0 && errno == EPERM && done == 0 && sm->cfg.cma != RCMSG_SM_CMA_YES) {
            return RCMSG_ERR_UNSUPPORTED;
        }
        rcmsg_error("process_vm_%s peer %d (pid %d) failed after %zu of %zu bytes, at "
                    "0x%llx: %s%s",
                    write ? "writev to" : "readv from", p->world, (int)p->pid, done, len,
                    (unsigned long long)(remote_addr + done),
                    n == 0 ? "no progress" : strerror(errno),
                    sm->cfg.cma == RCMSG_SM_CMA_YES ? " (RCMSG_SM_CMA=yes: no fallback)" : "");
        return RCMSG_ERR_IO;
    }
    return RCMSG_OK;
}

rcmsg_status_t sm_get(rcmsg_btl_t *btl, int peer, void *local, const rcmsg_btl_mem_t *lmem,
                      uint64_t remote_addr, uint32_t rkey, size_t len, rcmsg_btl_desc_t *desc)
{
    sm_btl_t *sm = sm_btl_of(btl);
    sm_peer_t *p;

    (void)lmem;
    (void)rkey;
    if (peer < 0 || peer >= sm->job.size || desc == NULL || desc->complete == NULL) {
        return RCMSG_ERR_INVALID_PARAM;
    }
    p = &sm->peers[peer];
    if (p->seg == NULL || p->failed) {
        return p->failed ? RCMSG_ERR_CONNECTION : RCMSG_ERR_STATE;
    }
    desc->peer = peer;
    desc->len = len;
    if (len == 0) {
        return sm_done_push(sm, desc); /* nothing to copy: complete from progress */
    }
    if (p->cma) {
        rcmsg_status_t s = sm_cma_copy(sm, p, local, remote_addr, len, false);
        if (s == RCMSG_OK) {
            return sm_done_push(sm, desc);
        }
        if (s != RCMSG_ERR_UNSUPPORTED) {
            return s; /* the get never started: the caller sees the error, no completion */
        }
        p->cma = false;
        rcmsg_info("sm: CMA from peer %d refused (EPERM): copying through the shared segment",
                   peer);
    }
    if (p->staged != NULL) {
        return RCMSG_ERR_NO_RESOURCE; /* one staged get per peer at a time */
    }
    p->staged = desc;
    p->staged_local = local;
    p->staged_remote = remote_addr;
    p->staged_done = 0;
    sm_staged_request(sm, p);
    return RCMSG_OK;
}

/* The peer asked us (the data's owner) for a chunk: copy it into its staging area for us. */
void sm_on_getreq(sm_btl_t *sm, sm_peer_t *p, const sm_getreq_t *req)
{
    char *dst = sm_staging(sm, p->seg, sm->job.local_rank);
    struct iovec l = {.iov_base = dst, .iov_len = req->len};
    struct iovec r = {.iov_base = (void *)(uintptr_t)req->remote_addr, .iov_len = req->len};

    /* copied through the kernel from our own pid: an address the peer got wrong is an error
     * (EFAULT), not a crash of this process */
    if (process_vm_readv(getpid(), &l, 1, &r, 1, 0) != (ssize_t)req->len) {
        rcmsg_error("sm: peer %d asked for %llu bytes at 0x%llx, which this rank cannot read "
                    "(%m): treated as lost",
                    p->world, (unsigned long long)req->len, (unsigned long long)req->remote_addr);
        sm_peer_fail(sm, p, "it sent a bad copy request");
        return;
    }
    p->owe_done = true;
    p->done_len = req->len;
    p->done_token = req->token;
}

void sm_on_getdone(sm_btl_t *sm, sm_peer_t *p, const sm_getreq_t *done)
{
    rcmsg_btl_desc_t *desc = p->staged;

    if (desc == NULL || done->token != p->staged_done || done->len != p->staged_asked ||
        done->len == 0) {
        rcmsg_error("sm: unexpected staged-copy reply from peer %d: dropped", p->world);
        return;
    }
    memcpy(p->staged_local + p->staged_done, sm_staging(sm, sm->seg, p->local_rank), done->len);
    p->staged_done += done->len;
    if (p->staged_done < desc->len) {
        sm_staged_request(sm, p);
        return;
    }
    p->staged = NULL;
    desc->complete(desc, RCMSG_OK);
}

/* One-sided put: a single process_vm_writev (CMA), reported from progress(). Where CMA is not
 * permitted: RCMSG_ERR_UNSUPPORTED, and the layer above (src/osc) asks the target by message. */
rcmsg_status_t sm_osc_put(rcmsg_btl_t *btl, int peer, const void *local,
                          const rcmsg_btl_mem_t *lmem, uint64_t remote_addr, uint32_t rkey,
                          size_t len, rcmsg_btl_desc_t *desc)
{
    sm_btl_t *sm = sm_btl_of(btl);
    sm_peer_t *p;
    rcmsg_status_t status;

    (void)lmem;
    (void)rkey;
    if (peer < 0 || peer >= sm->job.size || desc == NULL || desc->complete == NULL) {
        return RCMSG_ERR_INVALID_PARAM;
    }
    p = &sm->peers[peer];
    if (p->seg == NULL || p->failed) {
        return p->failed ? RCMSG_ERR_CONNECTION : RCMSG_ERR_STATE;
    }
    if (!p->cma) {
        return RCMSG_ERR_UNSUPPORTED;
    }
    desc->peer = peer;
    desc->len = len;
    status = sm_cma_copy(sm, p, (char *)(uintptr_t)local, remote_addr, len, true);
    if (status == RCMSG_ERR_UNSUPPORTED) {
        p->cma = false;
    }
    if (status != RCMSG_OK) {
        return status;
    }
    return sm_done_push(sm, desc);
}
