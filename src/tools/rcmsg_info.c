/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rcmsg_info: the version, every RCMSG_* variable with its current value, default and help,
 * and the RDMA devices this process sees.
 */
#include "config.h"

#include "base/config_table.h"
#include "base/log.h"
#include "base/stats.h"
#include "base/topo.h"
#include "pml/pml.h"
#if RCMSG_HAVE_VERBS
#include "btl_rc/rc_device.h"
#endif

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *out)
{
    fprintf(out, "usage: rcmsg_info [-v] [-c] [-d] [-s] [-D] [--markdown]\n"
                 "  -v, --version   print the version only\n"
                 "  -c, --config    print the RCMSG_* variables only\n"
                 "  -d, --devices   print the RDMA devices only\n"
                 "  -s, --counters  print what each counter of RCMSG_STATS means\n"
                 "  -D, --dump      print the format of the state dump (RCMSG_STALL_TIMEOUT, "
                 "SIGUSR1)\n"
                 "      --markdown  print the variables as a Markdown table (for README.md)\n"
                 "  -h, --help      this text\n");
}

static const char *form_text(const rcmsg_config_desc_t *d, char *buf, size_t len)
{
    switch (d->type) {
    case RCMSG_CFG_TYPE_ENUM:
        snprintf(buf, len, "one of %s", d->form);
        break;
    case RCMSG_CFG_TYPE_LIST:
        snprintf(buf, len, "comma-separated list");
        break;
    case RCMSG_CFG_TYPE_STRING:
        snprintf(buf, len, "text");
        break;
    default:
        snprintf(buf, len, "%s%s%s", rcmsg_config_type_name(d->type), d->form[0] ? " in " : "",
                 d->form);
        break;
    }
    return buf;
}

static void print_config(void)
{
    char form[128];

    printf("# variables (current value, default, accepted form)\n");
    for (int id = 0; id < RCMSG_CFG_COUNT; id++) {
        const rcmsg_config_desc_t *d = rcmsg_config_desc((rcmsg_config_id_t)id);
        printf("#\n# %s\n", d->help);
        printf("# default: '%s'; %s%s\n", d->def, form_text(d, form, sizeof(form)),
               rcmsg_config_is_set((rcmsg_config_id_t)id) ? "; set in the environment" : "");
        printf("%s=%s\n", d->name, rcmsg_config_text((rcmsg_config_id_t)id));
    }
}

/* Markdown table cell: '|' escaped. */
static void print_cell(const char *text)
{
    for (; *text != '\0'; text++) {
        if (*text == '|') {
            putchar('\\');
        }
        putchar(*text);
    }
}

static void print_markdown(void)
{
    char form[128];

    printf("| variable | default | accepted | meaning |\n|---|---|---|---|\n");
    for (int id = 0; id < RCMSG_CFG_COUNT; id++) {
        const rcmsg_config_desc_t *d = rcmsg_config_desc((rcmsg_config_id_t)id);
        printf("| `%s` | ", d->name);
        if (d->def[0] != '\0') {
            printf("`%s`", d->def);
        } else {
            printf("(empty)");
        }
        printf(" | ");
        print_cell(form_text(d, form, sizeof(form)));
        printf(" | ");
        print_cell(d->help);
        printf(" |\n");
    }
}

#if RCMSG_HAVE_VERBS
static int print_gid(const rcmsg_rc_gid_t *gid, void *arg)
{
    char buf[64];
    (void)arg;
    printf("        gid[%3d] %-40s %s%s\n", gid->index, rcmsg_rc_gid_str(&gid->gid, buf),
           rcmsg_rc_gid_type_name(gid->gid_type), gid->ipv4_mapped ? ", IPv4-mapped" : "");
    return 0;
}

