/*
 * btl_sm: shared-memory transport between ranks of one node.
 *
 * Segment of a process (mapped by every local peer):
 *
 *   +--------+--------------------------------+-----+--------------------------------+
 *   | header | ring from local rank 0:        | ... | staging for local rank 0 | ... |
 *   |        | head | cell 0 .. n-1           |     | (CMA fallback copies)          |
 *   +--------+--------------------------------+-----+--------------------------------+
 *
 * Rings are single-producer (the sender) / single-consumer (the owner): the sender writes a
 * cell, then publishes it by a release store of the cell's seq (message index + 1); the owner
 * polls the next cell's seq with acquire, consumes cells in order and releases them by a
 * release store of head, which the sender reads only when its cached copy says the ring is
 * full. The sender's tail stays in its own memory. No locks.
 */
#define _GNU_SOURCE
#include "config.h"

#include "sm_btl.h"

#include "base/config_table.h"
#include "base/log.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define SM_MAGIC       0x72636d7367736d31ull /* "rcmsgsm1" */
#define SM_ADDR_LEN    48
#define SM_LIVENESS_US 100000
#define SM_CTL_CELLS   2

enum { SM_CELL_MSG = 1, SM_CELL_GETREQ, SM_CELL_GETDONE };
enum { SM_CMA_AUTO, SM_CMA_YES, SM_CMA_NO };

/* A ring in its owner's segment, one per local sender. The sender keeps its own tail and a
 * cached copy of head (sm_peer_t), so the only line both sides write per message is the cell:
 * the owner polls the next cell's seq, in the same cache line as its header and first bytes. */
typedef struct {
    _Atomic uint64_t head; /* cells consumed, written by the owner; read by the sender only
                            * when its cached copy says the ring is full */
    char pad[56];
} sm_ring_t;

typedef struct {
    _Atomic uint64_t seq; /* index + 1 of the message it holds, written last by the sender */
    uint32_t len;
    uint32_t type;
    char data[];
} sm_cell_t;

typedef struct {
    uint64_t magic;
    uint32_t pid, local_rank, nlocal, ncells;
    uint64_t cell_size, staging;
} sm_seg_hdr_t;

typedef struct {
    uint64_t remote_addr, len, token;
} sm_getreq_t;

typedef struct {
    int world; /* -1: not connected */
    int local_rank;
    pid_t pid;
    char *seg; /* its segment, mapped */
    size_t seg_size;
    bool cma; /* process_vm_readv works with this peer */
    bool failed;
    /* staged get from this peer (CMA fallback): one at a time, others wait */
    rcmsg_btl_desc_t *staged;
    char *staged_local;
    uint64_t staged_remote, staged_done;
    bool staged_req_pending; /* a GETREQ to send when its ring has room */
    uint64_t staged_asked;   /* length of the chunk asked for */
    /* a GETDONE this rank owes the peer (it asked us for data) */
    bool owe_done;
    uint64_t done_len, done_token;
    /* this rank as a sender into the peer's ring */
    uint64_t tail;       /* messages written */
    uint64_t head_cache; /* the ring's head when last read */
} sm_peer_t;

typedef struct {
    rcmsg_btl_t super;
    rcmsg_btl_job_t job;
    int memfd;
    char *seg;
    size_t seg_size;
    unsigned ncells;
    size_t cell_size, cell_stride, ring_size, staging;
    int cma_mode;
    unsigned batch;
    sm_peer_t *peers;        /* [job.size] */
    int *local_to_world;     /* [nlocal] */
    rcmsg_btl_desc_t **done; /* finished CMA gets, reported from progress */
    int ndone, capdone;
    unsigned calls;
    uint64_t last_check_us;
} sm_btl_t;

static inline sm_btl_t *sm_btl_of(rcmsg_btl_t *btl)
{
    return (sm_btl_t *)btl;
}

static uint64_t sm_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/* ---- layout ---------------------------------------------------------------------------- */

