#!/usr/bin/python3
"""Run a command in a pseudo-terminal and keep its screen in a file.

    pty-run.py ROWS COLS SCREEN CONTROL -- COMMAND...

The command runs with TERM=vt100 (or $PTY_TERM) on a ROWS x COLS terminal. Its output goes through a small
VT100 screen model (cursor addressing, erasing, scrolling regions, autowrap: what curses emits
for TERM=vt100), and after every read the screen, one line per row, replaces the file SCREEN.
CONTROL is a FIFO read line by line: "key TEXT" types TEXT (escapes as in Python: \\r, \\x1b),
"resize ROWS COLS" changes the window size (TIOCSWINSZ: the kernel sends SIGWINCH).
With $PTY_MODES set, the terminal's line discipline modes ("icanon echo", "-icanon -echo", ...) are
kept in that file too, after every read and once more after the command has ended.
Exits with the command's exit status (128 + N when killed by signal N), after writing the last
screen; after 120 s (or $PTY_RUN_SECONDS) the command is killed.
"""

import codecs
import errno
import fcntl
import os
import pty
import select
import signal
import struct
import sys
import termios
import time


class Screen:
    def __init__(self, rows, cols):
        self.rows, self.cols = rows, cols
        self.cells = [[" "] * cols for _ in range(rows)]
        self.y = self.x = 0
        self.top, self.bottom = 0, rows - 1
        self.wrap_pending = False
        self.saved = (0, 0)
        self.state = "text"
        self.params = ""

    def resize(self, rows, cols):
        cells = [[" "] * cols for _ in range(rows)]
        for y in range(min(rows, self.rows)):
            for x in range(min(cols, self.cols)):
                cells[y][x] = self.cells[y][x]
        self.cells, self.rows, self.cols = cells, rows, cols
        self.top, self.bottom = 0, rows - 1
        self.y, self.x = min(self.y, rows - 1), min(self.x, cols - 1)

    def text(self):
        return "\n".join("".join(row).rstrip() for row in self.cells) + "\n"

    def scroll_up(self):
        del self.cells[self.top]
        self.cells.insert(self.bottom, [" "] * self.cols)

    def scroll_down(self):
        del self.cells[self.bottom]
        self.cells.insert(self.top, [" "] * self.cols)

    def linefeed(self):
        if self.y == self.bottom:
            self.scroll_up()
        elif self.y < self.rows - 1:
            self.y += 1

    def put(self, ch):
        if self.wrap_pending:
            self.x = 0
            self.linefeed()
            self.wrap_pending = False
        self.cells[self.y][self.x] = ch
        if self.x == self.cols - 1:
            self.wrap_pending = True
        else:
            self.x += 1

    def feed(self, data):
        for ch in data:
            getattr(self, "in_" + self.state)(ch)

    def in_text(self, ch):
        if ch == "\x1b":
            self.state = "escape"
        elif ch == "\r":
            self.x, self.wrap_pending = 0, False
        elif ch in "\n\x0b\x0c":
            self.linefeed()
            self.wrap_pending = False
        elif ch == "\b":
            self.x, self.wrap_pending = max(0, self.x - 1), False
        elif ch == "\t":
            self.x = min(self.cols - 1, (self.x // 8 + 1) * 8)
        elif ch >= " " and ch != "\x7f":
            self.put(ch)

    def in_escape(self, ch):
        self.state = "text"
        if ch == "[":
            self.state, self.params = "csi", ""
        elif ch in "()*+":
            self.state = "charset"
        elif ch == "7":
            self.saved = (self.y, self.x)
        elif ch == "8":
            self.y, self.x = self.saved
        elif ch == "D":
            self.linefeed()
        elif ch == "E":
            self.x = 0
            self.linefeed()
        elif ch == "M":
            if self.y == self.top:
                self.scroll_down()
            elif self.y > 0:
                self.y -= 1
        elif ch == "c":
            self.__init__(self.rows, self.cols)

    def in_charset(self, ch):
        self.state = "text"

    def in_csi(self, ch):
        if ch.isdigit() or ch in ";?>=":
            self.params += ch
            return
        self.state = "text"
        self.wrap_pending = False
        if self.params.startswith(("?", ">", "=")):
            return  # modes: nothing on the screen
        args = [int(a) if a else 0 for a in self.params.split(";")]
        n = max(1, args[0])
        if ch in "Hf":
            self.y = min(self.rows - 1, max(1, args[0]) - 1)
            self.x = min(self.cols - 1, max(1, args[1] if len(args) > 1 else 1) - 1)
        elif ch == "A":
            self.y = max(0, self.y - n)
        elif ch == "B":
            self.y = min(self.rows - 1, self.y + n)
        elif ch == "C":
            self.x = min(self.cols - 1, self.x + n)
        elif ch == "D":
            self.x = max(0, self.x - n)
        elif ch == "G":
            self.x = min(self.cols - 1, n - 1)
        elif ch == "d":
            self.y = min(self.rows - 1, n - 1)
        elif ch == "J":
            self.erase_display(args[0])
        elif ch == "K":
            self.erase_line(args[0])
        elif ch == "r":
            self.top = max(1, args[0]) - 1
            self.bottom = min(self.rows, args[1] if len(args) > 1 and args[1] else self.rows) - 1
            self.y = self.x = 0
        elif ch == "X":
            for x in range(self.x, min(self.cols, self.x + n)):
                self.cells[self.y][x] = " "
        elif ch == "P":
            row = self.cells[self.y]
            del row[self.x:self.x + n]
            row.extend([" "] * (self.cols - len(row)))
        elif ch == "@":
            row = self.cells[self.y]
            row[self.x:self.x] = [" "] * n
            del row[self.cols:]
        elif ch == "L":
            for _ in range(n):
                del self.cells[self.bottom]
                self.cells.insert(self.y, [" "] * self.cols)
        elif ch == "M":
            for _ in range(n):
                del self.cells[self.y]
                self.cells.insert(self.bottom, [" "] * self.cols)

    def erase_line(self, how):
        row = self.cells[self.y]
        span = {0: range(self.x, self.cols), 1: range(0, self.x + 1)}.get(how, range(self.cols))
        for x in span:
            row[x] = " "

    def erase_display(self, how):
        self.erase_line(how)
        rows = {0: range(self.y + 1, self.rows), 1: range(0, self.y)}.get(how, range(self.rows))
        for y in rows:
            self.cells[y] = [" "] * self.cols


def set_size(fd, rows, cols):
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))


