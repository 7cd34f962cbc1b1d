/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The one little-endian wire codec: what a rank publishes or sends to others is written with
 * these, never as a host struct.
 *
 *   rcmsg_wire_put_u32(p, v) / rcmsg_wire_get_u32(p): a value at a byte pointer (any
 *   alignment); for fixed records described as structs of byte arrays, whose size is stated
 *   with RCMSG_STATIC_ASSERT.
 *
 *   rcmsg_wire_put_be32(p, v) / rcmsg_wire_get_be32(p): the one exception, a value the network
 *   defines as big-endian (the immediate data of an InfiniBand SEND, ibv's __be32 imm_data).
 *
 *   rcmsg_wire_writer_t / rcmsg_wire_reader_t: cursors over a buffer of known length. A write
 *   or read that does not fit fails, leaves the cursor where it was and marks it failed;
 *   every later one fails too, so a codec checks rcmsg_wire_*_ok() once at the end (or where
 *   it wants to name what was short). A reader never reads past its buffer.
 */
#ifndef RCMSG_BASE_WIRE_H
#define RCMSG_BASE_WIRE_H

#include <endian.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* ---- values at a pointer --------------------------------------------------------------- */

static inline void rcmsg_wire_put_u8(void *p, uint8_t v)
{
    *(uint8_t *)p = v;
}

static inline void rcmsg_wire_put_u16(void *p, uint16_t v)
{
    v = htole16(v);
    memcpy(p, &v, sizeof(v));
}

static inline void rcmsg_wire_put_u32(void *p, uint32_t v)
{
    v = htole32(v);
    memcpy(p, &v, sizeof(v));
}

static inline void rcmsg_wire_put_u64(void *p, uint64_t v)
{
    v = htole64(v);
    memcpy(p, &v, sizeof(v));
}

static inline uint8_t rcmsg_wire_get_u8(const void *p)
{
    return *(const uint8_t *)p;
}

static inline uint16_t rcmsg_wire_get_u16(const void *p)
{
    uint16_t v;

    memcpy(&v, p, sizeof(v));
    return le16toh(v);
}

static inline uint32_t rcmsg_wire_get_u32(const void *p)
{
    uint32_t v;

    memcpy(&v, p, sizeof(v));
    return le32toh(v);
}

static inline uint64_t rcmsg_wire_get_u64(const void *p)
{
    uint64_t v;

    memcpy(&v, p, sizeof(v));
    return le64toh(v);
}

/* Big-endian: only for fields the network defines so (the verbs imm_data). */
static inline void rcmsg_wire_put_be32(void *p, uint32_t v)
{
    v = htobe32(v);
    memcpy(p, &v, sizeof(v));
}

static inline uint32_t rcmsg_wire_get_be32(const void *p)
{
    uint32_t v;

    memcpy(&v, p, sizeof(v));
    return be32toh(v);
}

/* ---- writer ---------------------------------------------------------------------------- */

typedef struct {
    uint8_t *p;  /* the next byte to write */
    size_t left; /* bytes left in the buffer */
    bool failed; /* a write did not fit */
} rcmsg_wire_writer_t;

static inline void rcmsg_wire_writer_init(rcmsg_wire_writer_t *w, void *buf, size_t cap)
{
    *w = (rcmsg_wire_writer_t){.p = buf, .left = cap, .failed = false};
}

static inline bool rcmsg_wire_writer_ok(const rcmsg_wire_writer_t *w)
{
    return !w->failed;
}

/* Room for n more bytes: a pointer to them (the cursor moves past), or NULL (failed). */
static inline void *rcmsg_wire_write_space(rcmsg_wire_writer_t *w, size_t n)
{
    void *at = w->p;

    if (w->failed || n > w->left) {
        w->failed = true;
        return NULL;
    }
    w->p += n;
    w->left -= n;
    return at;
}

static inline void rcmsg_wire_write_bytes(rcmsg_wire_writer_t *w, const void *src, size_t n)
{
    void *at = rcmsg_wire_write_space(w, n);

    if (at != NULL && n > 0) {
        memcpy(at, src, n);
    }
}

static inline void rcmsg_wire_write_u8(rcmsg_wire_writer_t *w, uint8_t v)
{
    void *at = rcmsg_wire_write_space(w, sizeof(v));

    if (at != NULL) {
        rcmsg_wire_put_u8(at, v);
    }
}

static inline void rcmsg_wire_write_u16(rcmsg_wire_writer_t *w, uint16_t v)
{
    void *at = rcmsg_wire_write_space(w, sizeof(v));

    if (at != NULL) {
        rcmsg_wire_put_u16(at, v);
    }
}

static inline void rcmsg_wire_write_u32(rcmsg_wire_writer_t *w, uint32_t v)
{
    void *at = rcmsg_wire_write_space(w, sizeof(v));

    if (at != NULL) {
        rcmsg_wire_put_u32(at, v);
    }
}

static inline void rcmsg_wire_write_u64(rcmsg_wire_writer_t *w, uint64_t v)
{
    void *at = rcmsg_wire_write_space(w, sizeof(v));

    if (at != NULL) {
        rcmsg_wire_put_u64(at, v);
    }
}

/* ---- reader ---------------------------------------------------------------------------- */

typedef struct {
    const uint8_t *p; /* the next byte to read */
    size_t left;      /* bytes left in the buffer */
    bool failed;      /* a read found the buffer short */
} rcmsg_wire_reader_t;

static inline void rcmsg_wire_reader_init(rcmsg_wire_reader_t *r, const void *buf, size_t len)
{
    *r = (rcmsg_wire_reader_t){.p = buf, .left = buf != NULL ? len : 0, .failed = false};
}

static inline bool rcmsg_wire_reader_ok(const rcmsg_wire_reader_t *r)
{
    return !r->failed;
}

/* Bytes not read yet. */
static inline size_t rcmsg_wire_reader_left(const rcmsg_wire_reader_t *r)
{
    return r->left;
}

/* The next n bytes (the cursor moves past), or NULL when fewer are left (failed). */
static inline const void *rcmsg_wire_read_bytes(rcmsg_wire_reader_t *r, size_t n)
{
    const void *at = r->p;

    if (r->failed || n > r->left) {
        r->failed = true;
        return NULL;
    }
    r->p += n;
    r->left -= n;
    return at;
}

/* The reads of a value return 0 when the buffer is short. */
static inline uint8_t rcmsg_wire_read_u8(rcmsg_wire_reader_t *r)
{
    const void *at = rcmsg_wire_read_bytes(r, sizeof(uint8_t));

    return at != NULL ? rcmsg_wire_get_u8(at) : 0;
}

static inline uint16_t rcmsg_wire_read_u16(rcmsg_wire_reader_t *r)
{
    const void *at = rcmsg_wire_read_bytes(r, sizeof(uint16_t));

    return at != NULL ? rcmsg_wire_get_u16(at) : 0;
}

static inline uint32_t rcmsg_wire_read_u32(rcmsg_wire_reader_t *r)
{
    const void *at = rcmsg_wire_read_bytes(r, sizeof(uint32_t));

    return at != NULL ? rcmsg_wire_get_u32(at) : 0;
}

static inline uint64_t rcmsg_wire_read_u64(rcmsg_wire_reader_t *r)
{
    const void *at = rcmsg_wire_read_bytes(r, sizeof(uint64_t));

    return at != NULL ? rcmsg_wire_get_u64(at) : 0;
}

#endif /* RCMSG_BASE_WIRE_H */