static sm_ring_t *sm_ring(const sm_btl_t *sm, char *seg, int sender_local)
{
    return (sm_ring_t *)(seg + sizeof(sm_seg_hdr_t) + (size_t)sender_local * sm->ring_size);
}

static sm_cell_t *sm_cell(const sm_btl_t *sm, sm_ring_t *ring, uint64_t index)
{
    return (sm_cell_t *)((char *)(ring + 1) + (index % sm->ncells) * sm->cell_stride);
}

static char *sm_staging(const sm_btl_t *sm, char *seg, int sender_local)
{
    return seg + sizeof(sm_seg_hdr_t) + (size_t)sm->job.local_size * sm->ring_size +
           (size_t)sender_local * sm->staging;
}

uint64_t rcmsg_sm_node_key(void)
{
    char buf[256] = "";
    uint64_t h = 1469598103934665603ull;
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");

    if (f != NULL) {
        if (fgets(buf, sizeof(buf) - 64, f) == NULL) {
            buf[0] = '\0';
        }
        fclose(f);
    }
    gethostname(buf + strlen(buf), 63);
    for (const char *p = buf; *p != '\0'; p++) {
        h = (h ^ (uint8_t)*p) * 1099511628211ull;
    }
    return h != 0 ? h : 1;
}

/* ---- address --------------------------------------------------------------------------- */

/* node_key u64, pid u32, fd u32, seg_size u64, local_rank u32, nlocal u32, ncells u32,
 * cell_size u32, staging u64 (host byte order: only ever read on the same node) */
typedef struct {
    uint64_t node_key;
    uint32_t pid, fd;
    uint64_t seg_size;
    uint32_t local_rank, nlocal, ncells, cell_size;
    uint64_t staging;
} sm_addr_t;

uint64_t rcmsg_sm_addr_node_key(const void *addr, size_t len)
{
    sm_addr_t a;

    if (len != sizeof(a)) {
        return 0;
    }
    memcpy(&a, addr, sizeof(a));
    return a.node_key;
}

static rcmsg_status_t sm_addr_pack(rcmsg_btl_t *btl, void *buf, size_t *len_p)
{
    sm_btl_t *sm = sm_btl_of(btl);
    sm_addr_t a = {.node_key = rcmsg_sm_node_key(),
                   .pid = (uint32_t)getpid(),
                   .fd = (uint32_t)sm->memfd,
                   .seg_size = sm->seg_size,
                   .local_rank = (uint32_t)sm->job.local_rank,
                   .nlocal = (uint32_t)sm->job.local_size,
                   .ncells = sm->ncells,
                   .cell_size = (uint32_t)sm->cell_size,
                   .staging = sm->staging};

    if (*len_p < sizeof(a)) {
        return RCMSG_ERR_INVALID_PARAM;
    }
    memcpy(buf, &a, sizeof(a));
    *len_p = sizeof(a);
    return RCMSG_OK;
}

/* May this process read the peer's memory (CMA)? The kernel checks permission before the
 * address, so reading any address answers: EPERM means no, anything else (even EFAULT) yes. */
static bool sm_cma_probe(sm_btl_t *sm, sm_peer_t *p)
{
    char byte;
    struct iovec l = {.iov_base = &byte, .iov_len = 1};
    struct iovec r = {.iov_base = p->seg, .iov_len = 1};

    if (sm->cma_mode == SM_CMA_NO) {
        return false;
    }
    if (sm->cma_mode == SM_CMA_YES) {
        return true; /* as asked: a refusal will be an error, not a fallback */
    }
    return process_vm_readv(p->pid, &l, 1, &r, 1, 0) >= 0 || errno != EPERM;
}