static void print_device(const char *name)
{
    rcmsg_rc_device_t *dev;
    char numa[64];

    if (rcmsg_rc_device_open(name, &dev) != RCMSG_OK) {
        printf("device %s: cannot be opened (see the error above)\n", name);
        return;
    }
    rcmsg_rc_device_numa(dev, numa, sizeof(numa));
    printf("device %s\n", name);
    printf("    numa:       %s\n", numa);
    printf("    max qp:     %d, max qp wr: %d, max cqe: %d, max srq wr: %d\n", dev->attr.max_qp,
           dev->attr.max_qp_wr, dev->attr.max_cqe, dev->attr.max_srq_wr);
    printf("    max inline: %u bytes\n", rcmsg_rc_max_inline(dev, 4096));
    printf("    max rd atom: %d (per qp)\n", dev->attr.max_qp_rd_atom);
    for (int port = 1; port <= dev->attr.phys_port_cnt; port++) {
        struct ibv_port_attr pa;
        if (rcmsg_rc_port_query(dev, port, &pa) != RCMSG_OK) {
            continue;
        }
        printf("    port %d: %s, link layer %s, active mtu %d, max mtu %d, lid %u\n", port,
               rcmsg_rc_port_state_name(pa.state), rcmsg_rc_link_layer_name(pa.link_layer),
               rcmsg_rc_mtu_bytes(pa.active_mtu), rcmsg_rc_mtu_bytes(pa.max_mtu), pa.lid);
        if (rcmsg_rc_gid_foreach(dev, port, print_gid, NULL) == 0) {
            printf("        (empty gid table)\n");
        }
    }
    rcmsg_rc_device_close(dev);
}

static int print_devices(void)
{
    char **names;
    int n;

    if (rcmsg_rc_device_names(&names, &n) != RCMSG_OK) {
        return 1;
    }
    printf("# RDMA devices: %d\n", n);
    if (n == 0) {
        printf("# (none: no RDMA hardware, or the kernel lacks RDMA support; see "
               "contrib/rxe-vm for Soft-RoCE)\n");
    }
    for (int i = 0; i < n; i++) {
        print_device(names[i]);
    }
    rcmsg_rc_device_names_free(names);
    return 0;
}
#else
static int print_devices(void)
{
    printf("# RDMA devices: none (rcmsg was built without verbs: configure --without-verbs)\n");
    return 0;
}
#endif

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"version", no_argument, NULL, 'v'},  {"config", no_argument, NULL, 'c'},
        {"devices", no_argument, NULL, 'd'},  {"markdown", no_argument, NULL, 'm'},
        {"counters", no_argument, NULL, 's'}, {"dump", no_argument, NULL, 'D'},
        {"help", no_argument, NULL, 'h'},     {NULL, 0, NULL, 0}};
    int want_config = 0, want_devices = 0, want_markdown = 0, want_version = 0;
    int want_counters = 0, want_dump = 0;
    int c, rc = 0;

    while ((c = getopt_long(argc, argv, "vcdsDh", opts, NULL)) != -1) {
        switch (c) {
        case 'v':
            want_version = 1;
            break;
        case 'c':
            want_config = 1;
            break;
        case 'd':
            want_devices = 1;
            break;
        case 'm':
            want_markdown = 1;
            break;
        case 's':
            want_counters = 1;
            break;
        case 'D':
            want_dump = 1;
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            usage(stderr);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "rcmsg_info: unexpected argument '%s'\n", argv[optind]);
        usage(stderr);
        return 2;
    }
    if (want_markdown) {
        print_markdown();
        return 0;
    }
    if (rcmsg_config_load(NULL) != RCMSG_OK) {
        fprintf(stderr, "rcmsg_info: invalid RCMSG_* settings (see above)\n");
        return 1;
    }
    printf("# rcmsg version %s\n", rcmsg_version());
    if (want_version) {
        goto out;
    }
    if (!want_config && !want_devices && !want_counters && !want_dump) {
        want_config = want_devices = want_counters = want_dump = 1;
    }
    if (want_config) {
        print_config();
    }
    if (want_devices) {
        rc = print_devices();
    }
    if (want_counters) {
        rcmsg_stats_describe(stdout);
    }
    if (want_dump) {
        rcmsg_pml_dump_describe(stdout);
    }
out:
    rcmsg_topo_release();
    rcmsg_config_unload();
    return rc;
}
