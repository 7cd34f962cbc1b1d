/* SPDX-License-Identifier: BSD-3-Clause */
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

#include "base/clock.h"
#include "base/compiler.h"
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
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define SM_MAGIC       0x72636d7367736d31ull /* "rcmsgsm1" */
#define SM_ADDR_LEN    48
#define SM_LIVENESS_US 100000
#define SM_CTL_CELLS   2
#define SM_CMA_PIECE   (1ull << 30) /* below MAX_RW_COUNT, the most one process_vm_readv moves */

enum { SM_CELL_MSG = 1, SM_CELL_GETREQ, SM_CELL_GETDONE };
enum { SM_CMA_AUTO, SM_CMA_YES, SM_CMA_NO };

/* A ring in its owner's segment, one per local sender. The sender keeps its own tail and a
 * cached copy of head (sm_peer_t), so the only line both sides write per message is the cell:
 * the owner polls the next cell's seq, in the same cache line as its header and first bytes. */
typedef struct {
    _Atomic uint64_t head; /* cells consumed, written by the owner; read by the sender only
                            * when its cached copy says the ring is full */
    _Atomic uint32_t sender_sleeping; /* the sender sleeps until head moves (see sm_arm) */
    char pad[52];
} sm_ring_t;

typedef struct {
    _Atomic uint64_t seq; /* index + 1 of the message it holds, written last by the sender */
    _Atomic uint32_t len; /* atomic: read once by the owner (sm_cell_handle), never re-read */
    _Atomic uint32_t type;
    char data[];
} sm_cell_t;

typedef struct {
    uint64_t magic;
    uint32_t pid, local_rank, nlocal, ncells;
    uint64_t cell_size, staging;
    char pad[24];
    _Atomic uint32_t sleeping; /* the owner sleeps until a cell arrives (see sm_arm) */
    char pad2[60];
} sm_seg_hdr_t;
RCMSG_STATIC_ASSERT(sizeof(sm_seg_hdr_t) == 128, "the header keeps the rings cache-line aligned");

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
    bool full;           /* a put found the ring full: wake this rank when head moves */
    /* wakeups: the peer's wakeup pipe, opened for writing (-1: none) */
    int wake_fd;
    bool sleeps; /* the peer may sleep in waits (its RCMSG_WAIT_MODE is not poll) */
} sm_peer_t;

typedef struct {
    rcmsg_btl_t super;
    rcmsg_btl_job_t job;
    int memfd;
    int wake_fd, wake_wr; /* this rank's wakeup pipe (read end readable after a peer's
                           * sm_wake(); the write end only keeps it open) */
    bool sleeps;          /* RCMSG_WAIT_MODE is not poll: waits may sleep in sm_arm + poll() */
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
    rcmsg_deadline_t next_check; /* sm_liveness */
} sm_btl_t;