static rcmsg_status_t sm_connect(rcmsg_btl_t *btl, int peer, const void *addr, size_t len)
{
    sm_btl_t *sm = sm_btl_of(btl);
    sm_peer_t *p = &sm->peers[peer];
    char path[64];
    sm_addr_t a;
    sm_seg_hdr_t *h;
    int fd;

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
    if (a.node_key != rcmsg_sm_node_key() || a.local_rank >= (uint32_t)sm->job.local_size ||
        a.nlocal != (uint32_t)sm->job.local_size || a.ncells != sm->ncells ||
        a.cell_size != sm->cell_size || a.staging != sm->staging || a.seg_size != sm->seg_size) {
        rcmsg_error("sm address of peer %d does not match this rank's (another node, or other "
                    "RCMSG_SM_* settings): local rank %u of %u, %u cells of %u bytes",
                    peer, a.local_rank, a.nlocal, a.ncells, a.cell_size);
        return RCMSG_ERR_PEER_DATA;
    }
    snprintf(path, sizeof(path), "/proc/%u/fd/%u", a.pid, a.fd);
    fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        rcmsg_error("cannot open the shared segment of peer %d (%s): %m", peer, path);
        return RCMSG_ERR_IO;
    }
    p->seg = mmap(NULL, a.seg_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p->seg == MAP_FAILED) {
        p->seg = NULL;
        rcmsg_error("cannot map the shared segment of peer %d: %m", peer);
        return RCMSG_ERR_IO;
    }
    h = (sm_seg_hdr_t *)p->seg;
    if (h->magic != SM_MAGIC || h->pid != a.pid) {
        rcmsg_error("shared segment of peer %d has a bad header", peer);
        munmap(p->seg, a.seg_size);
        p->seg = NULL;
        return RCMSG_ERR_PEER_DATA;
    }
    p->world = peer;
    p->local_rank = (int)a.local_rank;
    p->pid = (pid_t)a.pid;
    p->seg_size = a.seg_size;
    p->cma = sm_cma_probe(sm, p);
    sm->local_to_world[p->local_rank] = peer;
    if (!p->cma) {
        rcmsg_info("sm: single-copy reads (CMA) from peer %d are not permitted%s; large messages "
                   "are copied through the shared segment",
                   peer, sm->cma_mode == SM_CMA_NO ? " (RCMSG_SM_CMA=no)" : " (ptrace scope?)");
    }
    rcmsg_debug("sm: peer %d (local rank %d, pid %d) mapped", peer, p->local_rank, (int)p->pid);
    return RCMSG_OK;
}

/* ---- cells ----------------------------------------------------------------------------- */

/* Copies a cell into peer's segment (our ring there). RCMSG_ERR_NO_RESOURCE when full. */
static rcmsg_status_t sm_put(sm_btl_t *sm, sm_peer_t *p, uint32_t type, const void *a, size_t alen,
                             const void *b, size_t blen)
{
    sm_ring_t *ring = sm_ring(sm, p->seg, sm->job.local_rank);
    uint64_t tail = p->tail, limit = sm->ncells - (type == SM_CELL_MSG ? SM_CTL_CELLS : 0);
    sm_cell_t *cell;

    /* the last SM_CTL_CELLS cells are kept for GETREQ/GETDONE (at most one of each is ever
     * outstanding per direction), so control never waits behind messages: no deadlock */
    if (tail - p->head_cache >= limit) {
        p->head_cache = atomic_load_explicit(&ring->head, memory_order_acquire);
        if (tail - p->head_cache >= limit) {
            return RCMSG_ERR_NO_RESOURCE;
        }
    }
    cell = sm_cell(sm, ring, tail);
    memcpy(cell->data, a, alen);
    if (blen > 0) {
        memcpy(cell->data + alen, b, blen);
    }
    cell->len = (uint32_t)(alen + blen);
    cell->type = type;
    atomic_store_explicit(&cell->seq, tail + 1, memory_order_release);
    p->tail = tail + 1;
    return RCMSG_OK;
}

