#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Each module reads the RCMSG_* configuration once, at open, into its own typed struct: no
# rcmsg_config_* getter may be called outside the functions listed here (per connect, per
# call, in the async thread or at close the modules use their copy). A new module adds its
# config-reading function to the list.
set -u
cd "$top_srcdir" || exit 1

# file (base name, so a file may move folders):function, or file:* for a whole file
allowed='
core.c:rcmsg_init_thread
core.c:rcmsg_finalize
rcmsg_info.c:*
rc_config.c:rc_config_read
pml.c:pml_config_read
pml_base.c:pml_base_init
pml_recv.c:pml_recv_init
pml_liveness.c:pml_live_init
pml_dump.c:pml_dump_init
pml_ctx.c:pml_ctx_init
rcache.c:rcmsg_rcache_init
progress.c:progress_config_read
coll.c:rcmsg_coll_init
wireup_launcher.c:rcmsg_wireup_launcher_start
sm_btl.c:sm_config_read
wireup.c:wireup_open
wireup_lazy.c:rcmsg_wireup_lazy_wanted
rc_component.c:rc_addr_on_demand
stats.c:stats_config_read
'
getters='rcmsg_config_(bool|int|size|time_us|enum|enum_text|list|string|text|is_set|load|unload)[[:space:]]*\('

bad=$(find src -name '*.[ch]' ! -path 'src/base/config_*' | sort |
    xargs awk -v allowed="$allowed" -v re="$getters" '
        FNR == 1 { fn = ""; inbody = 0; n = split(FILENAME, p, "/"); base = p[n] }
        /^[A-Za-z_].*[A-Za-z_0-9]+\(/ && !inbody {
            s = $0; sub(/\(.*/, "", s); sub(/.*[^A-Za-z_0-9]/, "", s); cand = s
        }
        /^\{/ { inbody = 1; fn = cand }
        {
            line = $0; gsub(/\/\*.*\*\//, "", line)
            if (line ~ re && !(index(allowed, "\n" base ":*\n") || index(allowed, "\n" base ":" fn "\n")))
                printf "%s:%d: in %s(): %s\n", FILENAME, FNR, inbody ? fn : "(file scope)", $0
        }
        /^\}/ { inbody = 0; fn = "" }
    ')
if [ -n "$bad" ]; then
    echo "$bad"
    echo "FAIL: rcmsg_config_* getters called outside the modules' config-reading functions"
    echo "(above); read the value once at open into the module's config struct instead, or add"
    echo "the function that does to the list in test/unit/config_reads.sh"
    exit 1
fi
echo "ok: rcmsg_config_* getters are called only in the modules' config-reading functions"
