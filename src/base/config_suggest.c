/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Warnings for the names of environment variables: an unknown RCMSG_* name or a near miss of
 * the prefix, with the known variables it most likely means (word abbreviations first, then
 * the smallest edit distance).
 */
#include "config.h"

#include "config_table.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define RCMSG_CONFIG_PREFIX "RCMSG_"

#define NAME_MAX_CHARS   64 /* longer names are never near a known one */
#define TOKEN_MIN_ABBREV 3  /* "ALGO" abbreviates "ALGORITHM"; "A" abbreviates nothing */

/*
 * Optimal string alignment distance, case-insensitive: insertions, deletions, substitutions and
 * transpositions of adjacent letters (RCMGS -> RCMSG) cost 1. Names are short; a name of
 * NAME_MAX_CHARS or more is at distance SIZE_MAX of everything.
 */
static size_t edit_distance(const char *a, size_t la, const char *b, size_t lb)
{
    size_t rows[3][NAME_MAX_CHARS + 1];
    size_t *prev2 = rows[0], *prev = rows[1], *row = rows[2];

    if (la >= NAME_MAX_CHARS || lb >= NAME_MAX_CHARS) {
        return SIZE_MAX;
    }
    for (size_t j = 0; j <= lb; j++) {
        prev[j] = j;
    }
    for (size_t i = 1; i <= la; i++) {
        int ca = toupper((unsigned char)a[i - 1]);
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            int cb = toupper((unsigned char)b[j - 1]);
            size_t best = prev[j - 1] + (ca != cb);
            if (prev[j] + 1 < best) {
                best = prev[j] + 1;
            }
            if (row[j - 1] + 1 < best) {
                best = row[j - 1] + 1;
            }
            if (i > 1 && j > 1 && ca == toupper((unsigned char)b[j - 2]) &&
                toupper((unsigned char)a[i - 2]) == cb && prev2[j - 2] + 1 < best) {
                best = prev2[j - 2] + 1;
            }
            row[j] = best;
        }
        size_t *t = prev2;
        prev2 = prev;
        prev = row;
        row = t;
    }
    return prev[lb];
}

/* The next '_'-separated word of [*s, end), empty words skipped: its start (NULL at the end). */
static const char *token_next(const char **s, const char *end, size_t *len_p)
{
    const char *p = *s, *q;

    while (p < end && *p == '_') {
        p++;
    }
    for (q = p; q < end && *q != '_'; q++) {
    }
    *s = q;
    *len_p = (size_t)(q - p);
    return p < end ? p : NULL;
}

/* Whether the user's word abbreviates the known word: all of it, or TOKEN_MIN_ABBREV letters. */
static bool token_abbreviates(const char *u, size_t ulen, const char *k, size_t klen)
{
    return ulen <= klen && (ulen == klen || ulen >= TOKEN_MIN_ABBREV) &&
           strncasecmp(u, k, ulen) == 0;
}

/*
 * How well the words of USER (a name without the prefix) abbreviate, in order, the words of
 * KNOWN: each user word must start a later known word ("COLL_ALLREDUCE_ALGO" for
 * "COLL_ALLREDUCE_ALGORITHM", "IB_RETRY" for "IB_RETRY_COUNT"). Cost: 2 per known word
 * skipped before the last match, 1 per known word after it, so IB_RETRY means IB_RETRY_COUNT
 * rather than IB_RNR_RETRY. -1 when USER is no such abbreviation, or leaves out more known
 * words than it gives.
 */
static int token_cost(const char *user, size_t len, const char *known)
{
    const char *u = user, *uend = user + len, *k = known, *kend = known + strlen(known);
    const char *uw, *kw;
    size_t ulen, klen;
    int given = 0, skipped = 0, after = 0;

    while ((uw = token_next(&u, uend, &ulen)) != NULL) {
        while ((kw = token_next(&k, kend, &klen)) != NULL &&
               !token_abbreviates(uw, ulen, kw, klen)) {
            skipped++;
        }
        if (kw == NULL) {
            return -1;
        }
        given++;
    }
    while (token_next(&k, kend, &klen) != NULL) {
        after++;
    }
    return given == 0 || skipped + after > given ? -1 : 2 * skipped + after;
}

/*
 * The known variables REST (a name after the prefix) most likely means, best first, in ids[]
 * (up to max); returns how many are equally likely (may exceed max), 0 when none is near.
 * Rank: a word abbreviation (token_cost) before any mere edit distance; then the smaller
 * distance. Ties on the first key are all returned: "RCMSG_EAGER" is EAGER_LIMIT or
 * EAGER_CREDITS. Edit distances count only up to a third of REST.
 */
static size_t config_suggest_rest(const char *rest, size_t len, int *ids, size_t max)
{
    size_t key[RCMSG_CFG_COUNT], dist[RCMSG_CFG_COUNT], best = SIZE_MAX, n = 0;
    size_t prefix_len = strlen(RCMSG_CONFIG_PREFIX);

    for (int id = 0; id < RCMSG_CFG_COUNT; id++) {
        const char *known = rcmsg_config_desc((rcmsg_config_id_t)id)->name + prefix_len;
        int cost = token_cost(rest, len, known);

        dist[id] = edit_distance(rest, len, known, strlen(known));
        key[id] = cost >= 0 ? (size_t)cost : dist[id] <= len / 3 + 1 ? 1000 + dist[id] : SIZE_MAX;
        best = key[id] < best ? key[id] : best;
    }
    for (int id = 0; id < RCMSG_CFG_COUNT && best != SIZE_MAX; id++) {
        size_t i;
        if (key[id] != best) {
            continue;
        }
        /* insertion by distance; a later id of equal distance goes after */
        for (i = n < max ? n : max; i > 0 && dist[ids[i - 1]] > dist[id]; i--) {
            if (i < max) {
                ids[i] = ids[i - 1];
            }
        }
        if (i < max) {
            ids[i] = id;
        }
        n++;
    }
    return n;
}

