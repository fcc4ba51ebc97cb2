# SPDX-License-Identifier: LGPL-2.1-or-later
"""TAP for the Python tests, as tests/integration/tap.sh is for the shell ones.

A test's main(tap) reports each case with tap.ok(); tap.run(main) prints the plan after the last
case and exits non-zero when one failed. A script that stops on an exception before its plan
says so: "Bail out!" with the script, the number of cases done and the exception, then the
traceback as comments, never a bare exit.

    sys.dont_write_bytecode = True  # before the import: nothing written into the source tree
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import tap

    def main(t):
        t.ok(1 + 1 == 2, "addition", ["the details printed when it fails"])

    tap.run(main)
"""

import os
import sys
import traceback

# Lines of detail printed under a failed case, at most.
DETAIL_LINES = 40


class Tap:
    def __init__(self, name):
        self.name = name
        self.count = 0
        self.failed = 0

    def ok(self, good, desc, detail=()):
        """One case: "ok N - desc", or "not ok N - desc" and the first lines of detail. Returns good."""
        self.count += 1
        self.failed += 0 if good else 1
        print("%s %d - %s" % ("ok" if good else "not ok", self.count, desc))
        for line in list(detail)[:DETAIL_LINES] if not good else ():
            self.diag(line)
        sys.stdout.flush()
        return good

    def diag(self, text):
        """A comment; every line of a text of many lines is one (else it could read as a result)."""
        for line in str(text).splitlines() or [""]:
            print("#   %s" % line)


def run(main):
    """main(tap), then the plan; exits 1 when a case failed, 99 when main raised."""
    t = Tap(os.path.basename(sys.argv[0]))
    try:
        main(t)
    except Exception as e:  # noqa: BLE001 (any exception ends the script the same way)
        sys.stdout.flush()
        print("Bail out! %s stopped after %d cases: %s: %s" % (t.name, t.count, type(e).__name__, e))
        for line in traceback.format_exc().splitlines():
            print("# " + line)
        sys.stdout.flush()
        sys.exit(99)
    print("1..%d" % t.count)
    sys.exit(1 if t.failed else 0)