static inline sm_btl_t *sm_btl_of(rcmsg_btl_t *btl)
{
    return (sm_btl_t *)btl;
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
 * cell_size u32, staging u64, wake_fd u32, sleeps u32 (host byte order: only ever read on
 * the same node) */
typedef struct {
    uint64_t node_key;
    uint32_t pid, fd;
    uint64_t seg_size;
    uint32_t local_rank, nlocal, ncells, cell_size;
    uint64_t staging;
    uint32_t wake_fd, sleeps;
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
                   .staging = sm->staging,
                   .wake_fd = (uint32_t)sm->wake_fd,
                   .sleeps = sm->sleeps};

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

/* Opens the peer's wakeup pipe for writing, through /proc like its segment. Read-write: this
 * process is then a reader too, so a write after the peer has gone is EAGAIN at worst, never
 * SIGPIPE. */
static rcmsg_status_t sm_wake_open(sm_peer_t *p, int peer, uint32_t pid, uint32_t wake_fd)
{
    char path[64];

    snprintf(path, sizeof(path), "/proc/%u/fd/%u", pid, wake_fd);
    p->wake_fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (p->wake_fd < 0) {
        rcmsg_error("cannot open the wakeup pipe of peer %d (%s): %m", peer, path);
        return RCMSG_ERR_IO;
    }
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
    if (a->cell_size != sm->cell_size) {
        rcmsg_error("peer %d uses %u-byte shared-memory cells, this rank %zu: set the same "
                    "RCMSG_SRQ_BUF_SIZE on every rank",
                    peer, a->cell_size, sm->cell_size);
        return RCMSG_ERR_CONFIG;
    }
    if (a->ncells != sm->ncells) {
        rcmsg_error("peer %d has %u cells per shared-memory ring, this rank %u: set the same "
                    "RCMSG_SM_CELLS on every rank",
                    peer, a->ncells, sm->ncells);
        return RCMSG_ERR_CONFIG;
    }
    if (a->staging != sm->staging) {
        rcmsg_error("peer %d has a %llu-byte staging area, this rank %zu (rounded up to 64 "
                    "bytes): set the same RCMSG_SM_STAGING on every rank",
                    peer, (unsigned long long)a->staging, sm->staging);
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

static rcmsg_status_t sm_connect(rcmsg_btl_t *btl, int peer, const void *addr, size_t len)
{
    sm_btl_t *sm = sm_btl_of(btl);
    sm_peer_t *p = &sm->peers[peer];
    char path[64];
    sm_addr_t a;
    sm_seg_hdr_t *h;
    rcmsg_status_t s;
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
    s = sm_addr_check(sm, peer, &a);
    if (s != RCMSG_OK) {
        return s;
    }
    snprintf(path, sizeof(path), "/proc/%u/fd/%u", a.pid, a.fd);
    fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        rcmsg_error("cannot open the shared segment of peer %d (%s): %m", peer, path);
        return RCMSG_ERR_IO;
    }
    if (a.sleeps && sm_wake_open(p, peer, a.pid, a.wake_fd) != RCMSG_OK) {
        close(fd);
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
    p->sleeps = a.sleeps != 0;
    sm->local_to_world[p->local_rank] = peer;
    if (!p->cma) {
        rcmsg_info("sm: single-copy reads (CMA) from peer %d are not permitted%s; large messages "
                   "are copied through the shared segment",
                   peer, sm->cma_mode == SM_CMA_NO ? " (RCMSG_SM_CMA=no)" : " (ptrace scope?)");
    }
    rcmsg_debug("sm: peer %d (local rank %d, pid %d) mapped", peer, p->local_rank, (int)p->pid);
    return RCMSG_OK;
}

/* ---- wakeups ---------------------------------------------------------------------------
 *
 * A rank about to sleep (sm_arm) sets a flag, then looks for work once more, then sleeps in
 * poll() on its wakeup pipe (at most 100 ms: lost peers are still noticed). The other side
 * makes its change (publishes a cell, or moves head), then reads the flag; whoever clears a
 * set flag writes a byte into the sleeper's pipe. A seq_cst fence between each side's store
 * and load means at least one of them sees the other's store: the sleeper finds the work, or
 * the other side finds the flag. No wakeup is lost, and one syscall is paid per sleep at most.
 * Nothing of this is done toward ranks that never sleep (RCMSG_WAIT_MODE=poll).
 */

/* Sets *flag, then fences: the caller checks for work next. */
static void sm_sleep_announce(_Atomic uint32_t *flag)
{
    atomic_store_explicit(flag, 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_seq_cst);
}

/* After publishing a change the sleeper waits for: wakes it if it announced a sleep. */
static void sm_wake(sm_peer_t *p, _Atomic uint32_t *flag)
{
    char byte = 0;

    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load_explicit(flag, memory_order_relaxed) != 0 &&
        atomic_exchange_explicit(flag, 0, memory_order_relaxed) != 0 && p->wake_fd >= 0 &&
        write(p->wake_fd, &byte, 1) < 0 && errno != EAGAIN) {
        rcmsg_warn("sm: cannot wake peer %d: %m", p->world); /* EAGAIN: a wakeup is pending */
    }
}

/* Empties this rank's wakeup pipe (its bytes only ever mean "look for work"). */
static void sm_wake_drain(sm_btl_t *sm)
{
    char buf[64];

    while (read(sm->wake_fd, buf, sizeof(buf)) > 0) {
    }
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
            p->full = true;
            return RCMSG_ERR_NO_RESOURCE;
        }
    }
    cell = sm_cell(sm, ring, tail);
    memcpy(cell->data, a, alen);
    if (blen > 0) {
        memcpy(cell->data + alen, b, blen);
    }
    atomic_store_explicit(&cell->len, (uint32_t)(alen + blen), memory_order_relaxed);
    atomic_store_explicit(&cell->type, type, memory_order_relaxed);
    atomic_store_explicit(&cell->seq, tail + 1, memory_order_release);
    p->tail = tail + 1;
    if (p->sleeps) {
        sm_wake(p, &((sm_seg_hdr_t *)p->seg)->sleeping);
    }
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

/* Reads len bytes of the peer's memory with process_vm_readv, in pieces: one call moves at
 * most MAX_RW_COUNT (2 GiB - 4 KiB) bytes, and may stop short at a fault. RCMSG_OK once every
 * byte is read; RCMSG_ERR_UNSUPPORTED when the kernel refuses the first piece with EPERM (the
 * caller may fall back to staged copies); otherwise an error, logged here. */
static rcmsg_status_t sm_cma_read(sm_btl_t *sm, sm_peer_t *p, char *local, uint64_t remote_addr,
                                  size_t len)
{
    size_t done = 0;

    while (done < len) {
        size_t piece = len - done < SM_CMA_PIECE ? len - done : SM_CMA_PIECE;
        struct iovec l = {.iov_base = local + done, .iov_len = piece};
        struct iovec r = {.iov_base = (void *)(uintptr_t)(remote_addr + done), .iov_len = piece};
        ssize_t n = process_vm_readv(p->pid, &l, 1, &r, 1, 0);

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
        if (n < 0 && errno == EPERM && done == 0 && sm->cma_mode != SM_CMA_YES) {
            return RCMSG_ERR_UNSUPPORTED;
        }
        rcmsg_error("process_vm_readv from peer %d (pid %d) failed after %zu of %zu bytes, at "
                    "0x%llx: %s%s",
                    p->world, (int)p->pid, done, len, (unsigned long long)(remote_addr + done),
                    n == 0 ? "no progress" : strerror(errno),
                    sm->cma_mode == SM_CMA_YES ? " (RCMSG_SM_CMA=yes: no fallback)" : "");
        return RCMSG_ERR_IO;
    }
    return RCMSG_OK;
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
        rcmsg_status_t s = sm_cma_read(sm, p, local, remote_addr, len);
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

/* One published cell from peer p. Its type and length are read once, into local memory,
 * before they are checked and used: the peer can still write the shared cell. */
static void sm_cell_handle(sm_btl_t *sm, sm_peer_t *p, sm_cell_t *cell)
{
    uint32_t type = atomic_load_explicit(&cell->type, memory_order_relaxed);
    uint32_t len = atomic_load_explicit(&cell->len, memory_order_relaxed);
    sm_getreq_t req;

    if (type == SM_CELL_MSG && len <= sm->cell_size) {
        sm->super.recv_cb(sm->super.cb_arg, p->world, cell->data, len);
        return;
    }
    if ((type == SM_CELL_GETREQ || type == SM_CELL_GETDONE) && len == sizeof(req)) {
        memcpy(&req, cell->data, sizeof(req));
        if (req.len > sm->staging) {
            rcmsg_error("sm: dropped a copy %s of %llu bytes from peer %d (the staging area holds "
                        "%zu)",
                        type == SM_CELL_GETREQ ? "request" : "reply", (unsigned long long)req.len,
                        p->world, sm->staging);
        } else if (type == SM_CELL_GETREQ) {
            sm_on_getreq(sm, p, &req);
        } else {
            sm_on_getdone(sm, p, &req);
        }
        return;
    }
    rcmsg_error("sm: dropped a malformed cell from peer %d (type %u, %u bytes)", p->world, type,
                len);
}

/* Checks that local peers are alive (at most every SM_LIVENESS_US); returns how many were
 * found gone now. */
static int sm_liveness(sm_btl_t *sm)
{
    uint64_t now = rcmsg_clock_us();
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
        bool consumed = false;
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

            sm_cell_handle(sm, p, cell);
            atomic_store_explicit(&ring->head, head + 1, memory_order_release);
            n++;
            consumed = true;
        }
        if (consumed && p->sleeps) {
            sm_wake(p, &ring->sender_sleeping); /* it may wait for room */
        }
    }
    if ((++sm->calls & 1023) == 0) {
        n += sm_liveness(sm); /* reads the clock; checks peers every 100 ms (and in sm_arm) */
    }
    return n;
}

