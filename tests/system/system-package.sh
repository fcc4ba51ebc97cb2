#!/usr/bin/env bash
# The system tier on the Debian package: tests/system/system.sh with the package installed by
# dpkg -i in the namespace in place of make install, then removed and purged there.
# DF_SYSTEM_PACKAGE names the .deb (`make check-system-package DEB=…`; tools/check passes the one
# tools/package built).
set -euo pipefail
if [[ -z ${DF_SYSTEM_PACKAGE:-} ]]; then
        echo "Bail out! DF_SYSTEM_PACKAGE names no .deb (make check-system-package DEB=FILE; tools/package builds it)"
        exit 1
fi
exec "$BASH" "$(dirname "$0")/system.sh"
