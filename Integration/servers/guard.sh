#!/usr/bin/env bash
# Runs one server and guarantees that it does not outlive the test process that started it.
#
#   guard.sh PARENT_PID SERVER_PID_FILE -- COMMAND [ARGS...]
#
# The server runs in its own process group (job control), so stopping the group stops its workers
# too. SERVER_PID_FILE receives the server's pid, which is also its process group id, so the harness
# can still kill the group should the guard itself not respond.
#
# The guard stops the server's group when
#   - its parent is no longer PARENT_PID (the test process exited or was killed, even with -9),
#     checked once a second, or
#   - it receives TERM, INT or HUP (the harness's atexit handler sends TERM).
# Stopping sends TERM to the group, waits up to 1 s, then sends KILL to whatever is left.
# When the server exits on its own, the guard exits with the server's status.
set -u
usage="usage: guard.sh PARENT_PID SERVER_PID_FILE -- COMMAND [ARGS...]"
parent=${1:?$usage}
pid_file=${2:?$usage}
shift 2
[ "${1:-}" = "--" ] && shift
[ $# -gt 0 ] || { echo "$usage" >&2; exit 2; }

say() { echo "guard[$$]: $*" >&2; }

# Close every descriptor inherited beyond stdio (bash reads this script from 255), so the server
# never holds a pipe or socket of the test process open, such as another command's output pipe.
for fd in /proc/$$/fd/*; do
    fd=${fd##*/}
    case $fd in
        0|1|2|255) ;;
        *) eval "exec $fd>&-" 2>/dev/null ;;
    esac
done

server=
sleeper=
stop() {
    trap '' TERM INT HUP
    [ -n "$sleeper" ] && kill "$sleeper" 2>/dev/null
    [ -n "$server" ] || exit 0
    say "$1; stopping process group $server"
    kill -TERM -- "-$server" 2>/dev/null
    for _ in 1 2 3 4 5 6 7 8 9 10; do
        kill -0 -- "-$server" 2>/dev/null || break
        sleep 0.1
    done
    kill -KILL -- "-$server" 2>/dev/null
    wait "$server" 2>/dev/null
    exit 0
}
trap 'stop "received TERM"' TERM
trap 'stop "received INT"' INT
trap 'stop "received HUP"' HUP

set -m                      # the server gets its own process group, whose id is its pid
"$@" </dev/null &
server=$!
set +m
echo "$server" > "$pid_file"

# The parent pid is field 4 of /proc/<pid>/stat; field 2, "(comm)", may contain spaces.
current_parent() {
    local stat
    read -r stat < "/proc/$$/stat" || return 1
    set -- ${stat##*) }
    echo "$2"
}

while :; do
    if [ "$(current_parent)" != "$parent" ]; then
        stop "parent $parent is gone"
    fi
    if ! kill -0 "$server" 2>/dev/null; then
        wait "$server"
        status=$?
        say "server exited with status $status"
        kill -KILL -- "-$server" 2>/dev/null   # workers it may have left behind
        exit "$status"
    fi
    sleep 1 &
    sleeper=$!
    wait "$sleeper" 2>/dev/null
    sleeper=
done
