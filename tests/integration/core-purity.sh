#!/usr/bin/env bash
# The core of libdevfreq decides and does no I/O: its objects call no file, directory or process
# system call, and nothing of the I/O part; only the I/O part touches the system. TAP on stdout.
set -euo pipefail
source "$(dirname "$0")/tap.sh"

core=$top_builddir/lib/libdevfreq-core.a
io=$top_builddir/lib/libdevfreq-io.a
check "the core archive is built" test -s "$core"
check "the I/O archive is built" test -s "$io"

# The C library's entry points to files, directories, descriptors and processes (with their
# fortified and 64-bit names). Formatting into memory (open_memstream, fprintf on it) is allowed:
# it is not I/O. Reading the clock and drawing a random key are allowed too.
forbidden='^(__)?(open|open64|openat|openat64|openat2|creat|creat64|read|pread|pread64|readv|preadv|'
forbidden+='write|pwrite|pwrite64|writev|pwritev|ftruncate|ftruncate64|truncate|fopen|fopen64|fdopen|'
forbidden+='freopen|fread|fgets|getc|getc_unlocked|fgetc|getline|getdelim|fscanf|scanf|'
forbidden+='stat|stat64|fstat|fstat64|lstat|lstat64|fstatat|fstatat64|statx|x?stat|fxstat|fxstatat|'
forbidden+='opendir|fdopendir|readdir|readdir64|scandir|closedir|close|dup|dup2|dup3|fcntl|ioctl|'
forbidden+='mkdir|mkdirat|unlink|unlinkat|rename|renameat|renameat2|readlink|readlinkat|symlink|'
forbidden+='access|faccessat|chmod|fchmod|chown|fchown|mmap|mmap64|socket|connect|sendmsg|recvmsg|'
forbidden+='fork|vfork|execve|execv|execvp|system|popen|kill|waitpid|wait|syscall)(_chk|_2)?$'

# undefined_of ARCHIVE: "object symbol" for every undefined symbol of each object.
undefined_of() { nm -u -A "$1" | awk '{ split($1, a, ":"); print a[2], $NF }'; }

# The core calls malloc and the like: an empty list means nm could not read the archive.
if undefined=$(undefined_of "$core") && [[ -n $undefined ]]; then ok "nm lists the core's undefined symbols"; else
        not_ok "nm lists the core's undefined symbols"
fi
bad=$(awk -v re="$forbidden" '$2 ~ re' <<<"$undefined" || true)
if [[ -z $bad ]]; then ok "no object of the core calls a file, directory or process function"; else
        not_ok "no object of the core calls a file, directory or process function"
        diag "found (object symbol):"
        printf '%s\n' "$bad" | sed 's/^/#   /'
fi

# The I/O part's own definitions: the core may not call up into it.
nm --defined-only -A "$io" | awk '$(NF-1) ~ /^[TDRB]$/ { print $NF }' | sort -u >"${TMPDIR:-/tmp}/io-syms.$$"
up=$(awk 'NR == FNR { io[$1] = 1; next } ($2 in io)' "${TMPDIR:-/tmp}/io-syms.$$" - <<<"$undefined" || true)
rm -f "${TMPDIR:-/tmp}/io-syms.$$"
if [[ -z $up ]]; then ok "the core calls nothing of the I/O part"; else
        not_ok "the core calls nothing of the I/O part"
        diag "found (object symbol):"
        printf '%s\n' "$up" | sed 's/^/#   /'
fi

# The check can fail: the I/O part does call the system (the same pattern finds it there).
like "the same check finds the I/O part's system calls" "$(undefined_of "$io" | awk -v re="$forbidden" '$2 ~ re' | awk '{print $2}' | sort -u | xargs)" '(^| )(__)?pread(64)?(_chk)?( |$)'
tap_done