/* The part of NAME after "RCMSG_" (or after a case-insensitive one); NAME itself otherwise. */
static const char *config_rest(const char *name)
{
    size_t plen = strlen(RCMSG_CONFIG_PREFIX) - 1;
    return strncasecmp(name, RCMSG_CONFIG_PREFIX, plen) == 0 && name[plen] == '_' ? name + plen + 1
                                                                                  : name;
}

size_t rcmsg_config_suggest(const char *name, const char *names[RCMSG_CONFIG_SUGGEST_MAX])
{
    const char *rest = config_rest(name);
    int ids[RCMSG_CONFIG_SUGGEST_MAX];
    size_t n = config_suggest_rest(rest, strlen(rest), ids, RCMSG_CONFIG_SUGGEST_MAX);

    for (size_t i = 0; i < n && i < RCMSG_CONFIG_SUGGEST_MAX; i++) {
        names[i] = rcmsg_config_desc((rcmsg_config_id_t)ids[i])->name;
    }
    return n;
}

const char *rcmsg_config_closest(const char *name)
{
    const char *names[RCMSG_CONFIG_SUGGEST_MAX];
    return rcmsg_config_suggest(name, names) > 0 ? names[0] : NULL;
}

/*
 * A near miss of a known variable's full name, one that is not an RCMSG_* name: a first word
 * within one edit of RCMSG in any case (RCMSQ, RCMGS, RCSMG, RCMS, RCMSGX, rcmsg, Rcmsg), then
 * a known name's rest in any case or one edit away. The id meant, or -1 (RCMSGX_FOO, PATH).
 */
static int config_prefix_miss(const char *name, size_t len)
{
    const char *us = memchr(name, '_', len);
    size_t wlen = us != NULL ? (size_t)(us - name) : 0, plen = strlen(RCMSG_CONFIG_PREFIX) - 1;
    size_t best_d = 2;
    int best = -1;

    if (us == NULL || wlen + 1 < plen || wlen > plen + 1 ||
        edit_distance(name, wlen, RCMSG_CONFIG_PREFIX, plen) > 1) {
        return -1; /* cheap: most names end here */
    }
    for (int id = 0; id < RCMSG_CFG_COUNT; id++) {
        const char *known = rcmsg_config_desc((rcmsg_config_id_t)id)->name + plen + 1;
        size_t d = edit_distance(us + 1, len - wlen - 1, known, strlen(known));
        if (d < best_d) {
            best_d = d;
            best = id;
        }
    }
    return best;
}

/* "A", "A or B", "A, B or C", "A, B, C or one of 2 more (rcmsg_info lists them)". */
static void config_list_names(char *buf, size_t len, const int *ids, size_t n)
{
    size_t shown = n < RCMSG_CONFIG_SUGGEST_MAX ? n : RCMSG_CONFIG_SUGGEST_MAX, off = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < shown && off < len; i++) {
        const char *sep = i == 0 ? "" : i + 1 == shown && n == shown ? " or " : ", ";
        int w = snprintf(buf + off, len - off, "%s%s", sep,
                         rcmsg_config_desc((rcmsg_config_id_t)ids[i])->name);
        off += w > 0 ? (size_t)w : 0;
    }
    if (n > shown && off < len) {
        snprintf(buf + off, len - off, " or one of %zu more (rcmsg_info lists them)", n - shown);
    }
}

bool rcmsg_config_name_warning(const char *name, size_t len, char *msg, size_t msglen)
{
    size_t plen = strlen(RCMSG_CONFIG_PREFIX), n;
    int shown = len < 128 ? (int)len : 128;
    int ids[RCMSG_CONFIG_SUGGEST_MAX];
    char list[256];
    int id;

    if (rcmsg_config_lookup(name, len) >= 0) {
        return false;
    }
    if (len >= plen && strncmp(name, RCMSG_CONFIG_PREFIX, plen) == 0) {
        n = config_suggest_rest(name + plen, len - plen, ids, RCMSG_CONFIG_SUGGEST_MAX);
        if (n == 0) {
            snprintf(msg, msglen,
                     "unknown variable %.*s ignored: no known variable is close (rcmsg_info "
                     "lists them all)",
                     shown, name);
            return true;
        }
        config_list_names(list, sizeof(list), ids, n);
        snprintf(msg, msglen, "unknown variable %.*s ignored; did you mean %s?", shown, name, list);
        return true;
    }
    id = config_prefix_miss(name, len);
    if (id < 0) {
        return false;
    }
    snprintf(msg, msglen,
             "variable %.*s ignored: rcmsg reads only RCMSG_* names, in upper case; did you mean "
             "%s?",
             shown, name, rcmsg_config_desc((rcmsg_config_id_t)id)->name);
    return true;
}
