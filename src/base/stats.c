/* SPDX-License-Identifier: BSD-3-Clause */
/* The counters and their reports (RCMSG_STATS, RCMSG_STATS_FILE). */
#include "config.h"

#include "stats.h"

#include "base/compiler.h"
#include "base/config_table.h"
#include "base/log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

rcmsg_stats_t rcmsg_stats;

/* Each counter's name (its JSON key and column) and meaning, from the lists in stats.h. */
typedef struct {
    const char *name, *text;
} stat_desc_t;

#define RCMSG_STATS_DESC(name, text) {#name, text},
static const stat_desc_t peer_descs[] = {RCMSG_STATS_PEER_LIST(RCMSG_STATS_DESC)};
static const stat_desc_t rank_descs[] = {RCMSG_STATS_RANK_LIST(RCMSG_STATS_DESC)};
#undef RCMSG_STATS_DESC
RCMSG_ASSERT_COVERS(peer_descs, RCMSG_STAT_PEER_COUNT);
RCMSG_ASSERT_COVERS(rank_descs, RCMSG_RSTAT_COUNT);

#define STATS_COL_MIN 8 /* narrowest counter column */

/* What RCMSG_STATS and RCMSG_STATS_FILE ask for, read once by rcmsg_stats_init(). */
static struct {
    rcmsg_stats_mode_t mode;
    char *file; /* the pattern, NULL: no file */
} stats_config;

static int stats_config_read(void)
{
    const char *file = rcmsg_config_string(RCMSG_CFG_STATS_FILE);

    stats_config.mode = (rcmsg_stats_mode_t)rcmsg_config_enum(RCMSG_CFG_STATS);
    stats_config.file = file[0] != '\0' ? strdup(file) : NULL;
    return file[0] != '\0' && stats_config.file == NULL ? -1 : 0;
}

int rcmsg_stats_init(int rank, int size)
{
    rcmsg_stats_fini();
    if (stats_config_read() != 0) {
        return -1;
    }
    rcmsg_stats.peers = calloc((size_t)size, sizeof(*rcmsg_stats.peers));
    if (rcmsg_stats.peers == NULL) {
        return -1;
    }
    rcmsg_stats.npeers = size;
    rcmsg_stats.rank = rank;
    return 0;
}

void rcmsg_stats_fini(void)
{
    free(stats_config.file);
    stats_config.file = NULL;
    free(rcmsg_stats.peers);
    memset(&rcmsg_stats, 0, sizeof(rcmsg_stats));
}

uint64_t *rcmsg_stats_row(int peer)
{
    static uint64_t scratch[RCMSG_STAT_PEER_COUNT];

    return (unsigned)peer < (unsigned)rcmsg_stats.npeers ? rcmsg_stats.peers[peer].c : scratch;
}

void rcmsg_stat_status(int peer, int status)
{
    if ((unsigned)peer < (unsigned)rcmsg_stats.npeers) {
        rcmsg_stats.peers[peer].c[RCMSG_STAT_cq_errors]++;
        rcmsg_stats.peers[peer]
            .by_status[(unsigned)status < RCMSG_STATS_STATUS_MAX ? status
                                                                 : RCMSG_STATS_STATUS_MAX - 1]++;
    }
}

void rcmsg_stats_set_transport(int peer, const char *name)
{
    if ((unsigned)peer < (unsigned)rcmsg_stats.npeers) {
        rcmsg_stats.peers[peer].transport = name;
    }
}

void rcmsg_stats_set_qpn(int peer, uint32_t qpn)
{
    if ((unsigned)peer < (unsigned)rcmsg_stats.npeers) {
        rcmsg_stats.peers[peer].qpn = qpn;
    }
}

static int col_width(const char *name)
{
    int n = (int)strlen(name);
    return n > STATS_COL_MIN ? n : STATS_COL_MIN;
}

/* One line of the report, written with one call: the ranks' lines share stderr, and a line
 * written in pieces would interleave with another rank's. */
typedef struct {
    char buf[4096];
    size_t n;
} stats_line_t;

