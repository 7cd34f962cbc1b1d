/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The wireup blob (wireup.h): what each rank publishes, written and read with the wire codec
 * (base/wire.h). Little-endian:
 *
 *   header   magic u32 ("RCMW"), version u16, status i16 (the rank's open status),
 *            nsections u16, pad u16
 *   section  name[8] (NUL-padded), len u32, then len bytes of the transport's address
 *   ...      nsections of them
 */
#include "config.h"

#include "wireup.h"

#include "base/compiler.h"
#include "base/log.h"
#include "base/wire.h"

#include <string.h>

#define WIREUP_MAGIC   0x574d4352u /* "RCMW" */
#define WIREUP_VERSION 1
#define WIREUP_HDR     12
#define WIREUP_SECHDR  12

typedef struct {
    uint8_t magic[4];
    uint8_t version[2];
    uint8_t status[2];
    uint8_t nsections[2];
    uint8_t pad[2];
} wireup_blob_hdr_t;

typedef struct {
    uint8_t name[8];
    uint8_t len[4];
} wireup_blob_sechdr_t;

RCMSG_STATIC_ASSERT(sizeof(wireup_blob_hdr_t) == WIREUP_HDR,
                    "wireup blob header must be WIREUP_HDR bytes");
RCMSG_STATIC_ASSERT(sizeof(wireup_blob_sechdr_t) == WIREUP_SECHDR,
                    "wireup blob section header must be WIREUP_SECHDR bytes");

size_t rcmsg_wireup_blob_build(void *buf, size_t cap, rcmsg_status_t status,
                               const rcmsg_wireup_section_t *secs, int nsecs)
{
    rcmsg_wire_writer_t w;
    wireup_blob_hdr_t h;

    memset(&h, 0, sizeof(h));
    rcmsg_wire_put_u32(h.magic, WIREUP_MAGIC);
    rcmsg_wire_put_u16(h.version, WIREUP_VERSION);
    rcmsg_wire_put_u16(h.status, (uint16_t)(int16_t)status);
    rcmsg_wire_put_u16(h.nsections, (uint16_t)nsecs);
    rcmsg_wire_writer_init(&w, buf, cap);
    rcmsg_wire_write_bytes(&w, &h, sizeof(h));
    for (int i = 0; i < nsecs; i++) {
        wireup_blob_sechdr_t sh;

        memset(&sh, 0, sizeof(sh));
        memcpy(sh.name, secs[i].name, strnlen(secs[i].name, sizeof(sh.name)));
        rcmsg_wire_put_u32(sh.len, (uint32_t)secs[i].len);
        rcmsg_wire_write_bytes(&w, &sh, sizeof(sh));
        rcmsg_wire_write_bytes(&w, secs[i].data, secs[i].len);
    }
    return rcmsg_wire_writer_ok(&w) ? cap - w.left : 0;
}

/* The header of a peer's blob: checked (length, magic, version), its status and count. */
static rcmsg_status_t blob_header(rcmsg_wire_reader_t *r, int peer, rcmsg_status_t *peer_status_p,
                                  unsigned *nsec_p)
{
    size_t len = rcmsg_wire_reader_left(r);
    const wireup_blob_hdr_t *h = rcmsg_wire_read_bytes(r, sizeof(*h));
    uint32_t magic;
    uint16_t version;

    if (h == NULL) {
        rcmsg_error("address blob of peer %d is %zu bytes, shorter than its %d-byte header", peer,
                    len, WIREUP_HDR);
        return RCMSG_ERR_PEER_DATA;
    }
    magic = rcmsg_wire_get_u32(h->magic);
    if (magic != WIREUP_MAGIC) {
        rcmsg_error("address blob of peer %d is not an rcmsg blob (magic 0x%08x): is every rank "
                    "running rcmsg?",
                    peer, magic);
        return RCMSG_ERR_PEER_DATA;
    }
    version = rcmsg_wire_get_u16(h->version);
    if (version != WIREUP_VERSION) {
        rcmsg_error("address blob of peer %d has version %u, this rank speaks version %u: run the "
                    "same rcmsg build on every rank",
                    peer, version, WIREUP_VERSION);
        return RCMSG_ERR_PEER_DATA;
    }
    *peer_status_p = (rcmsg_status_t)(int16_t)rcmsg_wire_get_u16(h->status);
    *nsec_p = rcmsg_wire_get_u16(h->nsections);
    return RCMSG_OK;
}

rcmsg_status_t rcmsg_wireup_blob_section(const void *blob, size_t len, int peer, const char *name,
                                         const void **data_p, size_t *len_p,
                                         rcmsg_status_t *peer_status_p)
{
    rcmsg_wire_reader_t r;
    unsigned nsec;
    rcmsg_status_t s;

    rcmsg_wire_reader_init(&r, blob, len);
    s = blob_header(&r, peer, peer_status_p, &nsec);
    for (unsigned i = 0; s == RCMSG_OK && i < nsec; i++) {
        const wireup_blob_sechdr_t *sh = rcmsg_wire_read_bytes(&r, sizeof(*sh));
        const void *data;
        uint32_t slen;

        if (sh == NULL) {
            rcmsg_error("address blob of peer %d is truncated: %zu bytes, section %u of %u "
                        "missing",
                        peer, len, i + 1, nsec);
            return RCMSG_ERR_PEER_DATA;
        }
        slen = rcmsg_wire_get_u32(sh->len);
        data = rcmsg_wire_read_bytes(&r, slen);
        if (data == NULL) {
            rcmsg_error("address blob of peer %d: section %u claims %u bytes, %zu remain", peer, i,
                        slen, rcmsg_wire_reader_left(&r));
            return RCMSG_ERR_PEER_DATA;
        }
        if (strncmp((const char *)sh->name, name, sizeof(sh->name)) == 0) {
            *data_p = data;
            *len_p = slen;
            return RCMSG_OK;
        }
    }
    return s == RCMSG_OK ? RCMSG_ERR_NOT_FOUND : s;
}
