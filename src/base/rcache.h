/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Memory registrations, with an optional registration cache. Generic: the cache knows
 * nothing of transports; its user gives it register/deregister callbacks and the size of
 * the handle a registration fills in (the pml adapts the transport's mem_reg/mem_dereg).
 *
 * With RCMSG_RCACHE=no (the default) every rcmsg_rcache_get() registers and every put()
 * deregisters. With RCMSG_RCACHE=yes registrations are kept (at most RCMSG_RCACHE_SIZE
 * bytes, least recently used evicted first) and reused for buffers they cover. The cache is
 * off by default because rcmsg cannot observe free()/munmap(): glibc's allocator returns
 * large blocks to the kernel through an internal munmap that symbol interposition does not
 * catch, so a cached registration could outlive its pages (docs/p2p.md, "Registration cache").
 *
 * Every registration belongs to an opaque context (the pml's: a transport) given to get()
 * and passed back to the callbacks; an entry serves only gets of its own context.
 */
#ifndef RCMSG_BASE_RCACHE_H
#define RCMSG_BASE_RCACHE_H

#include <rcmsg.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct rcmsg_rcache_entry rcmsg_rcache_entry_t;

typedef struct {
    /* Registers [addr, addr+len) of ctx for local writes, or for remote reads when
     * remote_read; fills handle (handle_size bytes, suitably aligned). Logs its failures. */
    rcmsg_status_t (*reg)(void *ctx, void *addr, size_t len, bool remote_read, void *handle);
    /* Releases what reg() filled in. */
    void (*dereg)(void *ctx, void *handle);
    size_t handle_size;
} rcmsg_rcache_ops_t;

/* Reads RCMSG_RCACHE and RCMSG_RCACHE_SIZE; ops must outlive the cache (until fini). */
void rcmsg_rcache_init(const rcmsg_rcache_ops_t *ops);
/* Deregisters everything (entries still in use are reported). */
void rcmsg_rcache_fini(void);

/* A registration covering [addr, addr+len) in ctx; *handle_p (what ops->reg filled in)
 * stays valid until put(). */
rcmsg_status_t rcmsg_rcache_get(void *ctx, void *addr, size_t len, bool remote_read,
                                rcmsg_rcache_entry_t **entry_p, const void **handle_p);
void rcmsg_rcache_put(rcmsg_rcache_entry_t *entry);

/* Counters since init, for tests and the finalize debug line. */
typedef struct {
    unsigned long hits, regs; /* gets served from the cache; calls of ops->reg */
    size_t bytes;             /* bytes registered now */
} rcmsg_rcache_stats_t;
rcmsg_rcache_stats_t rcmsg_rcache_stats(void);

#endif /* RCMSG_BASE_RCACHE_H */
