#!/bin/sh
# Regenerate the build system; then configure in a build directory (tools/bootstrap does both).
set -e
cd "$(dirname "$0")"
mkdir -p build-aux m4
autoreconf --force --install --warnings=all
# The TAP test driver ships with automake but is not installed by --add-missing.
cp -f "$(automake --print-libdir)/tap-driver.sh" build-aux/
