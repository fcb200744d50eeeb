#!/usr/bin/env bash
# Installs what building and testing SimplyLock needs on a fresh Debian machine: Debian
# packages through apt (when root), and the Python modules the OpenAPI conformance check uses.
# Safe to run repeatedly; it installs only what is missing.
set -euo pipefail

packages=(pkg-config libsystemd-dev systemd nftables libnftables-dev dnsmasq faketime curl util-linux iproute2 hyperfine dnsperf dnsutils)
missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if ((${#missing[@]})); then
    if [[ $(id -u) -eq 0 ]]; then
        echo "setup: installing ${missing[*]}"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    else
        echo "setup: missing Debian packages (install as root: apt-get install ${missing[*]}); tests that need them will be skipped" >&2
    fi
fi

if ! python3 -c 'import yaml, jsonschema, openapi_spec_validator' 2>/dev/null; then
    echo "setup: installing Python modules for the OpenAPI check"
    python3 -m pip install --quiet pyyaml jsonschema openapi-spec-validator ||
        echo "setup: could not install Python modules; the OpenAPI conformance test will be skipped" >&2
fi
