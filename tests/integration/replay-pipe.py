#!/usr/bin/python3
# Drives devfreq-replay through a pipe one line at a time: each line is written only after the
# answer to the previous one has been read, so a tool that buffered its output would hang here
# (the read has a deadline of seconds and the script then fails).
#
#   replay-pipe.py MODE REPLAY ARGS...   (MODE: work or load)
# Prints one line per step: the input sent and the output line read back.
import select
import subprocess
import sys

DEADLINE = 10


def read_line(proc):
    ready, _, _ = select.select([proc.stdout], [], [], DEADLINE)
    if not ready:
        proc.kill()
        proc.wait()
        sys.exit("no output line within %d s: the tool buffered it" % DEADLINE)
    line = proc.stdout.readline()
    if not line:
        sys.exit("the tool ended early (status %s)" % proc.wait())
    return line.rstrip("\n")


def main():
    mode, argv = sys.argv[1], sys.argv[2:]
    proc = subprocess.Popen(argv + ["-"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    print("header", read_line(proc))
    target = None
    for step in range(8):
        if mode == "work":
            # A model of its own: an application that renders 2 Mcycles a frame, and twice as
            # much while the device runs at its lowest point (it lowers its quality late).
            cycles = 4000000 if target == "100000000" else 2000000
            sent = str(cycles)
        else:
            sent = "%d,100" % (95 if step % 2 == 0 else 5)
        proc.stdin.write(sent + "\n")
        proc.stdin.flush()
        answer = read_line(proc)
        target = answer.split(",")[-1]
        print(sent, answer)
    proc.stdin.close()
    rest = proc.stdout.read()
    status = proc.wait()
    for line in rest.splitlines():
        print("after", line)
    print("status", status)


if __name__ == "__main__":
    main()
