#!/usr/bin/env bash
# The fixtures themselves: the fake root and the fake kernel behave as the tests assume.
set -euo pipefail
: "${top_builddir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
exec bash "$top_srcdir/tests/fixtures/selftest.sh" "$top_builddir/tests/fixtures/fakekernel.so"
