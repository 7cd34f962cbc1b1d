/* SPDX-License-Identifier: BSD-3-Clause */
/* Pure decisions of the rc transport, checked without hardware: pool sizes under a locked
 * memory limit, the sender of a receive against its QP, the kinds of two RoCE GIDs, the names
 * of work request types, the QPs a recovery replaced still known by number, the recovering
 * peers listed once each. */
#include "config.h"

#include "btl_rc/rc_addr.h"
#include "btl_rc/rc_btl.h"
#include "btl_rc/rc_device.h"
#include "btl_rc/rc_ep.h"
#include "btl_rc/rc_iface.h"
#include "btl_rc/rc_memlock.h"
#include "btl_rc/rc_qp.h"
#include "btl_rc/rc_rec.h"

#include "ck_run.h"

#include <arpa/inet.h>
#include <check.h>
#include <stdint.h>
#include <string.h>

#define KIB ((size_t)1024)
#define MIB (1024 * KIB)

START_TEST(test_pools_fit_unchanged)
{
    int nr = 1024, ns = 512;

    /* 13.5 MiB of buffers fit in half of 27 MiB, and in no limit */
    ck_assert_int_eq(rcmsg_rc_pools_fit(27 * MIB, 9 * KIB, &nr, &ns), RCMSG_OK);
    ck_assert_int_eq(nr, 1024);
    ck_assert_int_eq(ns, 512);
    ck_assert_int_eq(rcmsg_rc_pools_fit(SIZE_MAX, 9 * KIB, &nr, &ns), RCMSG_OK);
    ck_assert_int_eq(nr, 1024);
    ck_assert_int_eq(ns, 512);
}
END_TEST

START_TEST(test_pools_fit_debian_default)
{
    int nr = 1024, ns = 512;

    /* Debian's 8 MiB: 4 MiB for the pools, 455 buffers of 9 KiB, shared 2:1 */
    ck_assert_int_eq(rcmsg_rc_pools_fit(8 * MIB, 9 * KIB, &nr, &ns), RCMSG_OK);
    ck_assert_int_eq(nr + ns, 455);
    ck_assert_int_eq(ns, 151);
    ck_assert_uint_le((size_t)(nr + ns) * 9 * KIB, 4 * MIB);
}
END_TEST

START_TEST(test_pools_fit_minimum)
{
    int nr = 1024, ns = 512;
    size_t min = rcmsg_rc_pools_min_limit(9 * KIB, nr, ns);

    /* 64 + 64 buffers of 9 KiB, twice over */
    ck_assert_uint_eq(min, 2 * 128 * 9 * KIB);
    ck_assert_int_eq(rcmsg_rc_pools_fit(min, 9 * KIB, &nr, &ns), RCMSG_OK);
    ck_assert_int_eq(nr, RCMSG_RC_MIN_RECV_BUFS);
    ck_assert_int_eq(ns, RCMSG_RC_MIN_SEND_BUFS);
    /* one byte less, or a tiny limit: refused, counts untouched */
    nr = 1024;
    ns = 512;
    ck_assert_int_eq(rcmsg_rc_pools_fit(min - 1, 9 * KIB, &nr, &ns), RCMSG_ERR_NO_MEMORY);
    ck_assert_int_eq(rcmsg_rc_pools_fit(512 * KIB, 9 * KIB, &nr, &ns), RCMSG_ERR_NO_MEMORY);
    ck_assert_int_eq(nr, 1024);
    ck_assert_int_eq(ns, 512);
}
END_TEST

