#!/usr/bin/env bash
# Restart the Docker daemon that scripts/ensure-docker.sh started (no systemd on these
# machines): stop it, wait until it has exited, start it again and wait until it answers.
# Every container on the machine stops with it; tests/faults/test_docker_daemon.py uses this.
set -euo pipefail
cd "$(dirname "$0")/.."
pid=""
[[ -f /var/run/docker.pid ]] && pid="$(cat /var/run/docker.pid 2>/dev/null || true)"
if [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid"
    for ((i = 0; i < 60; i++)); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.5
    done
    if kill -0 "$pid" 2>/dev/null; then
        echo "restart-docker: dockerd (pid $pid) did not stop in 30 s" >&2
        exit 1
    fi
fi
exec bash scripts/ensure-docker.sh
