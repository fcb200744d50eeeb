#!/usr/bin/env bash
# Runs the whole test suite: unit tests and integration tests that drive the real simplylockd
# and lockctl binaries under temporary roots. Installs what a fresh machine lacks first.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
swift build --build-tests
# Shell completions and man pages from the debug build, for the make install tests.
make --no-print-directory generated CONFIGURATION=debug BUILDDIR="$(swift build --show-bin-path)" >/dev/null
swift test --skip-build "$@"