START_TEST(test_pools_fit_lopsided)
{
    /* a count already below the minimum is kept; the other one gets the rest */
    int nr = 4096, ns = 16;

    ck_assert_int_eq(rcmsg_rc_pools_fit(4 * MIB, 8 * KIB, &nr, &ns), RCMSG_OK);
    ck_assert_int_eq(ns, 16);
    ck_assert_int_eq(nr, 256 - 16);
    /* a small share in proportion is raised to its minimum */
    nr = 65536;
    ns = 100;
    ck_assert_int_eq(rcmsg_rc_pools_fit(8 * MIB, 8 * KIB, &nr, &ns), RCMSG_OK);
    ck_assert_int_eq(ns, RCMSG_RC_MIN_SEND_BUFS);
    ck_assert_int_eq(nr, 512 - RCMSG_RC_MIN_SEND_BUFS);
    /* and a receive pool raised to its minimum takes from the send pool */
    nr = 64;
    ns = 65536;
    ck_assert_int_eq(rcmsg_rc_pools_fit(2 * MIB, 8 * KIB, &nr, &ns), RCMSG_OK);
    ck_assert_int_eq(nr, 64);
    ck_assert_int_eq(ns, 128 - 64);
}
END_TEST

START_TEST(test_sender_agrees)
{
    /* rank 2 of 4: messages from 0, 1 and 3 on their own QPs */
    for (int peer = 0; peer < 4; peer++) {
        if (peer != 2) {
            ck_assert_int_eq(rcmsg_rc_qp_sender_check(true, (uint32_t)peer, peer, 2, 4, NULL, 0),
                             RCMSG_OK);
        }
    }
}
END_TEST

START_TEST(test_sender_disagrees)
{
    char why[256];

    /* rank 1 claims to be rank 3 on rank 1's connection: both values named */
    ck_assert_int_eq(rcmsg_rc_qp_sender_check(true, 3, 1, 0, 4, why, sizeof(why)),
                     RCMSG_ERR_PEER_DATA);
    ck_assert_msg(strstr(why, "sender rank 3") && strstr(why, "peer 1"), "%s", why);
    /* no immediate data; a rank out of range; this rank itself; an unknown QP */
    ck_assert_int_eq(rcmsg_rc_qp_sender_check(false, 1, 1, 0, 4, why, sizeof(why)),
                     RCMSG_ERR_PEER_DATA);
    ck_assert_msg(strstr(why, "no sender rank") && strstr(why, "peer 1"), "%s", why);
    ck_assert_int_eq(rcmsg_rc_qp_sender_check(true, 4, 1, 0, 4, why, sizeof(why)),
                     RCMSG_ERR_PEER_DATA);
    ck_assert_msg(strstr(why, "sender rank 4") && strstr(why, "peer 1"), "%s", why);
    ck_assert_int_eq(rcmsg_rc_qp_sender_check(true, 0xffffffffu, 1, 0, 4, NULL, 0),
                     RCMSG_ERR_PEER_DATA);
    ck_assert_int_eq(rcmsg_rc_qp_sender_check(true, 0, 1, 0, 4, why, sizeof(why)),
                     RCMSG_ERR_PEER_DATA);
    ck_assert_int_eq(rcmsg_rc_qp_sender_check(true, 1, -1, 0, 4, why, sizeof(why)),
                     RCMSG_ERR_PEER_DATA);
    ck_assert_msg(strstr(why, "no peer"), "%s", why);
}
END_TEST

static union ibv_gid gid(const char *text)
{
    union ibv_gid g;

    ck_assert_int_eq(inet_pton(AF_INET6, text, g.raw), 1);
    return g;
}

START_TEST(test_gid_kinds)
{
    union ibv_gid v4 = gid("::ffff:10.55.0.1"), ll = gid("fe80::ff:fe00:2");
    union ibv_gid ll2 = gid("febf::1"), global = gid("2001:db8::7");

    ck_assert_int_eq(rcmsg_rc_gid_kind(&v4), RCMSG_RC_GID_IPV4);
    ck_assert_int_eq(rcmsg_rc_gid_kind(&ll), RCMSG_RC_GID_LINK_LOCAL);
    ck_assert_int_eq(rcmsg_rc_gid_kind(&ll2), RCMSG_RC_GID_LINK_LOCAL);
    ck_assert_int_eq(rcmsg_rc_gid_kind(&global), RCMSG_RC_GID_IPV6);
    ck_assert_str_eq(rcmsg_rc_gid_kind_name(RCMSG_RC_GID_IPV4), "IPv4-mapped");
    ck_assert_str_eq(rcmsg_rc_gid_kind_name(RCMSG_RC_GID_LINK_LOCAL), "link-local IPv6");
}
END_TEST