static rcmsg_status_t sm_send(rcmsg_btl_t *btl, int peer, const void *hdr, size_t hdr_len,
                              const void *payload, size_t len)
{
    sm_btl_t *sm = sm_btl_of(btl);
    sm_peer_t *p;

    if (peer < 0 || peer >= sm->job.size || hdr_len + len > sm->cell_size) {
        return RCMSG_ERR_INVALID_PARAM;
    }
    p = &sm->peers[peer];
    if (__builtin_expect(p->seg == NULL || p->failed, 0)) {
        return p->failed ? RCMSG_ERR_CONNECTION : RCMSG_ERR_STATE;
    }
    return sm_put(sm, p, SM_CELL_MSG, hdr, hdr_len, payload, len);
}

/* ---- get: CMA, or staged copies through the segment ----------------------------------- */

static void sm_peer_fail(sm_btl_t *sm, sm_peer_t *p, const char *why);

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

/* Asks the peer for the next chunk of the staged get (when its ring has room). */
static void sm_staged_request(sm_btl_t *sm, sm_peer_t *p)
{
    uint64_t left = p->staged->len - p->staged_done;
    sm_getreq_t req = {.remote_addr = p->staged_remote + p->staged_done,
                       .len = left < sm->staging ? left : sm->staging,
                       .token = p->staged_done};

    p->staged_asked = req.len;
    p->staged_req_pending = sm_put(sm, p, SM_CELL_GETREQ, &req, sizeof(req), NULL, 0) != RCMSG_OK;
}