static void line_add(stats_line_t *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void line_add(stats_line_t *l, const char *fmt, ...)
{
    va_list ap;
    int k;

    if (l->n >= sizeof(l->buf) - 1) {
        return;
    }
    va_start(ap, fmt);
    k = vsnprintf(l->buf + l->n, sizeof(l->buf) - l->n, fmt, ap);
    va_end(ap);
    l->n = k < 0                                   ? l->n
           : l->n + (size_t)k < sizeof(l->buf) - 1 ? l->n + (size_t)k
                                                   : sizeof(l->buf) - 2;
}

static void line_out(stats_line_t *l, FILE *out)
{
    l->buf[l->n++] = '\n';
    fwrite(l->buf, 1, l->n, out);
    fflush(out);
}

/* The columns: rank, peer, transport, qpn, every per-peer counter, and in the summary table
 * (rank_cols) every per-rank counter after them. Fixed widths: the lines of all ranks align. */
static void table_header(FILE *out, bool rank_cols)
{
    stats_line_t l = {.n = 0};

    line_add(&l, "rcmsg stats: %5s %5s %-9s %10s", "rank", "peer", "transport", "qpn");
    for (int i = 0; i < RCMSG_STAT_PEER_COUNT; i++) {
        line_add(&l, " %*s", col_width(peer_descs[i].name), peer_descs[i].name);
    }
    for (int i = 0; rank_cols && i < RCMSG_RSTAT_COUNT; i++) {
        line_add(&l, " %*s", col_width(rank_descs[i].name), rank_descs[i].name);
    }
    line_out(&l, out);
}

static void table_row(FILE *out, const char *peer, const char *transport, const char *qpn,
                      const uint64_t *c, const uint64_t *r)
{
    stats_line_t l = {.n = 0};

    line_add(&l, "rcmsg stats: %5d %5s %-9s %10s", rcmsg_stats.rank, peer, transport, qpn);
    for (int i = 0; i < RCMSG_STAT_PEER_COUNT; i++) {
        line_add(&l, " %*llu", col_width(peer_descs[i].name), (unsigned long long)c[i]);
    }
    for (int i = 0; r != NULL && i < RCMSG_RSTAT_COUNT; i++) {
        line_add(&l, " %*llu", col_width(rank_descs[i].name), (unsigned long long)r[i]);
    }
    line_out(&l, out);
}

/* Every peer's counters added up. */
static void stats_sum(uint64_t sum[RCMSG_STAT_PEER_COUNT])
{
    memset(sum, 0, sizeof(uint64_t) * RCMSG_STAT_PEER_COUNT);
    for (int p = 0; p < rcmsg_stats.npeers; p++) {
        for (int i = 0; i < RCMSG_STAT_PEER_COUNT; i++) {
            sum[i] += rcmsg_stats.peers[p].c[i];
        }
    }
}

/* summary: a header (rank 0) and one line per rank, the peers summed and the rank's own
 * counters; peer: a header (rank 0) and one line per peer, then the summary table. */
static void stats_table(FILE *out, rcmsg_stats_mode_t mode)
{
    uint64_t sum[RCMSG_STAT_PEER_COUNT];

    if (mode == RCMSG_STATS_PEER) {
        if (rcmsg_stats.rank == 0) {
            table_header(out, false);
        }
        for (int p = 0; p < rcmsg_stats.npeers; p++) {
            const rcmsg_stats_peer_t *s = &rcmsg_stats.peers[p];
            char peer[16], qpn[16];

            if (s->transport == NULL) {
                continue;
            }
            snprintf(peer, sizeof(peer), "%d", p);
            snprintf(qpn, sizeof(qpn), s->qpn ? "0x%x" : "-", s->qpn);
            table_row(out, peer, s->transport, qpn, s->c, NULL);
        }
    }
    if (rcmsg_stats.rank == 0) {
        table_header(out, true);
    }
    stats_sum(sum);
    table_row(out, "all", "-", "-", sum, rcmsg_stats.r);
}

static void json_counters(FILE *out, const uint64_t *c)
{
    for (int i = 0; i < RCMSG_STAT_PEER_COUNT; i++) {
        fprintf(out, ",\"%s\":%llu", peer_descs[i].name, (unsigned long long)c[i]);
    }
}

static void json_by_status(FILE *out, const rcmsg_stats_peer_t *s)
{
    const char *sep = "";

    fprintf(out, ",\"cq_errors_by_status\":{");
    for (int i = 0; i < RCMSG_STATS_STATUS_MAX; i++) {
        if (s->by_status[i] > 0) {
            const char *name = rcmsg_stats.status_name ? rcmsg_stats.status_name(i) : NULL;
            char num[32];

            if (i == RCMSG_STATS_STATUS_MAX - 1) {
                name = "other"; /* this status and every larger one */
            } else if (name == NULL) {
                snprintf(num, sizeof(num), "status %d", i);
                name = num;
            }
            fprintf(out, "%s\"%s\":%llu", sep, name, (unsigned long long)s->by_status[i]);
            sep = ",";
        }
    }
    fputc('}', out);
}

static void stats_json(FILE *out)
{
    uint64_t sum[RCMSG_STAT_PEER_COUNT];

    for (int p = 0; p < rcmsg_stats.npeers; p++) {
        const rcmsg_stats_peer_t *s = &rcmsg_stats.peers[p];

        if (s->transport == NULL) {
            continue;
        }
        fprintf(out, "{\"scope\":\"peer\",\"rank\":%d,\"peer\":%d,\"transport\":\"%s\",\"qpn\":%u",
                rcmsg_stats.rank, p, s->transport, s->qpn);
        json_counters(out, s->c);
        json_by_status(out, s);
        fprintf(out, "}\n");
    }
    stats_sum(sum);
    fprintf(out, "{\"scope\":\"rank\",\"rank\":%d,\"size\":%d", rcmsg_stats.rank,
            rcmsg_stats.npeers);
    for (int i = 0; i < RCMSG_RSTAT_COUNT; i++) {
        fprintf(out, ",\"%s\":%llu", rank_descs[i].name, (unsigned long long)rcmsg_stats.r[i]);
    }
    json_counters(out, sum);
    fprintf(out, "}\n");
}

/* RCMSG_STATS_FILE's name with %r, %h, %p and %% replaced; false when it does not fit. */
static bool stats_path(const char *pattern, char *buf, size_t cap)
{
    size_t n = 0;

    for (const char *c = pattern; *c != '\0'; c++) {
        char sub[256];

        if (c[0] != '%' || c[1] == '\0') {
            snprintf(sub, sizeof(sub), "%c", c[0]);
        } else {
            c++;
            switch (*c) {
            case 'r':
                snprintf(sub, sizeof(sub), "%d", rcmsg_stats.rank);
                break;
            case 'p':
                snprintf(sub, sizeof(sub), "%ld", (long)getpid());
                break;
            case 'h':
                if (gethostname(sub, sizeof(sub)) != 0) {
                    snprintf(sub, sizeof(sub), "unknown-host");
                }
                sub[sizeof(sub) - 1] = '\0';
                break;
            default:
                snprintf(sub, sizeof(sub), "%%%c", *c);
                break;
            }
        }
        if (n + strlen(sub) >= cap) {
            return false;
        }
        memcpy(buf + n, sub, strlen(sub) + 1);
        n += strlen(sub);
    }
    buf[n] = '\0';
    return true;
}

/* Why path cannot be written ("" when it can): the file's own permission when it exists, else
 * its directory's. */
static const char *path_unwritable(const char *path, char *why, size_t cap)
{
    struct stat st;
    char dir[4096];
    const char *slash = strrchr(path, '/');

    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            return "it is a directory";
        }
        return access(path, W_OK) == 0 ? "" : strerror(errno);
    }
    if (errno != ENOENT) {
        return strerror(errno);
    }
    if (slash == NULL) {
        snprintf(dir, sizeof(dir), ".");
    } else {
        snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path), path);
    }
    if (stat(dir, &st) != 0) {
        snprintf(why, cap, "directory '%s': %s", dir, strerror(errno));
    } else if (!S_ISDIR(st.st_mode)) {
        snprintf(why, cap, "'%s' is not a directory", dir);
    } else if (access(dir, W_OK | X_OK) != 0) {
        snprintf(why, cap, "directory '%s': %s", dir, strerror(errno));
    } else {
        why[0] = '\0';
    }
    return why;
}

