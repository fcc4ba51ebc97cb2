# Sourced by the integration tests: TAP output for automake's tap-driver, and small helpers.
# shellcheck shell=bash

tap_count=0
tap_failures=0

ok() {
        tap_count=$((tap_count + 1))
        echo "ok $tap_count - $*"
}

not_ok() {
        tap_count=$((tap_count + 1))
        tap_failures=$((tap_failures + 1))
        echo "not ok $tap_count - $*"
}

skip() {
        tap_count=$((tap_count + 1))
        echo "ok $tap_count # SKIP $*"
}

# check DESCRIPTION COMMAND...: one test, passing when the command succeeds; a failure names the
# command and its exit status.
check() {
        local desc=$1 status=0
        shift
        "$@" || status=$?
        if ((status == 0)); then
                ok "$desc"
        else
                not_ok "$desc"
                tap_value "command:" "$*"
                tap_value "status: " "$status"
        fi
}

# tap_value LABEL VALUE: "#   LABEL VALUE", every further line of VALUE a comment too (a line of
# output at the start of a line could read as a result, or as a bail-out).
tap_value() {
        local first=1 line
        while IFS= read -r line; do
                if ((first)); then printf '#   %s %s\n' "$1" "$line"; else printf '#   %*s %s\n' "${#1}" "" "$line"; fi
                first=0
        done <<<"$2"
}

# is DESCRIPTION ACTUAL EXPECTED
is() {
        if [[ $2 == "$3" ]]; then
                ok "$1"
        else
                not_ok "$1"
                tap_value "got:     " "$2"
                tap_value "expected:" "$3"
        fi
}

# like DESCRIPTION TEXT REGEX
like() {
        if [[ $2 =~ $3 ]]; then
                ok "$1"
        else
                not_ok "$1"
                tap_value "text:   " "$2"
                tap_value "pattern:" "$3"
        fi
}

# contains DESCRIPTION TEXT SUBSTRING
contains() {
        if [[ $2 == *"$3"* ]]; then
                ok "$1"
        else
                not_ok "$1"
                tap_value "text:   " "$2"
                tap_value "missing:" "$3"
        fi
}

diag() {
        printf '# %s\n' "$@"
}

tap_planned=
tap_done() {
        tap_planned=1
        echo "1..$tap_count"
        ((tap_failures == 0))
}

# The build tree (make check sets top_builddir) and the source tree.
: "${top_builddir:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
: "${top_srcdir:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
