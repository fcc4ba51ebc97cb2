#!/usr/bin/env bash
# The manuals: mandoc finds nothing above STYLE in any page, devfreqd.conf(5) documents every key
# the configuration parser (lib/config*.c) accepts, devfreqd(8) every option of devfreqd --help, and
# org.devfreqd.Devfreq1(5) every method and property the daemon registers. The lists come from
# the sources and the binary, so a new key, option or member without its documentation fails.
set -euo pipefail
source "$(dirname "$0")/tap.sh"

man=$top_srcdir/man
devfreqd=$top_builddir/daemon/devfreqd

# diag, one TAP comment line per line of text.
diag_lines() {
        local line
        while IFS= read -r line; do
                diag "$line"
        done <<<"$1"
}

# The tags of a page's .TP items (the line after each .TP), with \- and \& undone and quotes
# dropped; with a section name, only the tags of that section.
tags() {
        local page=$1 section=${2:-}
        awk -v want="$section" '
                /^\.SH / { sub(/^\.SH +/, ""); gsub(/"/, ""); in_section = want == "" || $0 == want; next }
                in_section && /^\.TP/ { if ((getline line) > 0) print line }
        ' "$page" | sed -e 's/\\-/-/g' -e 's/\\&//g' -e 's/"//g' -e 's/^\.[A-Z]* //'
}

# --- every page passes mandoc's lint, STYLE messages allowed --------------------------------------

shopt -s nullglob
pages=("$man"/*.1 "$man"/*.5 "$man"/*.8)
shopt -u nullglob
if ((${#pages[@]} == 0)); then
        not_ok "manual pages in $man"
fi
for page in "${pages[@]}"; do
        name=${page##*/}
        if ! command -v mandoc >/dev/null; then
                skip "mandoc -T lint $name: mandoc is not installed"
                continue
        fi
        # -T lint alone implies -W all, whose exit status is 1 for STYLE messages too; with
        # -W warning it reports, and fails on, warnings and worse only (exit 2 and above).
        if out=$(mandoc -T lint -W warning "$page" 2>&1) && [[ -z $out ]]; then
                ok "mandoc -T lint $name"
                # STYLE messages pass, but are shown.
                style=$(mandoc -T lint "$page" 2>&1 || true)
                [[ -z $style ]] || diag_lines "$style"
        else
                not_ok "mandoc -T lint $name"
                diag_lines "${out:-mandoc failed without a message}"
        fi
done

# --- devfreqd.conf(5): every key of the parser's table and every governor tunable ---------------

conf_page=$man/devfreqd.conf.5
# The table of keys lives in the parser's sources, lib/config.c or a lib/config-*.c beside it.
mapfile -t keys < <(cat "$top_srcdir"/lib/config*.c |
        sed -n '/^} keys\[\] = {/,/^};/s/^[[:space:]]*{ "\([a-z][a-z-]*\)", KEY_.*/\1/p')
# Tunables are keys too: [device] accepts any tunable name of any governor (lib/governor_*.c).
mapfile -t tunables < <(sed -n 's/.*\.name = "\([a-z][a-z_]*\)", \.def = .*/\1/p' \
        "$top_srcdir"/lib/governor_*.c | sort -u)
check "keys extracted from lib/config*.c" test "${#keys[@]}" -ge 10
check "tunables extracted from lib/governor_*.c" test "${#tunables[@]}" -ge 4
if [[ -f $conf_page ]]; then
        conf_tags=$(tags "$conf_page" | awk '{ print $1 }' | sort -u)
        for key in "${keys[@]}" "${tunables[@]}"; do
                if grep -qxF -- "$key" <<<"$conf_tags"; then
                        ok "devfreqd.conf(5) documents $key"
                else
                        not_ok "devfreqd.conf(5) documents $key"
                        diag "no .TP item of man/devfreqd.conf.5 starts with '$key'"
                fi
        done
else
        not_ok "man/devfreqd.conf.5 exists"
fi

# --- devfreqd(8): every option of devfreqd --help, in OPTIONS -----------------------------------

daemon_page=$man/devfreqd.8
if help=$("$devfreqd" --help 2>&1); then
        mapfile -t options < <(grep -oE '(^|[[:space:],])--?[a-z][a-z-]*' <<<"$help" | tr -d ' ,' | sort -u)
        check "options extracted from devfreqd --help" test "${#options[@]}" -ge 10
else
        options=()
        not_ok "devfreqd --help runs"
        diag_lines "$help"
fi
if [[ -f $daemon_page ]]; then
        option_tags=$(tags "$daemon_page" OPTIONS | sed -E 's/[ ,]+/\n/g' | grep -E '^--?[a-z]' | sort -u || true)
        for option in "${options[@]}"; do
                if grep -qxF -- "$option" <<<"$option_tags"; then
                        ok "devfreqd(8) documents $option"
                else
                        not_ok "devfreqd(8) documents $option"
                        diag "no .TP item of OPTIONS in man/devfreqd.8 names '$option'"
                fi
        done
else
        not_ok "man/devfreqd.8 exists"
fi

# --- org.devfreqd.Devfreq1(5): every method and property of the vtables in dbus/ -----------------

bus_page=$man/org.devfreqd.Devfreq1.5
# One line per file, so that a macro and its first argument may sit on different lines.
vtables=$(for f in "$top_srcdir"/dbus/*.c; do tr '\n' ' ' <"$f"; echo; done)
mapfile -t properties < <(grep -oE 'SD_BUS_(WRITABLE_)?PROPERTY\([[:space:]]*"[A-Za-z]+"' <<<"$vtables" |
        sed 's/.*"\(.*\)"/\1/' | sort -u)
mapfile -t methods < <(grep -oE 'SD_BUS_METHOD[A-Z_]*\([[:space:]]*"[A-Za-z]+"' <<<"$vtables" |
        sed 's/.*"\(.*\)"/\1/' | sort -u)
check "properties extracted from dbus/*.c" test "${#properties[@]}" -ge 20
check "methods extracted from dbus/*.c" test "${#methods[@]}" -ge 10
if [[ -f $bus_page ]]; then
        for p in "${properties[@]}"; do
                if grep -qE "^ +read(only|write) [^ ]+ $p = " "$bus_page"; then
                        ok "org.devfreqd.Devfreq1(5) lists property $p"
                else
                        not_ok "org.devfreqd.Devfreq1(5) lists property $p"
                fi
        done
        for m in "${methods[@]}"; do
                if grep -qE "^ +$m\(" "$bus_page"; then
                        ok "org.devfreqd.Devfreq1(5) lists method $m"
                else
                        not_ok "org.devfreqd.Devfreq1(5) lists method $m"
                fi
        done
else
        not_ok "man/org.devfreqd.Devfreq1.5 exists"
fi

tap_done