rcmsg_status_t rcmsg_stats_file_check(void)
{
    char path[4096], buf[4200];
    const char *why;

    if (stats_config.file == NULL) {
        return RCMSG_OK;
    }
    if (!stats_path(stats_config.file, path, sizeof(path))) {
        rcmsg_error("RCMSG_STATS_FILE: the name '%s' is too long once expanded", stats_config.file);
        return RCMSG_ERR_CONFIG;
    }
    why = path_unwritable(path, buf, sizeof(buf));
    if (why[0] == '\0') {
        return RCMSG_OK;
    }
    rcmsg_error("RCMSG_STATS_FILE=%s: cannot write '%s' (%s); the counters would be lost at "
                "rcmsg_finalize: name a writable file, or unset it",
                stats_config.file, path, why);
    return RCMSG_ERR_CONFIG;
}

static void stats_file(const char *pattern)
{
    char path[4096];
    FILE *f;

    if (!stats_path(pattern, path, sizeof(path))) {
        rcmsg_error("RCMSG_STATS_FILE: the name '%s' is too long once expanded; no counters "
                    "written",
                    pattern);
        return;
    }
    f = fopen(path, "w");
    if (f == NULL) {
        rcmsg_error("RCMSG_STATS_FILE: cannot open '%s' for writing: %s; no counters written", path,
                    strerror(errno));
        return;
    }
    stats_json(f);
    if (fclose(f) != 0) {
        rcmsg_error("RCMSG_STATS_FILE: writing '%s' failed: %s", path, strerror(errno));
    }
}

void rcmsg_stats_report(void)
{
    if (rcmsg_stats.peers == NULL) {
        return;
    }
    if (stats_config.mode != RCMSG_STATS_NO) {
        stats_table(stderr, stats_config.mode);
    }
    if (stats_config.file != NULL) {
        stats_file(stats_config.file);
    }
}

void rcmsg_stats_describe(FILE *out)
{
    fprintf(out, "# Counters (RCMSG_STATS=summary|peer at finalize; RCMSG_STATS_FILE: JSON lines)\n"
                 "# per peer (one JSON line per peer, \"scope\":\"peer\", with rank, peer, "
                 "transport, qpn;\n#   cq_errors_by_status maps completion statuses to counts):\n");
    for (int i = 0; i < RCMSG_STAT_PEER_COUNT; i++) {
        fprintf(out, "%-20s %s\n", peer_descs[i].name, peer_descs[i].text);
    }
    fprintf(out, "# per rank (one JSON line, \"scope\":\"rank\", with rank, size and the per-peer "
                 "counters summed):\n");
    for (int i = 0; i < RCMSG_RSTAT_COUNT; i++) {
        fprintf(out, "%-20s %s\n", rank_descs[i].name, rank_descs[i].text);
    }
}
