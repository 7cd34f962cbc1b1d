/* SPDX-License-Identifier: BSD-3-Clause */
/* Rendezvous registrations, optionally cached (LRU, bounded in bytes). */
#include "config.h"

#include "rcache.h"

#include "base/config_table.h"
#include "base/log.h"

#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

struct rcmsg_rcache_entry {
    rcmsg_rcache_entry_t *prev, *next; /* LRU list: head = most recently used */
    rcmsg_btl_t *btl;
    uintptr_t start, end;
    bool remote_read;
    int refs;
    rcmsg_btl_mem_t mem;
};

static struct {
    bool enabled;
    size_t limit, bytes;
    rcmsg_rcache_entry_t *head, *tail;
    unsigned long hits, regs;
} rc_cache;

void rcmsg_rcache_init(void)
{
    rc_cache = (__typeof__(rc_cache)){0};
    rc_cache.enabled = rcmsg_config_bool(RCMSG_CFG_RCACHE);
    rc_cache.limit = rcmsg_config_size(RCMSG_CFG_RCACHE_SIZE);
    rcmsg_info("registration cache %s%s", rc_cache.enabled ? "on, up to " : "off",
               rc_cache.enabled ? rcmsg_config_text(RCMSG_CFG_RCACHE_SIZE) : "");
}

static void lru_unlink(rcmsg_rcache_entry_t *e)
{
    if (e->prev != NULL) {
        e->prev->next = e->next;
    } else {
        rc_cache.head = e->next;
    }
    if (e->next != NULL) {
        e->next->prev = e->prev;
    } else {
        rc_cache.tail = e->prev;
    }
    e->prev = e->next = NULL;
}

static void lru_push_front(rcmsg_rcache_entry_t *e)
{
    e->prev = NULL;
    e->next = rc_cache.head;
    if (rc_cache.head != NULL) {
        rc_cache.head->prev = e;
    }
    rc_cache.head = e;
    if (rc_cache.tail == NULL) {
        rc_cache.tail = e;
    }
}

static void entry_release(rcmsg_rcache_entry_t *e)
{
    e->btl->ops->mem_dereg(e->btl, &e->mem);
    rc_cache.bytes -= e->end - e->start;
    free(e);
}

/* Evict unused entries, least recently used first, until the cache fits its limit. */
static void evict(void)
{
    rcmsg_rcache_entry_t *e = rc_cache.tail;

    while (e != NULL && rc_cache.bytes > rc_cache.limit) {
        rcmsg_rcache_entry_t *prev = e->prev;
        if (e->refs == 0) {
            lru_unlink(e);
            entry_release(e);
        }
        e = prev;
    }
}

rcmsg_status_t rcmsg_rcache_get(rcmsg_btl_t *btl, void *addr, size_t len, bool remote_read,
                                rcmsg_rcache_entry_t **entry_p, const rcmsg_btl_mem_t **mem_p)
{
    uintptr_t start = (uintptr_t)addr, end = start + len;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    rcmsg_rcache_entry_t *e;
    rcmsg_status_t status;

    if (rc_cache.enabled) {
        for (e = rc_cache.head; e != NULL; e = e->next) {
            /* same access only: a send buffer is registered REMOTE_READ, a read target
             * LOCAL_WRITE, and neither serves the other */
            if (e->btl == btl && e->start <= start && end <= e->end &&
                e->remote_read == remote_read) {
                e->refs++;
                lru_unlink(e);
                lru_push_front(e);
                rc_cache.hits++;
                *entry_p = e;
                *mem_p = &e->mem;
                return RCMSG_OK;
            }
        }
        /* register whole pages, so that neighbours on the same pages hit */
        start &= ~(page - 1);
        end = (end + page - 1) & ~(page - 1);
    }
    e = calloc(1, sizeof(*e));
    if (e == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    status = btl->ops->mem_reg(btl, (void *)start, end - start, remote_read, &e->mem);
    if (status != RCMSG_OK) {
        free(e);
        return status;
    }
    e->btl = btl;
    e->start = start;
    e->end = end;
    e->remote_read = remote_read;
    e->refs = 1;
    rc_cache.regs++;
    rc_cache.bytes += end - start;
    if (rc_cache.enabled) {
        lru_push_front(e);
        evict();
    }
    *entry_p = e;
    *mem_p = &e->mem;
    return RCMSG_OK;
}

void rcmsg_rcache_put(rcmsg_rcache_entry_t *e)
{
    if (--e->refs > 0) {
        return;
    }
    if (!rc_cache.enabled) {
        entry_release(e);
        return;
    }
    evict();
}

void rcmsg_rcache_fini(void)
{
    rcmsg_rcache_entry_t *e = rc_cache.head;

    while (e != NULL) {
        rcmsg_rcache_entry_t *next = e->next;
        if (e->refs > 0) {
            rcmsg_warn("registration of %zu bytes at %p still in use at finalize",
                       (size_t)(e->end - e->start), (void *)e->start);
        }
        entry_release(e);
        e = next;
    }
    rcmsg_debug("registration cache: %lu hits, %lu registrations", rc_cache.hits, rc_cache.regs);
    rc_cache.head = rc_cache.tail = NULL;
}
