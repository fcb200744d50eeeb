#!/usr/bin/env bash
# Runs the whole test suite: unit tests and integration tests that drive the real simplylockd
# and lockctl binaries under temporary roots. Installs what a fresh machine lacks first.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
swift build --build-tests
swift test --skip-build "$@"