/* Is a cell waiting in one of this rank's rings? */
static bool sm_rings_ready(sm_btl_t *sm)
{
    for (int s = 0; s < sm->job.local_size; s++) {
        sm_ring_t *ring = sm_ring(sm, sm->seg, s);
        uint64_t head = atomic_load_explicit(&ring->head, memory_order_relaxed);

        if (sm->local_to_world[s] >= 0 &&
            atomic_load_explicit(&sm_cell(sm, ring, head)->seq, memory_order_acquire) == head + 1) {
            return true;
        }
    }
    return false;
}

/* Has a ring this rank found full (a put of it waits) got room again? Asks the peers to wake
 * this rank when they make room (their sm_progress). */
static bool sm_room_ready(sm_btl_t *sm)
{
    for (int s = 0; s < sm->job.local_size; s++) {
        int world = sm->local_to_world[s];
        sm_peer_t *p = world >= 0 ? &sm->peers[world] : NULL;
        sm_ring_t *ring;

        if (p == NULL || !p->full || p->failed) {
            continue;
        }
        ring = sm_ring(sm, p->seg, sm->job.local_rank);
        sm_sleep_announce(&ring->sender_sleeping);
        p->head_cache = atomic_load_explicit(&ring->head, memory_order_acquire);
        if (p->tail - p->head_cache < sm->ncells - SM_CTL_CELLS) {
            p->full = false;
            atomic_store_explicit(&ring->sender_sleeping, 0, memory_order_relaxed);
            return true;
        }
    }
    return false;
}

