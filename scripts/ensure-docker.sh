#!/usr/bin/env bash
# Make sure a Docker daemon is usable on this machine (idempotent).
#
# - If `docker info` already works, exit 0.
# - Otherwise install docker.io and debootstrap (if missing) and start dockerd in the
#   background without touching the host network (--bridge=none --iptables=false; image
#   builds use `docker build --network host`, sandboxes use `--network none`).
# - Wait up to DOCKER_WAIT_S (default 60) seconds for the daemon to answer.
set -euo pipefail

LOG=/var/log/dockerd.log
WAIT_S="${DOCKER_WAIT_S:-60}"

if docker info >/dev/null 2>&1; then
    exit 0
fi

if [[ $(id -u) -ne 0 ]]; then
    echo "ensure-docker: docker is not usable and this script must run as root to fix it" >&2
    exit 1
fi

missing=()
command -v dockerd >/dev/null 2>&1 || missing+=(docker.io)
command -v docker >/dev/null 2>&1 || missing+=(docker.io)
command -v debootstrap >/dev/null 2>&1 || missing+=(debootstrap)
if ((${#missing[@]} > 0)); then
    # de-duplicate (docker.io may be listed twice)
    mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u)
    echo "ensure-docker: installing ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    apt-get install -y -q "${missing[@]}"
fi

# /var/run/docker.pid is written by dockerd itself; a live pid means a daemon is
# already starting, a dead one is stale and would make dockerd refuse to start.
pid=""
[[ -f /var/run/docker.pid ]] && pid="$(cat /var/run/docker.pid 2>/dev/null || true)"
if [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null; then
    echo "ensure-docker: dockerd (pid $pid) is already running; waiting for it" >&2
else
    rm -f /var/run/docker.pid
    echo "ensure-docker: starting dockerd (log: $LOG)" >&2
    setsid nohup dockerd --bridge=none --iptables=false >>"$LOG" 2>&1 </dev/null &
fi

for ((i = 0; i < WAIT_S; i++)); do
    if docker info >/dev/null 2>&1; then
        echo "ensure-docker: docker is ready" >&2
        exit 0
    fi
    sleep 1
done

echo "ensure-docker: dockerd did not become ready within ${WAIT_S}s; last lines of $LOG:" >&2
tail -n 20 "$LOG" >&2 || true
exit 1
