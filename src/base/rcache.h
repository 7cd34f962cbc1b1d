/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Memory registrations for rendezvous buffers, with an optional registration cache.
 *
 * With RCMSG_RCACHE=no (the default) every rcmsg_rcache_get() registers and every put()
 * deregisters. With RCMSG_RCACHE=yes registrations are kept (at most RCMSG_RCACHE_SIZE
 * bytes, least recently used evicted first) and reused for buffers they cover. The cache is
 * off by default because rcmsg cannot observe free()/munmap(): glibc's allocator returns
 * large blocks to the kernel through an internal munmap that symbol interposition does not
 * catch, so a cached registration could outlive its pages (README.md, "Registration cache").
 */
#ifndef RCMSG_BASE_RCACHE_H
#define RCMSG_BASE_RCACHE_H

#include "btl/btl.h"

#include <stdbool.h>

typedef struct rcmsg_rcache_entry rcmsg_rcache_entry_t;

void rcmsg_rcache_init(void);
/* Deregisters everything (entries still in use are reported). */
void rcmsg_rcache_fini(void);

/* A registration covering [addr, addr+len) on btl; *mem_p stays valid until put(). */
rcmsg_status_t rcmsg_rcache_get(rcmsg_btl_t *btl, void *addr, size_t len, bool remote_read,
                                rcmsg_rcache_entry_t **entry_p, const rcmsg_btl_mem_t **mem_p);
void rcmsg_rcache_put(rcmsg_rcache_entry_t *entry);

#endif /* RCMSG_BASE_RCACHE_H */
