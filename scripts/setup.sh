#!/usr/bin/env bash
# Installs what building and testing SimplyLock needs on a fresh Debian machine: Debian
# packages through apt (when root), and the Python modules the OpenAPI conformance check uses.
# Safe to run repeatedly; it installs only what is missing.
#   scripts/setup.sh          everything the test suite needs
#   scripts/setup.sh --demo   only what building and running the demo needs (no test tools)
set -euo pipefail
cd "$(dirname "$0")/.."
demo=no
[[ ${1:-} == --demo ]] && demo=yes

# libicu-dev: UTS 46 for domain names; publicsuffix: the list of public suffixes the parser refuses;
# nodejs and python3-venv: the references of the domain name oracle test (WHATWG URL, Python idna);
# musl: the hosts file is checked the way musl's resolver reads it; socat: schemathesis reaches the socket;
# gcc, libc6-dev and make: the exec guard tests build a static program and a small C project;
# dnsperf and dnsutils (dig): the DNS filter's benchmark and tests; dpkg-dev is not needed: apt-get download and dpkg-deb
# fetch Debian's uBlock Origin package for the real EasyList/EasyPrivacy data in the tests;
# chromium and fonts-dejavu-core: the insights page is rendered in a real headless browser; unbound: the LAN enforcer's tests.
packages=(pkg-config libsystemd-dev systemd nftables libnftables-dev dnsmasq faketime curl util-linux iproute2 hyperfine
          libicu-dev publicsuffix nodejs python3-venv socat musl musl-tools musl-dev gcc libc6-dev make
          dnsperf dnsutils chromium fonts-dejavu-core unbound)
# dbus, python3-dbus and python3-gi: private buses with stand-ins that record what they receive, for
# systemd-resolved (the resolver cache flush) and for the desktop's notification server.
packages+=(dbus python3-dbus python3-gi)
# clang and libbpf-dev: the BPF LSM exec guard is compiled with clang -target bpf and loaded with
# libbpf; bpftool shows what is attached (bpftool link list) and what the kernel allows (feature probe).
packages+=(clang libbpf-dev bpftool)
# mandoc: every man page is checked with mandoc -Tlint.
packages+=(mandoc)
# desktop-file-utils: desktop-file-validate checks the desktop entry notifications name.
packages+=(desktop-file-utils)
# chromium-driver: the web UI (lockctl ui) and the browser companion are driven in headless Chromium through Selenium.
packages+=(chromium-driver)
# firefox-esr: the browser companion is loaded in Firefox too (no driver is packaged: the test starts it headless).
packages+=(firefox-esr)
# libnftnl-dev: the connection check writes its queue rule (an xtables NFQUEUE target,
# which libnftables cannot write) with libnftnl; iptables: its namespace test asks the kernel whether
# it has nft_compat's NFQUEUE target.
packages+=(libnftnl-dev iptables)
if [[ $demo == yes ]]; then
    # Building (the libraries' headers, pkg-config, the linker's C runtime) and the public
    # suffix list the daemon reads names with.
    packages=(pkg-config libsystemd-dev libnftables-dev libnftnl-dev libicu-dev libc6-dev publicsuffix clang libbpf-dev)
fi
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
        # The tests run their own Unbound in namespaces; the package's service must not take the
        # machine's port 53 or rewrite its resolv.conf.
        if [[ " ${missing[*]} " == *" unbound "* ]] && command -v systemctl >/dev/null && [[ -d /run/systemd/system ]]; then
            systemctl disable --now unbound unbound-resolvconf >/dev/null 2>&1 || true
        fi
    else
        echo "setup: missing Debian packages (install as root: apt-get install ${missing[*]}); tests that need them will be skipped" >&2
    fi
fi

[[ $demo == yes ]] && exit 0

# The PyPI tools of the suite, pinned, in a virtual environment (stock Debian's pip refuses to
# install outside one): the OpenAPI conformance check, schemathesis, and the IDNA reference.
venv=.build/test-venv
# selenium and axe-selenium-python: the web UI's browser tests and their accessibility checks.
requirements=(pyyaml==6.0.2 jsonschema==4.23.0 openapi-spec-validator==0.7.1 schemathesis==4.32.5 idna==3.20
              selenium==4.27.1 axe-selenium-python==2.1.6)
if ! "$venv/bin/python3" -c 'import yaml, jsonschema, openapi_spec_validator, schemathesis, idna, selenium, axe_selenium_python' 2>/dev/null; then
    echo "setup: creating $venv with ${requirements[*]}"
    mkdir -p .build
    python3 -m venv "$venv" && "$venv/bin/pip" install --quiet --disable-pip-version-check "${requirements[@]}" ||
        echo "setup: could not create $venv; the tests that need it are skipped (and fail under CI)" >&2
fi