static rcmsg_status_t sm_arm(rcmsg_btl_t *btl)
{
    sm_btl_t *sm = sm_btl_of(btl);
    _Atomic uint32_t *sleeping = &((sm_seg_hdr_t *)sm->seg)->sleeping;

    /* before a sleep (polls are then too few to count on): a lost peer is work */
    if (sm_liveness(sm) > 0 || sm->ndone > 0) {
        return RCMSG_INPROGRESS;
    }
    sm_wake_drain(sm);
    sm_sleep_announce(sleeping);
    if (sm_rings_ready(sm) || sm_room_ready(sm)) {
        atomic_store_explicit(sleeping, 0, memory_order_relaxed); /* spare the senders a write */
        return RCMSG_INPROGRESS;
    }
    return RCMSG_OK;
}

static int sm_event_fd(rcmsg_btl_t *btl)
{
    return sm_btl_of(btl)->wake_fd;
}

static void sm_close(rcmsg_btl_t *btl)
{
    sm_btl_t *sm = sm_btl_of(btl);

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
    .mem_reg = rcmsg_btl_mem_reg_none, /* CMA needs none */
    .mem_dereg = rcmsg_btl_mem_dereg_none,
    .ping = rcmsg_btl_ping_none, /* lost peers are noticed without probes */
    .progress = sm_progress,
    .flush = rcmsg_btl_flush_none, /* a send is in the peer's memory at once */
    .event_fd = sm_event_fd,       /* the wakeup pipe: see sm_arm */
    .arm = sm_arm,
    .close = sm_close,
};

/* This rank's wakeup pipe: peers open its read end read-write through /proc (an eventfd
 * cannot be reopened there). This rank keeps the write end open too, so that the pipe never
 * reports a hangup (no writer left) when its peers are gone. */
static rcmsg_status_t sm_wake_create(sm_btl_t *sm)
{
    int fds[2];

    if (pipe2(fds, O_NONBLOCK | O_CLOEXEC) != 0) {
        rcmsg_error("cannot create the shared-memory wakeup pipe: %m");
        return RCMSG_ERR_IO;
    }
    sm->wake_fd = fds[0];
    sm->wake_wr = fds[1];
    return RCMSG_OK;
}

rcmsg_status_t rcmsg_sm_btl_open(const rcmsg_btl_job_t *job, rcmsg_btl_t **btl_p)
{
    sm_btl_t *sm = calloc(1, sizeof(*sm));
    sm_seg_hdr_t *h;

    if (sm == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    sm->memfd = -1;
    sm->wake_fd = -1;
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
    sm->sleeps = rcmsg_config_enum(RCMSG_CFG_WAIT_MODE) != 0; /* 0: poll, never sleeps */
    sm->seg_size = sizeof(sm_seg_hdr_t) + (size_t)job->local_size * (sm->ring_size + sm->staging);
    sm->peers = calloc((size_t)job->size, sizeof(*sm->peers));
    sm->local_to_world = malloc(sizeof(int) * (size_t)job->local_size);
    for (int i = 0; sm->peers != NULL && i < job->size; i++) {
        sm->peers[i].wake_fd = -1;
    }
    if (sm->peers == NULL || sm->local_to_world == NULL) {
        sm_close(&sm->super);
        return RCMSG_ERR_NO_MEMORY;
    }
    for (int i = 0; i < job->local_size; i++) {
        sm->local_to_world[i] = -1;
    }
    sm->memfd = memfd_create("rcmsg-sm", MFD_CLOEXEC);
    /* a memfd is created 0777: only this user's processes may open it through /proc */
    if (sm->memfd < 0 || fchmod(sm->memfd, 0600) != 0 ||
        ftruncate(sm->memfd, (off_t)sm->seg_size) != 0) {
        rcmsg_error("cannot create the %zu-byte shared segment (memfd): %m", sm->seg_size);
        sm_close(&sm->super);
        return RCMSG_ERR_IO;
    }
    if (sm->sleeps && sm_wake_create(sm) != RCMSG_OK) {
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