def write_screen(path, screen):
    with open(path + ".new", "w") as f:
        f.write(screen.text())
    os.rename(path + ".new", path)


def write_modes(path, fd):
    try:
        lflag = termios.tcgetattr(fd)[3]
    except termios.error as e:
        modes = f"unknown ({e})"
    else:
        modes = " ".join(("" if lflag & flag else "-") + name
                         for name, flag in (("icanon", termios.ICANON), ("echo", termios.ECHO)))
    with open(path + ".new", "w") as f:
        f.write(modes + "\n")
    os.rename(path + ".new", path)


def control(line, fd, screen):
    word, _, rest = line.partition(" ")
    if word == "key":
        os.write(fd, rest.encode().decode("unicode_escape").encode())
    elif word == "resize":
        rows, cols = map(int, rest.split())
        screen.resize(rows, cols)
        set_size(fd, rows, cols)
    else:
        print(f"pty-run: unknown control line {line!r}", file=sys.stderr)


def main():
    if len(sys.argv) < 7 or sys.argv[5] != "--":
        sys.exit("usage: pty-run.py ROWS COLS SCREEN CONTROL -- COMMAND...")
    rows, cols, screen_path, control_path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
    command = sys.argv[6:]
    screen = Screen(rows, cols)
    write_screen(screen_path, screen)
    ctl = os.open(control_path, os.O_RDWR | os.O_NONBLOCK)  # RDWR: no EOF when a writer closes

    pid, fd = pty.fork()
    if pid == 0:
        set_size(sys.stdin.fileno(), rows, cols)
        os.environ["TERM"] = os.environ.get("PTY_TERM", "vt100")
        os.execvp(command[0], command)

    raw = open(os.environ["PTY_RAW"], "wb") if os.environ.get("PTY_RAW") else None
    modes_path = os.environ.get("PTY_MODES")
    seconds = int(os.environ.get("PTY_RUN_SECONDS", "120"))
    deadline = time.monotonic() + seconds
    pending = b""
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")  # a sequence may span two reads
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd, ctl], [], [], 1.0)
        if ctl in ready:
            pending += os.read(ctl, 4096)
            while b"\n" in pending:
                line, pending = pending.split(b"\n", 1)
                control(line.decode(), fd, screen)
        if fd in ready:
            try:
                data = os.read(fd, 65536)
            except OSError as e:
                if e.errno != errno.EIO:
                    raise
                data = b""
            if not data:
                break
            if raw:
                raw.write(data)
                raw.flush()
            screen.feed(decoder.decode(data))
            write_screen(screen_path, screen)
            if modes_path:
                write_modes(modes_path, fd)
    else:
        print(f"pty-run: the command did not end in {seconds} s; killing it", file=sys.stderr)
        os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    write_screen(screen_path, screen)
    if modes_path:
        write_modes(modes_path, fd)
    sys.exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))


if __name__ == "__main__":
    main()