static rcmsg_status_t sm_get(rcmsg_btl_t *btl, int peer, void *local, const rcmsg_btl_mem_t *lmem,
                             uint64_t remote_addr, uint32_t rkey, size_t len,
                             rcmsg_btl_desc_t *desc)
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
    if (p->cma) {
        struct iovec l = {.iov_base = local, .iov_len = len};
        struct iovec r = {.iov_base = (void *)(uintptr_t)remote_addr, .iov_len = len};
        ssize_t n = process_vm_readv(p->pid, &l, 1, &r, 1, 0);
        if (n == (ssize_t)len) {
            return sm_done_push(sm, desc);
        }
        if (n < 0 && errno == ESRCH) {
            sm_peer_fail(sm, p, "its process exited");
            return RCMSG_ERR_CONNECTION;
        }
        if (n >= 0 || errno != EPERM || sm->cma_mode == SM_CMA_YES) {
            rcmsg_error("process_vm_readv of %zu bytes from peer %d (pid %d) failed: %s%s", len,
                        peer, (int)p->pid, n >= 0 ? "short read" : strerror(errno),
                        sm->cma_mode == SM_CMA_YES ? " (RCMSG_SM_CMA=yes: no fallback)" : "");
            return RCMSG_ERR_IO;
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
static void sm_on_getreq(sm_btl_t *sm, sm_peer_t *p, const sm_getreq_t *req)
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

static void sm_on_getdone(sm_btl_t *sm, sm_peer_t *p, const sm_getreq_t *done)
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

/* ---- progress -------------------------------------------------------------------------- */

static void sm_peer_fail(sm_btl_t *sm, sm_peer_t *p, const char *why)
{
    if (p->failed) {
        return;
    }
    p->failed = true;
    rcmsg_error("peer %d (local rank %d, pid %d) is gone: %s; every pending and later operation "
                "to it fails with %s",
                p->world, p->local_rank, (int)p->pid, why, rcmsg_status_name(RCMSG_ERR_CONNECTION));
    p->staged_req_pending = false;
    p->owe_done = false;
    if (p->staged != NULL) {
        rcmsg_btl_desc_t *d = p->staged;
        p->staged = NULL;
        d->complete(d, RCMSG_ERR_CONNECTION);
    }
    if (sm->super.fail_cb != NULL) {
        sm->super.fail_cb(sm->super.cb_arg, p->world, RCMSG_ERR_CONNECTION);
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

/* Checks that local peers are alive (at most every SM_LIVENESS_US); returns how many were
 * found gone now. */
static int sm_liveness(sm_btl_t *sm)
{
    uint64_t now = sm_now_us();
    int lost = 0;

    if (now - sm->last_check_us < SM_LIVENESS_US) {
        return 0;
    }
    sm->last_check_us = now;
    for (int i = 0; i < sm->job.size; i++) {
        sm_peer_t *p = &sm->peers[i];
        if (p->seg != NULL && !p->failed && !sm_pid_alive(p->pid)) {
            sm_peer_fail(sm, p, "its process exited");
            lost++;
        }
    }
    return lost;
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
    for (int s = 0; s < sm->job.local_size; s++) {
        int world = sm->local_to_world[s];
        sm_ring_t *ring = sm_ring(sm, sm->seg, s);
        uint64_t head;
        sm_peer_t *p;

        if (world < 0) {
            continue;
        }
        p = &sm->peers[world];
        if (p->failed) {
            continue;
        }
        if (p->owe_done) {
            sm_getreq_t done = {.len = p->done_len, .token = p->done_token};
            p->owe_done = sm_put(sm, p, SM_CELL_GETDONE, &done, sizeof(done), NULL, 0) != RCMSG_OK;
        }
        if (p->staged_req_pending && p->staged != NULL) {
            sm_staged_request(sm, p);
        }
        head = atomic_load_explicit(&ring->head, memory_order_relaxed);
        for (unsigned k = 0; k < sm->batch; k++, head++) {
            sm_cell_t *cell = sm_cell(sm, ring, head);

            if (atomic_load_explicit(&cell->seq, memory_order_acquire) != head + 1) {
                break; /* not written yet */
            }

            if (cell->type == SM_CELL_MSG && cell->len <= sm->cell_size) {
                btl->recv_cb(btl->cb_arg, world, cell->data, cell->len);
            } else if (cell->type == SM_CELL_GETREQ && cell->len == sizeof(sm_getreq_t)) {
                sm_getreq_t req;
                memcpy(&req, cell->data, sizeof(req));
                if (req.len <= sm->staging) {
                    sm_on_getreq(sm, p, &req);
                }
            } else if (cell->type == SM_CELL_GETDONE && cell->len == sizeof(sm_getreq_t)) {
                sm_getreq_t done;
                memcpy(&done, cell->data, sizeof(done));
                if (done.len <= sm->staging) {
                    sm_on_getdone(sm, p, &done);
                }
            } else {
                rcmsg_error("sm: dropped a malformed cell from peer %d (type %u, %u bytes)", world,
                            cell->type, cell->len);
            }
            atomic_store_explicit(&ring->head, head + 1, memory_order_release);
            n++;
        }
    }
    if ((++sm->calls & 1023) == 0) {
        n += sm_liveness(sm); /* reads the clock; checks peers every 100 ms (and in sm_arm) */
    }
    return n;
}

static rcmsg_status_t sm_arm(rcmsg_btl_t *btl)
{
    sm_btl_t *sm = sm_btl_of(btl);

    /* before a sleep (polls are then too few to count on): a lost peer is work */
    if (sm_liveness(sm) > 0 || sm->ndone > 0) {
        return RCMSG_INPROGRESS;
    }
    for (int s = 0; s < sm->job.local_size; s++) {
        sm_ring_t *ring = sm_ring(sm, sm->seg, s);
        uint64_t head = atomic_load_explicit(&ring->head, memory_order_relaxed);

        if (sm->local_to_world[s] >= 0 &&
            atomic_load_explicit(&sm_cell(sm, ring, head)->seq, memory_order_acquire) == head + 1) {
            return RCMSG_INPROGRESS;
        }
    }
    return RCMSG_OK;
}

static void sm_close(rcmsg_btl_t *btl)
{
    sm_btl_t *sm = sm_btl_of(btl);

    for (int i = 0; sm->peers != NULL && i < sm->job.size; i++) {
        if (sm->peers[i].seg != NULL) {
            munmap(sm->peers[i].seg, sm->peers[i].seg_size);
        }
    }
    if (sm->seg != NULL) {
        munmap(sm->seg, sm->seg_size);
    }
    if (sm->memfd >= 0) {
        close(sm->memfd);
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
    .mem_reg = rcmsg_btl_mem_reg_none, /* CMA needs none */
    .mem_dereg = rcmsg_btl_mem_dereg_none,
    .ping = rcmsg_btl_ping_none, /* lost peers are noticed without probes */
    .progress = sm_progress,
    .flush = rcmsg_btl_flush_none,       /* a send is in the peer's memory at once */
    .event_fd = rcmsg_btl_event_fd_none, /* event waits re-check every 100 ms */
    .arm = sm_arm,
    .close = sm_close,
};

rcmsg_status_t rcmsg_sm_btl_open(const rcmsg_btl_job_t *job, rcmsg_btl_t **btl_p)
{
    sm_btl_t *sm = calloc(1, sizeof(*sm));
    sm_seg_hdr_t *h;

    if (sm == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    sm->memfd = -1;
    sm->job = *job;
    sm->super.name = "sm";
    sm->super.ops = &sm_ops;
    sm->ncells = (unsigned)rcmsg_config_int(RCMSG_CFG_SM_CELLS);
    sm->cell_size = rcmsg_config_size(RCMSG_CFG_SRQ_BUF_SIZE);
    sm->cell_stride = (sizeof(sm_cell_t) + sm->cell_size + 63) & ~(size_t)63;
    sm->ring_size = sizeof(sm_ring_t) + sm->ncells * sm->cell_stride;
    sm->staging = (rcmsg_config_size(RCMSG_CFG_SM_STAGING) + 63) & ~(size_t)63;
    sm->cma_mode = rcmsg_config_enum(RCMSG_CFG_SM_CMA);
    sm->batch = (unsigned)rcmsg_config_int(RCMSG_CFG_POLL_BATCH);
    sm->seg_size = sizeof(sm_seg_hdr_t) + (size_t)job->local_size * (sm->ring_size + sm->staging);
    sm->peers = calloc((size_t)job->size, sizeof(*sm->peers));
    sm->local_to_world = malloc(sizeof(int) * (size_t)job->local_size);
    if (sm->peers == NULL || sm->local_to_world == NULL) {
        sm_close(&sm->super);
        return RCMSG_ERR_NO_MEMORY;
    }
    for (int i = 0; i < job->local_size; i++) {
        sm->local_to_world[i] = -1;
    }
    sm->memfd = memfd_create("rcmsg-sm", MFD_CLOEXEC);
    if (sm->memfd < 0 || ftruncate(sm->memfd, (off_t)sm->seg_size) != 0) {
        rcmsg_error("cannot create the %zu-byte shared segment (memfd): %m", sm->seg_size);
        sm_close(&sm->super);
        return RCMSG_ERR_IO;
    }
    sm->seg = mmap(NULL, sm->seg_size, PROT_READ | PROT_WRITE, MAP_SHARED, sm->memfd, 0);
    if (sm->seg == MAP_FAILED) {
        sm->seg = NULL;
        rcmsg_error("cannot map the shared segment: %m");
        sm_close(&sm->super);
        return RCMSG_ERR_IO;
    }
    h = (sm_seg_hdr_t *)sm->seg;
    *h = (sm_seg_hdr_t){.magic = SM_MAGIC,
                        .pid = (uint32_t)getpid(),
                        .local_rank = (uint32_t)job->local_rank,
                        .nlocal = (uint32_t)job->local_size,
                        .ncells = sm->ncells,
                        .cell_size = sm->cell_size,
                        .staging = sm->staging};
    sm->super.caps = (rcmsg_btl_caps_t){
        .max_send = sm->cell_size, .max_inline = 0, .max_get = SIZE_MAX, .max_gets = 16};
    rcmsg_info("sm: %zu-byte segment (memfd, nothing in /dev/shm): %u cells of %zu bytes per "
               "local sender, %zu-byte staging; CMA %s",
               sm->seg_size, sm->ncells, sm->cell_size, sm->staging,
               rcmsg_config_enum_text(RCMSG_CFG_SM_CMA));
    *btl_p = &sm->super;
    return RCMSG_OK;
}
