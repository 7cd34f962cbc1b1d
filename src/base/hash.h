/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The one hash: a chained hash table of intrusive links keyed by a 64-bit key. The owner
 * embeds an rcmsg_hash_link_t in its struct (RCMSG_CONTAINER_OF gets the struct back) and
 * owns its memory; the table holds only the bucket array. A zeroed table is empty and
 * allocates nothing until the first insert. Keys are unique only if the caller keeps them so
 * (insert does not look for a duplicate; find returns the latest inserted).
 *
 * Lookup is inline (one multiply, one chain walk). The bucket array doubles when the table
 * holds as many entries as buckets; when that allocation fails the table keeps working with
 * longer chains, so only the very first insert can fail.
 *
 *   for (rcmsg_hash_link_t *l = rcmsg_hash_first(&h); l != NULL; l = rcmsg_hash_next(&h, l))
 *
 * visits every entry (in no particular order); to remove the current entry while walking,
 * take next first. No insert during a walk (it may grow the table).
 *
 * rcmsg_hash_bytes32/64: the one hash of a byte string (FNV-1a), for a value every rank must
 * derive alike from the same bytes (a context id, a node key); not for choosing buckets.
 */
#ifndef RCMSG_BASE_HASH_H
#define RCMSG_BASE_HASH_H

#include "base/compiler.h"

#include <rcmsg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct rcmsg_hash_link {
    struct rcmsg_hash_link *next; /* bucket chain */
    uint64_t key;
} rcmsg_hash_link_t;

typedef struct {
    rcmsg_hash_link_t **buckets; /* [1 << bits]; NULL while empty and never grown */
    unsigned bits;
    size_t count; /* entries */
} rcmsg_hash_t;

#define RCMSG_HASH_MIN_BITS 4

#define RCMSG_HASH_FNV32_BASIS 2166136261u
#define RCMSG_HASH_FNV32_PRIME 16777619u
#define RCMSG_HASH_FNV64_BASIS 14695981039346656037ull
#define RCMSG_HASH_FNV64_PRIME 1099511628211ull

/* 32-bit FNV-1a of len bytes at data. */
static inline uint32_t rcmsg_hash_bytes32(const void *data, size_t len)
{
    const uint8_t *p = data;
    uint32_t h = RCMSG_HASH_FNV32_BASIS;

    for (size_t i = 0; i < len; i++) {
        h = (h ^ p[i]) * RCMSG_HASH_FNV32_PRIME;
    }
    return h;
}

/* 64-bit FNV-1a of len bytes at data. */
static inline uint64_t rcmsg_hash_bytes64(const void *data, size_t len)
{
    const uint8_t *p = data;
    uint64_t h = RCMSG_HASH_FNV64_BASIS;

    for (size_t i = 0; i < len; i++) {
        h = (h ^ p[i]) * RCMSG_HASH_FNV64_PRIME;
    }
    return h;
}

/* Fibonacci hashing: the top bits of key * 2^64 / phi. */
static inline size_t rcmsg_hash_bucket(const rcmsg_hash_t *h, uint64_t key)
{
    return (size_t)((key * 0x9e3779b97f4a7c15ull) >> (64 - h->bits));
}

/* The entry with key, or NULL. */
static inline rcmsg_hash_link_t *rcmsg_hash_find(const rcmsg_hash_t *h, uint64_t key)
{
    if (h->buckets == NULL) {
        return NULL;
    }
    for (rcmsg_hash_link_t *l = h->buckets[rcmsg_hash_bucket(h, key)]; l != NULL; l = l->next) {
        if (l->key == key) {
            return l;
        }
    }
    return NULL;
}

static inline size_t rcmsg_hash_count(const rcmsg_hash_t *h)
{
    return h->count;
}

static inline void rcmsg_hash_init(rcmsg_hash_t *h)
{
    *h = (rcmsg_hash_t){.buckets = NULL, .bits = 0, .count = 0};
}

/* Frees the bucket array (not the entries) and leaves the table empty. */
void rcmsg_hash_fini(rcmsg_hash_t *h);

/* Adds l under key. RCMSG_ERR_NO_MEMORY (not logged: the caller says what the table was for)
 * only when the table had no bucket array yet and none could be allocated. */
rcmsg_status_t rcmsg_hash_insert(rcmsg_hash_t *h, rcmsg_hash_link_t *l, uint64_t key);

/* Unlinks l; false when it is not in the table. */
bool rcmsg_hash_remove(rcmsg_hash_t *h, rcmsg_hash_link_t *l);

/* The first entry of a walk, or NULL when the table is empty. */
rcmsg_hash_link_t *rcmsg_hash_first(const rcmsg_hash_t *h);

/* The entry after l in a walk, or NULL. */
rcmsg_hash_link_t *rcmsg_hash_next(const rcmsg_hash_t *h, const rcmsg_hash_link_t *l);

#endif /* RCMSG_BASE_HASH_H */