START_TEST(test_gid_compat)
{
    union ibv_gid v4a = gid("::ffff:10.55.0.1"), v4b = gid("::ffff:10.55.0.2");
    union ibv_gid lla = gid("fe80::ff:fe00:1"), llb = gid("fe80::ff:fe00:2");
    union ibv_gid global = gid("2001:db8::7");
    int v2 = IBV_GID_TYPE_ROCE_V2, v1 = IBV_GID_TYPE_ROCE_V1;
    char why[256];

    /* the same kind: fine, whether the peer's type is known or not */
    ck_assert_int_eq(rcmsg_rc_gid_compat(&v4a, v2, &v4b, v2, why, sizeof(why)), 0);
    ck_assert_int_eq(rcmsg_rc_gid_compat(&lla, v2, &llb, -1, why, sizeof(why)), 0);
    /* IPv4-mapped against link-local, both ways: never, both GIDs named */
    ck_assert_int_eq(rcmsg_rc_gid_compat(&v4a, v2, &llb, v2, why, sizeof(why)), -1);
    ck_assert_msg(strstr(why, "::ffff:10.55.0.1 (IPv4-mapped, RoCE v2) here") &&
                      strstr(why, "fe80::ff:fe00:2 (link-local IPv6, RoCE v2) there") &&
                      strstr(why, "IPv4 to an IPv6"),
                  "%s", why);
    ck_assert_int_eq(rcmsg_rc_gid_compat(&lla, v2, &v4b, -1, why, sizeof(why)), -1);
    ck_assert_msg(strstr(why, "type unknown"), "%s", why);
    ck_assert_int_eq(rcmsg_rc_gid_compat(&global, v2, &v4b, v2, NULL, 0), -1);
    /* RoCE v1 against v2, even with the same address kind */
    ck_assert_int_eq(rcmsg_rc_gid_compat(&lla, v1, &llb, v2, why, sizeof(why)), -1);
    ck_assert_msg(strstr(why, "RoCE v1 and RoCE v2"), "%s", why);
    /* link-local against global IPv6: doubtful only */
    ck_assert_int_eq(rcmsg_rc_gid_compat(&lla, v2, &global, v2, why, sizeof(why)), 1);
}
END_TEST

/* The address record keeps its fixed layout (little-endian header of 32 bytes, then the CM
 * address), is the same size for every job size (O(1) per peer) and decodes to what was
 * encoded. */
