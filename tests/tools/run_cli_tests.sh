#!/usr/bin/env bash
# Runs every tests/cli/*.sh case file against the sbrdma binary.
# A case file calls `check NAME EXPECTED_EXIT [stdin-file|-] -- ARGS...` and then
# `expect_out TEXT` / `expect_err TEXT` / `expect_err_first TEXT` / `expect_out_file FILE` / `expect_row SIZE COUNT TYPE`
# on the last command's output (`expect_out_lines TEXT`: TEXT's lines, one after the other).
# CHECK_SECONDS=N before `check` stops the command after N seconds (exit 124: a failure unless
# expected), for a case whose bug would be a run that does not end soon.
# CHECK_VMEM_KB=N before `check` runs the command with its address space limited to N KiB
# (ulimit -v), for a case about running out of memory; `sanitized` is true for a binary built
# with AddressSanitizer, which cannot start under such a limit (its shadow memory is huge).
# CHECK_FSIZE_KB=N runs it with the files it writes limited to N KiB (ulimit -f).
set -u
# The memory figure a data run plans with is the OS's unless a case sets it (D43).
unset SBRDMA_MEMORY_LIMIT
SBRDMA=$1
DIR=$2
export SBRDMA DIR
pass=0
fail=0
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cur=""

_fail() { echo "FAIL [$cur] $*"; fail=$((fail + 1)); }
sanitized() { ldd "$SBRDMA" 2>/dev/null | grep -q libasan; }

# check NAME EXIT STDIN -- args...
check() {
  cur=$1
  local want=$2 in=$3
  shift 4
  if [[ $in == "-" ]]; then in=/dev/null; fi
  local limit=()
  if [[ -n ${CHECK_SECONDS:-} ]]; then limit=(timeout "$CHECK_SECONDS"); fi
  if [[ -n ${CHECK_VMEM_KB:-} ]]; then
    limit=("${limit[@]}" bash -c 'ulimit -v "$0" && exec "$@"' "$CHECK_VMEM_KB")
  fi
  if [[ -n ${CHECK_FSIZE_KB:-} ]]; then
    limit=("${limit[@]}" bash -c 'ulimit -f "$0" && exec "$@"' "$CHECK_FSIZE_KB")
  fi
  (cd "$WORK" && "${limit[@]}" "$SBRDMA" "$@" <"$in" >"$WORK/out" 2>"$WORK/err")
  local rc=$?
  if [[ $rc -ne $want ]]; then
    _fail "exit $rc, expected $want: sbrdma $*"
    sed 's/^/  stderr: /' "$WORK/err" | head -5
  else
    pass=$((pass + 1))
  fi
}
expect_out() {
  if grep -qF -- "$1" "$WORK/out"; then pass=$((pass + 1)); else
    _fail "stdout lacks: $1"; sed 's/^/  stdout: /' "$WORK/out" | head -10; fi
}
# expect_out_lines TEXT: stdout holds TEXT's lines in a row (grep -F would take each line alone).
expect_out_lines() {
  local out
  out=$(cat "$WORK/out")
  if [[ "$out" == *"$1"* ]]; then pass=$((pass + 1)); else
    _fail "stdout lacks these lines in a row:"; printf '%s\n' "$1" | sed 's/^/  wanted: /'
    sed 's/^/  stdout: /' "$WORK/out" | head -20; fi
}
expect_err() {
  if grep -qF -- "$1" "$WORK/err"; then pass=$((pass + 1)); else
    _fail "stderr lacks: $1"; sed 's/^/  stderr: /' "$WORK/err" | head -10; fi
}
# expect_err_first TEXT: stderr's first line starts with TEXT (an error's prefix: the file at
# fault, or the program's name where no file is).
expect_err_first() {
  local first
  first=$(head -n 1 "$WORK/err")
  if [[ $first == "$1"* ]]; then pass=$((pass + 1)); else
    _fail "stderr's first line does not start with: $1"; sed 's/^/  stderr: /' "$WORK/err" | head -3; fi
}
# expect_err_bytes_below N: stderr is shorter than N bytes (a long token echoed cut, not whole).
expect_err_bytes_below() {
  local n
  n=$(wc -c <"$WORK/err")
  if [[ $n -lt $1 ]]; then pass=$((pass + 1)); else _fail "stderr has $n bytes, expected < $1"; fi
}
expect_err_lines() {
  local n
  n=$(wc -l <"$WORK/err")
  if [[ $n -eq $1 ]]; then pass=$((pass + 1)); else _fail "stderr has $n lines, expected $1"; fi
}
# expect_row SIZE COUNT TYPE: the last `bench` table has the row SIZE COUNT TYPE ... with
# #wrong 0 (the last column); the columns between are times, which this does not pin.
expect_row() {
  if awk -v s="$1" -v c="$2" -v t="$3" '$1 == s && $2 == c && $3 == t && $NF == "0" { ok = 1 }
      END { exit !ok }' "$WORK/out"; then
    pass=$((pass + 1))
  else
    _fail "no row '$1 $2 $3 ... 0'"
    sed 's/^/  stdout: /' "$WORK/out" | head -10
  fi
}
expect_out_file() {
  if cmp -s "$1" "$WORK/out"; then pass=$((pass + 1)); else
    _fail "stdout differs from $1"; diff "$1" "$WORK/out" | head -20; fi
}
work() { echo "$WORK"; }

for f in "$DIR"/*.sh; do
  [[ -e $f ]] || continue
  # A syntax error would end the file's cases early without failing any: fail it here.
  if ! bash -n "$f" 2>"$WORK/syntax"; then
    cur=$(basename "$f")
    _fail "syntax error: $(head -n 1 "$WORK/syntax")"
    continue
  fi
  # shellcheck source=/dev/null
  source "$f"
done
echo "cli: $pass passed, $fail failed"
[[ $fail -eq 0 ]]
