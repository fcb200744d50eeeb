#!/usr/bin/env bash
# Runs schemathesis (every check, a fixed seed, a bounded number of examples) against a running
# simplylockd's Unix socket through a socat TCP proxy on loopback.
#
# Usage: schemathesis.sh SOCKET SPEC VENV [MAX_EXAMPLES]
set -euo pipefail
socket=$1 spec=$2 venv=$3 examples=${4:-25}
here=$(cd "$(dirname "$0")" && pwd)
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
socat "TCP-LISTEN:$port,bind=127.0.0.1,fork,reuseaddr" "UNIX-CONNECT:$socket" &
proxy=$!
trap 'kill $proxy 2>/dev/null || true' EXIT
for _ in $(seq 50); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
    sleep 0.1
done
"$venv/bin/schemathesis" --config-file "$here/schemathesis.toml" run "$spec" --url "http://127.0.0.1:$port" \
    --checks all --seed 20261122 --max-examples "$examples" --no-color --request-timeout 10 --workers 1