START_TEST(test_addr_layout)
{
    rcmsg_rc_addr_t in = {.link_layer = 2,
                          .port = 1,
                          .active_mtu = 3,
                          .rd_atomic = 16,
                          .lid = 0x1234,
                          .gid_type = 1,
                          .buf_size = 9216};
    uint8_t buf[RC_ADDR_SIZE];
    static const uint8_t hdr[] = {2, 1, 3, 16, 0x34, 0x12, 2, 0};
    rcmsg_rc_addr_t out;

    ck_assert_uint_eq(RC_ADDR_SIZE, 64);
    ck_assert_uint_eq(rcmsg_rc_btl_addr_max(2), RC_ADDR_SIZE);
    ck_assert_uint_eq(rcmsg_rc_btl_addr_max(100000), RC_ADDR_SIZE);
    for (int i = 0; i < 16; i++) {
        in.gid[i] = (uint8_t)(0xa0 + i);
    }
    for (int i = 0; i < RC_CM_ADDR_SIZE; i++) {
        in.cm[i] = (uint8_t)(0x10 + i);
    }
    memset(buf, 0xee, sizeof(buf));
    rcmsg_rc_addr_encode(&in, buf);
    ck_assert_mem_eq(buf, hdr, sizeof(hdr));
    ck_assert_mem_eq(buf + 8, in.gid, 16);
    ck_assert_mem_eq(buf + 24, "\x00\x24\x00\x00\x40\x00\x00\x00", 8);
    ck_assert_mem_eq(buf + 32, in.cm, RC_CM_ADDR_SIZE);

    ck_assert_int_eq(rcmsg_rc_addr_decode(buf, sizeof(buf), 0, &out), RCMSG_OK);
    ck_assert_uint_eq(out.link_layer, 2);
    ck_assert_uint_eq(out.port, 1);
    ck_assert_uint_eq(out.active_mtu, 3);
    ck_assert_uint_eq(out.rd_atomic, 16);
    ck_assert_uint_eq(out.lid, 0x1234);
    ck_assert_int_eq(out.gid_type, 1);
    ck_assert_mem_eq(out.gid, in.gid, 16);
    ck_assert_uint_eq(out.buf_size, 9216);
    ck_assert_mem_eq(out.cm, in.cm, RC_CM_ADDR_SIZE);

    /* gid type not known: 0 on the wire, -1 decoded */
    in.gid_type = -1;
    rcmsg_rc_addr_encode(&in, buf);
    ck_assert_uint_eq(buf[6], 0);
    ck_assert_int_eq(rcmsg_rc_addr_decode(buf, sizeof(buf), 0, &out), RCMSG_OK);
    ck_assert_int_eq(out.gid_type, -1);
}
END_TEST

/* Records of another size (an old per-peer record, a truncated one) or that give another size
 * are refused, never read past their end. */
START_TEST(test_addr_malformed)
{
    rcmsg_rc_addr_t in = {.buf_size = 1}, out;
    uint8_t buf[RC_ADDR_SIZE + 8] = {0};

    rcmsg_rc_addr_encode(&in, buf);
    ck_assert_int_eq(rcmsg_rc_addr_decode(buf, RC_ADDR_HDR_SIZE - 1, 0, &out), RCMSG_ERR_PEER_DATA);
    ck_assert_int_eq(rcmsg_rc_addr_decode(buf, RC_ADDR_SIZE - 1, 0, &out), RCMSG_ERR_PEER_DATA);
    ck_assert_int_eq(rcmsg_rc_addr_decode(buf, RC_ADDR_SIZE + 8, 0, &out), RCMSG_ERR_PEER_DATA);
    ck_assert_int_eq(rcmsg_rc_addr_decode(buf, RC_ADDR_SIZE, 0, &out), RCMSG_OK);
    buf[28] = 0x48; /* the size field says 72 */
    ck_assert_int_eq(rcmsg_rc_addr_decode(buf, RC_ADDR_SIZE, 0, &out), RCMSG_ERR_PEER_DATA);
}
END_TEST

/* Each work request type has its name; a corrupt one gets a fallback, not a read past. */
START_TEST(test_wr_type_names)
{
    ck_assert_str_eq(rc_wr_type_name(RC_WR_SEND), "SEND");
    ck_assert_str_eq(rc_wr_type_name(RC_WR_GET), "RDMA_READ");
    ck_assert_str_eq(rc_wr_type_name(RC_WR_FLUSH), "flush (zero-length RDMA_WRITE)");
    ck_assert_str_eq(rc_wr_type_name(RC_WR_TYPE_COUNT), "unknown work request");
    ck_assert_str_eq(rc_wr_type_name((rc_wr_type_t)-1), "unknown work request");
}
END_TEST

/* A receive completion of a QP destroyed by a recovery is known as its peer's (rc_rx.c): the
 * newest QP of a number wins, and the last RC_RX_RETIRED are kept. */
