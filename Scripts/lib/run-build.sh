# Sourced by Scripts/test and Scripts/demo. run_build LOG COMMAND [ARG...] runs a build with its output in
# LOG; when it fails, it shows what failed: the command, then the first 40 error lines of the log (the
# compiler's and the linker's), or the log's last 40 lines when none is marked as an error.
run_build() {
  local log="$1"; shift
  "$@" >"$log" 2>&1 && return 0
  echo "build failed: $*"
  local errors
  errors=$(grep -E 'error:|undefined reference to' "$log" | head -40 || true)
  if [ -n "$errors" ]; then echo "$errors"; else tail -40 "$log"; fi
  echo "(the whole output: $log)"
  return 1
}