START_TEST(test_retired_qps)
{
    static rc_btl_t rc; /* zeroed: only rc.rx is used */

    ck_assert_int_eq(rc_rx_old_peer(&rc, 0x11), -1);
    rc_rx_retire(&rc, 0x11, 3);
    rc_rx_retire(&rc, 0x12, 5);
    ck_assert_int_eq(rc_rx_old_peer(&rc, 0x11), 3);
    ck_assert_int_eq(rc_rx_old_peer(&rc, 0x12), 5);
    ck_assert_int_eq(rc_rx_old_peer(&rc, 0x13), -1);
    rc_rx_retire(&rc, 0x11, 7); /* the number came back for another peer's QP, replaced too */
    ck_assert_int_eq(rc_rx_old_peer(&rc, 0x11), 7);
    for (uint32_t q = 0x100; q < 0x100 + RC_RX_RETIRED - 1; q++) {
        rc_rx_retire(&rc, q, 1);
    }
    ck_assert_int_eq(rc_rx_old_peer(&rc, 0x12), -1); /* pushed out */
    ck_assert_int_eq(rc_rx_old_peer(&rc, 0x11), 7);
    ck_assert_int_eq(rc_rx_old_peer(&rc, 0x100 + RC_RX_RETIRED - 2), 1);
}
END_TEST

/* A connection that recovered and broke again before rc_rec_progress dropped it from the
 * recovering peers (both inside one call of the CM's progress: the REP that reconnected the
 * pair, then the peer's REQ as its side broke again) stays listed once (rc_rec.c): on a
 * flapping link of issue 42 each such turn listed it again, beyond rc->rec.peers' job.size
 * slots, and glibc found the heap corrupted at finalize. */
START_TEST(test_recovering_listed_once)
{
    static rc_btl_t rc; /* zeroed: only job.size, eps and rec are used */
    static rc_ep_t eps[4];
    int peers[4];

    rc.job.size = 4;
    rc.eps = eps;
    rc.rec.peers = peers;
    for (int turn = 0; turn < 20; turn++) {
        for (int peer = 2; peer <= 3; peer++) {
            eps[peer].rec.state = RC_REC_DRAIN; /* broke (again) */
            rc_rec_list(&rc, peer);
            ck_assert_int_le(rc.rec.n, 2);
            eps[peer].rec.state = RC_REC_NONE; /* recovered, not swept yet */
        }
    }
    ck_assert_int_eq(rc.rec.n, 2);
    ck_assert_int_eq(peers[0] + peers[1], 5);
    rc_rec_progress(&rc, NULL); /* both recovered: both dropped, nothing to rejoin */
    ck_assert_int_eq(rc.rec.n, 0);
    eps[3].rec.state = RC_REC_DRAIN;
    rc_rec_list(&rc, 3);
    ck_assert_int_eq(rc.rec.n, 1);
    ck_assert_int_eq(peers[0], 3);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("rc_btl");
    TCase *tc = tcase_create("memlock");

    tcase_add_test(tc, test_pools_fit_unchanged);
    tcase_add_test(tc, test_pools_fit_debian_default);
    tcase_add_test(tc, test_pools_fit_minimum);
    tcase_add_test(tc, test_pools_fit_lopsided);
    suite_add_tcase(s, tc);
    tc = tcase_create("sender");
    tcase_add_test(tc, test_sender_agrees);
    tcase_add_test(tc, test_sender_disagrees);
    tcase_add_test(tc, test_retired_qps);
    tcase_add_test(tc, test_recovering_listed_once);
    suite_add_tcase(s, tc);
    tc = tcase_create("gid");
    tcase_add_test(tc, test_gid_kinds);
    tcase_add_test(tc, test_gid_compat);
    suite_add_tcase(s, tc);
    tc = tcase_create("addr");
    tcase_add_test(tc, test_addr_layout);
    tcase_add_test(tc, test_addr_malformed);
    tcase_add_test(tc, test_wr_type_names);
    suite_add_tcase(s, tc);
    return ck_run(s);
}
