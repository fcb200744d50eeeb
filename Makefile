# SimplyLock for Linux: build and install.
#
#   make                          release build, shell completions and man page (as your user)
#   sudo make install             install under PREFIX (default /usr/local), then create the
#                                 simplylock group and config directories, reload systemd
#   make install DESTDIR=/tmp/stage PREFIX=/usr
#                                 staged install for packaging (no post-install actions)
#   sudo make uninstall           remove exactly the files install put there (and lockctl browser
#                                 install wrote); refused while blocks are saved (FORCE=1 ends them
#                                 and lifts the hosts section and firewall first)
#   make check-units              systemd-analyze verify + security on the units
#
# `make install` never builds: run `make` first as a normal user, so that root does not
# compile or leave root-owned files in .build.
#
# Layout decisions (all variables can be overridden on the command line):
# - simplylockd goes to sbin: a system daemon started by systemd, not a user command.
# - Units, sysusers.d and tmpfiles.d go to $(PREFIX)/lib/...: systemd searches
#   /usr/local/lib/systemd/system, /usr/local/lib/sysusers.d and /usr/local/lib/tmpfiles.d as
#   well as the /usr/lib ones, so the default and PREFIX=/usr both work without a path outside
#   PREFIX. For any other PREFIX set UNITDIR etc. explicitly.
# - Configuration goes to /etc (not $(PREFIX)/etc): the daemon's default path is
#   /etc/simplylock/simplylockd.toml. An existing file is never overwritten.

SHELL := /bin/sh
.SUFFIXES:
.DELETE_ON_ERROR:

PREFIX      ?= /usr/local
BINDIR      ?= $(PREFIX)/bin
SBINDIR     ?= $(PREFIX)/sbin
DATADIR     ?= $(PREFIX)/share
PKGDATADIR  ?= $(DATADIR)/simplylock
LIBEXECDIR  ?= $(PREFIX)/libexec
MANDIR      ?= $(DATADIR)/man
SYSCONFDIR  ?= /etc
UNITDIR     ?= $(PREFIX)/lib/systemd/system
USERUNITDIR ?= $(PREFIX)/lib/systemd/user
APPLICATIONSDIR ?= $(DATADIR)/applications
SYSUSERSDIR ?= $(PREFIX)/lib/sysusers.d
TMPFILESDIR ?= $(PREFIX)/lib/tmpfiles.d
BASHCOMPDIR ?= $(DATADIR)/bash-completion/completions
ZSHCOMPDIR  ?= $(DATADIR)/zsh/site-functions
FISHCOMPDIR ?= $(DATADIR)/fish/vendor_completions.d
DESTDIR     ?=

SWIFT         ?= swift
CONFIGURATION ?= release
SCRATCH       ?= .build
# Installed binaries must not depend on the toolchain's runtime libraries (the RUNPATH of a
# default build points into the toolchain directory), hence a static Swift standard library.
# Every function in a section of its own (SwiftPM's Swift objects otherwise hold one .text per
# source file), so that the release link can place the functions of link-order/*.order side by
# side and drop the ones nothing calls.
SECTION_FLAGS ?= -Xswiftc -Xfrontend -Xswiftc -function-sections -Xcc -ffunction-sections -Xcxx -ffunction-sections
SWIFT_BUILD_FLAGS ?= --static-swift-stdlib $(SECTION_FLAGS)
BUILDDIR      ?= $(SCRATCH)/$(CONFIGURATION)
GENDIR        ?= $(SCRATCH)/simplylock-generated

# SwiftPM product names; the installed names are always simplylockd and lockctl.
DAEMON_PRODUCT ?= simplylockd
CLI_PRODUCT    ?= lockctl
# The web UI's server, run by `lockctl ui` (looked for next to lockctl first).
UI_PRODUCT     ?= simplylock-ui

INSTALL ?= install
# Installed binaries are stripped (a debug build's symbols are most of their size); STRIP_FLAG=
# keeps them.
STRIP_FLAG ?= -s
# Man page date: SOURCE_DATE_EPOCH for reproducible builds, else today (UTC).
MANUAL_DATE    ?= $(shell date -u -d "@$${SOURCE_DATE_EPOCH:-$$(date +%s)}" +%Y-%m-%d)
# The same date as mdoc writes it (.Dd Month day, year), for the hand-written pages.
MANUAL_MDOC_DATE = $(shell LC_ALL=C date -u -d "$(MANUAL_DATE)" "+%B %-d, %Y")
MANUAL_AUTHORS ?= SimplyLock developers
# Post-install actions (sysusers, tmpfiles, daemon-reload) run only for DESTDIR-less installs.
POSTINSTALL ?= $(if $(DESTDIR),no,yes)

SWIFTPM_FLAGS = --scratch-path $(SCRATCH)

DATA_PROFILES = $(sort $(wildcard config/profiles/*.toml))
# Shipped data: the service catalog and any other data files next to it (the default
# configuration is installed there too, as a reference copy).
DATA_FILES    = $(sort $(wildcard config/*.toml config/*.txt))
BINARIES  = $(BUILDDIR)/$(DAEMON_PRODUCT) $(BUILDDIR)/$(CLI_PRODUCT) $(BUILDDIR)/$(UI_PRODUCT) $(BUILDDIR)/simplylock-bridge
# The web UI's static files (HTML, CSS, ES modules, SVG), installed to PKGDATADIR/ui.
UI_FILES    = $(sort $(wildcard web/ui/*.html web/ui/*.css web/ui/*.svg))
UI_MODULES  = $(sort $(wildcard web/ui/js/*.js))
# The browser companion (browser/extension, plain ES modules, no toolchain): copied without its
# tests next to the binaries (where `lockctl browser extension-path` finds it) and packed for
# Firefox's policy install.
EXTENSION_FILES = $(sort $(wildcard browser/extension/*.json browser/extension/*.js browser/extension/*.html \
                  browser/extension/*.css browser/extension/lib/*.js))
EXTENSION_DIR   = $(BUILDDIR)/simplylock-companion
EXTENSION_PACK  = $(BUILDDIR)/simplylock-companion.xpi
# The BPF LSM exec guard (bpf/exec-guard.bpf.c), compiled for the kernel's BPF machine; the
# daemon loads it from next to itself (a development build) or from PKGDATADIR (installed).
BPF_CC     ?= clang
BPF_OBJECT  = $(BUILDDIR)/exec-guard.bpf.o
GENERATED = $(BPF_OBJECT) $(GENDIR)/completions/lockctl.bash $(GENDIR)/completions/_lockctl \
            $(GENDIR)/completions/lockctl.fish $(GENDIR)/man/man1/lockctl.1 $(GENDIR)/man/man8/simplylockd.8 \
            $(GENDIR)/man/man5/simplylockd.toml.5 $(EXTENSION_PACK)

.PHONY: all build generated completions man install check-built install-bin install-units \
        install-config install-data install-completions install-man postinstall uninstall uninstall-blocks uninstall-browser \
        check-units clean

all: build
	@$(MAKE) --no-print-directory generated

# SwiftPM does not see the link order files (Package.swift's linkOrder) as inputs: a binary
# older than its list is removed, so that it is linked again.
build:
	@for product in $(DAEMON_PRODUCT) $(CLI_PRODUCT); do \
		if [ link-order/$$product.order -nt $(BUILDDIR)/$$product ]; then rm -f $(BUILDDIR)/$$product; fi; \
	done
	$(SWIFT) build $(SWIFTPM_FLAGS) -c $(CONFIGURATION) $(SWIFT_BUILD_FLAGS)

generated: completions man $(BPF_OBJECT) $(EXTENSION_PACK)

$(EXTENSION_PACK): $(EXTENSION_FILES)
	@rm -rf $(EXTENSION_DIR) && mkdir -p $(EXTENSION_DIR)/lib
	cd browser/extension && cp $(patsubst browser/extension/%,%,$(EXTENSION_FILES)) --parents $(abspath $(EXTENSION_DIR))/
	rm -f $@ && cd $(EXTENSION_DIR) && zip -q -X -r $(abspath $@) .

# linux/bpf.h includes asm/types.h, which Debian keeps in the multiarch include directory.
$(BPF_OBJECT): bpf/exec-guard.bpf.c
	@mkdir -p $(@D)
	$(BPF_CC) -O2 -g -target bpf -I/usr/include/$$(gcc -print-multiarch) -c $< -o $@
completions: $(GENDIR)/completions/lockctl.bash $(GENDIR)/completions/_lockctl $(GENDIR)/completions/lockctl.fish
man: $(GENDIR)/man/man1/lockctl.1 $(GENDIR)/man/man8/simplylockd.8 $(GENDIR)/man/man5/simplylockd.toml.5

$(BINARIES):
	@echo "$@ is missing: run 'make' first" >&2; exit 1

$(GENDIR)/completions/lockctl.bash: $(BUILDDIR)/$(CLI_PRODUCT)
	@mkdir -p $(@D)
	$< --generate-completion-script bash > $@
$(GENDIR)/completions/_lockctl: $(BUILDDIR)/$(CLI_PRODUCT)
	@mkdir -p $(@D)
	$< --generate-completion-script zsh > $@
$(GENDIR)/completions/lockctl.fish: $(BUILDDIR)/$(CLI_PRODUCT)
	@mkdir -p $(@D)
	$< --generate-completion-script fish > $@

# The man pages come from swift-argument-parser's generate-manual tool, run on each binary, then
# finish-manual (Sources/finish-manual) adds the hand-written sections of docs/man/*.sections
# (FILES, ENVIRONMENT, SIGNALS, the exit status table, …), lists the global options once and
# drops the help subcommand generate-manual invents for simplylockd.
# It is built in the debug configuration because it is a build tool: giving it the release
# configuration without SWIFT_BUILD_FLAGS would make SwiftPM rebuild every release module.
# The `generate-manual` plugin is not used: in 1.8.2 it has no product filter (it runs every
# executable product that depends on ArgumentParser with --experimental-dump-help, simplylockd
# included) and rebuilds all products in release with its own flags, replacing the statically
# linked binaries with dynamically linked ones after a full recompile.
GENERATE_MANUAL = $(SCRATCH)/debug/generate-manual
FINISH_MANUAL   = $(SCRATCH)/debug/finish-manual

$(GENERATE_MANUAL):
	$(SWIFT) build $(SWIFTPM_FLAGS) -c debug --product generate-manual

$(FINISH_MANUAL): Sources/finish-manual/main.swift
	$(SWIFT) build $(SWIFTPM_FLAGS) -c debug --product finish-manual

$(GENDIR)/man/man1/lockctl.1: $(BUILDDIR)/$(CLI_PRODUCT) docs/man/lockctl.1.sections $(FINISH_MANUAL) | $(GENERATE_MANUAL)
	@mkdir -p $(@D) $(GENDIR)/man/raw
	$(GENERATE_MANUAL) $(BUILDDIR)/$(CLI_PRODUCT) --section 1 --date $(MANUAL_DATE) \
	    --authors "$(MANUAL_AUTHORS)" --output-directory $(GENDIR)/man/raw
	$(FINISH_MANUAL) $(GENDIR)/man/raw/lockctl.1 docs/man/lockctl.1.sections $@

$(GENDIR)/man/man8/simplylockd.8: $(BUILDDIR)/$(DAEMON_PRODUCT) docs/man/simplylockd.8.sections $(FINISH_MANUAL) | $(GENERATE_MANUAL)
	@mkdir -p $(@D) $(GENDIR)/man/raw
	$(GENERATE_MANUAL) $(BUILDDIR)/$(DAEMON_PRODUCT) --section 8 --date $(MANUAL_DATE) \
	    --authors "$(MANUAL_AUTHORS)" --output-directory $(GENDIR)/man/raw
	$(FINISH_MANUAL) $(GENDIR)/man/raw/simplylockd.8 docs/man/simplylockd.8.sections $@

# Written by hand (no command describes the file); only the date is filled in.
$(GENDIR)/man/man5/simplylockd.toml.5: docs/man/simplylockd.toml.5
	@mkdir -p $(@D)
	sed 's/@MANUAL_DATE@/$(MANUAL_MDOC_DATE)/' docs/man/simplylockd.toml.5 > $@

install: check-built install-bin install-units install-config install-data install-completions install-man
	@if [ "$(POSTINSTALL)" = yes ]; then $(MAKE) --no-print-directory postinstall; fi

check-built:
	@for f in $(BINARIES) $(GENERATED); do \
	    [ -e "$$f" ] || { echo "$$f is missing: run 'make' (as your user) before 'make install'" >&2; exit 1; }; \
	done

install-bin:
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(SBINDIR)
	$(INSTALL) -m 0755 $(STRIP_FLAG) $(BUILDDIR)/$(DAEMON_PRODUCT) $(DESTDIR)$(SBINDIR)/simplylockd
	$(INSTALL) -m 0755 $(STRIP_FLAG) $(BUILDDIR)/$(CLI_PRODUCT) $(DESTDIR)$(BINDIR)/lockctl
	$(INSTALL) -m 0755 $(STRIP_FLAG) $(BUILDDIR)/$(UI_PRODUCT) $(DESTDIR)$(BINDIR)/simplylock-ui
	$(INSTALL) -d $(DESTDIR)$(LIBEXECDIR)/simplylock
	$(INSTALL) -m 0755 $(STRIP_FLAG) $(BUILDDIR)/simplylock-bridge $(DESTDIR)$(LIBEXECDIR)/simplylock/simplylock-bridge

install-units:
	$(INSTALL) -d $(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSUSERSDIR) $(DESTDIR)$(TMPFILESDIR)
	sed -e 's|@sbindir@|$(SBINDIR)|g' systemd/simplylockd.service.in > $(DESTDIR)$(UNITDIR)/simplylockd.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/simplylockd.service
	$(INSTALL) -m 0644 systemd/simplylockd.socket $(DESTDIR)$(UNITDIR)/simplylockd.socket
	$(INSTALL) -m 0644 systemd/simplylock.sysusers $(DESTDIR)$(SYSUSERSDIR)/simplylock.conf
	$(INSTALL) -m 0644 systemd/simplylock.tmpfiles $(DESTDIR)$(TMPFILESDIR)/simplylock.conf
	$(INSTALL) -d $(DESTDIR)$(USERUNITDIR)
	sed -e 's|@bindir@|$(BINDIR)|g' systemd/simplylock-notify.service.in > $(DESTDIR)$(USERUNITDIR)/simplylock-notify.service
	chmod 0644 $(DESTDIR)$(USERUNITDIR)/simplylock-notify.service
	# The desktop entry notifications name (desktop-entry=simplylock): the name, icon and
	# per-app notification settings desktops show for them; it opens the app (lockctl ui).
	$(INSTALL) -d $(DESTDIR)$(APPLICATIONSDIR)
	sed -e 's|@bindir@|$(BINDIR)|g' desktop/simplylock.desktop.in > $(DESTDIR)$(APPLICATIONSDIR)/simplylock.desktop
	chmod 0644 $(DESTDIR)$(APPLICATIONSDIR)/simplylock.desktop

# The default configuration is also kept in PKGDATADIR (for reference, and so that uninstall
# can tell an untouched copy from an edited one).
install-config:
	$(INSTALL) -d $(DESTDIR)$(SYSCONFDIR)/simplylock
	@if [ -e $(DESTDIR)$(SYSCONFDIR)/simplylock/simplylockd.toml ]; then \
	    echo "keeping existing $(DESTDIR)$(SYSCONFDIR)/simplylock/simplylockd.toml"; \
	else \
	    echo "$(INSTALL) -m 0644 config/simplylockd.toml $(DESTDIR)$(SYSCONFDIR)/simplylock/simplylockd.toml"; \
	    $(INSTALL) -m 0644 config/simplylockd.toml $(DESTDIR)$(SYSCONFDIR)/simplylock/simplylockd.toml; \
	fi

install-data:
	$(INSTALL) -d $(DESTDIR)$(PKGDATADIR)/profiles
	$(INSTALL) -m 0644 $(DATA_FILES) $(BPF_OBJECT) $(DESTDIR)$(PKGDATADIR)/
	$(if $(DATA_PROFILES),$(INSTALL) -m 0644 $(DATA_PROFILES) $(DESTDIR)$(PKGDATADIR)/profiles/)
	$(INSTALL) -d $(DESTDIR)$(PKGDATADIR)/ui/js
	$(INSTALL) -m 0644 $(UI_FILES) $(DESTDIR)$(PKGDATADIR)/ui/
	$(INSTALL) -m 0644 $(UI_MODULES) $(DESTDIR)$(PKGDATADIR)/ui/js/
	$(INSTALL) -d $(DESTDIR)$(PKGDATADIR)/browser/extension/lib
	cd $(EXTENSION_DIR) && for f in $(patsubst browser/extension/%,%,$(EXTENSION_FILES)); do \
	    $(INSTALL) -m 0644 $$f $(DESTDIR)$(PKGDATADIR)/browser/extension/$$f; done
	$(INSTALL) -m 0644 $(EXTENSION_PACK) $(DESTDIR)$(PKGDATADIR)/browser/simplylock-companion.xpi

install-completions:
	$(INSTALL) -d $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(FISHCOMPDIR)
	$(INSTALL) -m 0644 $(GENDIR)/completions/lockctl.bash $(DESTDIR)$(BASHCOMPDIR)/lockctl
	$(INSTALL) -m 0644 $(GENDIR)/completions/_lockctl $(DESTDIR)$(ZSHCOMPDIR)/_lockctl
	$(INSTALL) -m 0644 $(GENDIR)/completions/lockctl.fish $(DESTDIR)$(FISHCOMPDIR)/lockctl.fish

install-man:
	$(INSTALL) -d $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man8
	$(INSTALL) -m 0644 $(GENDIR)/man/man1/lockctl.1 $(DESTDIR)$(MANDIR)/man1/lockctl.1
	$(INSTALL) -m 0644 $(GENDIR)/man/man8/simplylockd.8 $(DESTDIR)$(MANDIR)/man8/simplylockd.8
	$(INSTALL) -m 0644 $(GENDIR)/man/man5/simplylockd.toml.5 $(DESTDIR)$(MANDIR)/man5/simplylockd.toml.5

# What a package's postinst would do. Each step is skipped where its tool or a running
# systemd is missing (containers, chroots).
postinstall:
	-command -v systemd-sysusers >/dev/null && systemd-sysusers $(SYSUSERSDIR)/simplylock.conf
	-command -v systemd-tmpfiles >/dev/null && systemd-tmpfiles --create $(TMPFILESDIR)/simplylock.conf
	-[ -d /run/systemd/system ] && systemctl daemon-reload
	@echo "enable with: systemctl enable --now simplylockd.socket simplylockd.service"
	@echo "desktop notifications, for each user: systemctl --user enable --now simplylock-notify.service"
	@echo "browser companion (shield, path rules, site meter): lockctl browser install"

# Removes the files install put there and the directories that are only ours, if empty.
# The configuration file is removed only while it is identical to the shipped default;
# the simplylock group and anything under /var/lib/simplylock (state) are left alone,
# as a package removal (not purge) would.
#
# Blocks must not outlive the program: while any is saved (or the hosts file still has our
# section) uninstall refuses, so nothing is left in /etc/hosts that no daemon will lift.
# FORCE=1 stops the daemon, ends the saved blocks (strict ones too) and removes the hosts
# section and the nftables table with `simplylockd --release` first. ROOT is where the state
# and hosts file live: /, as the installed daemon sees them, or DESTDIR for a staged install.
ROOT ?= $(if $(DESTDIR),$(DESTDIR),/)
FORCE ?=
RELEASE_FLAGS ?=
uninstall: uninstall-blocks uninstall-browser
	rm -f $(DESTDIR)$(SBINDIR)/simplylockd $(DESTDIR)$(BINDIR)/lockctl $(DESTDIR)$(BINDIR)/simplylock-ui $(DESTDIR)$(LIBEXECDIR)/simplylock/simplylock-bridge
	-rmdir $(DESTDIR)$(LIBEXECDIR)/simplylock 2>/dev/null
	rm -f $(addprefix $(DESTDIR)$(PKGDATADIR)/browser/extension/,$(patsubst browser/extension/%,%,$(EXTENSION_FILES)))
	rm -f $(DESTDIR)$(PKGDATADIR)/browser/simplylock-companion.xpi
	-rmdir $(DESTDIR)$(PKGDATADIR)/browser/extension/lib $(DESTDIR)$(PKGDATADIR)/browser/extension $(DESTDIR)$(PKGDATADIR)/browser 2>/dev/null
	rm -f $(DESTDIR)$(UNITDIR)/simplylockd.service $(DESTDIR)$(UNITDIR)/simplylockd.socket
	rm -f $(DESTDIR)$(USERUNITDIR)/simplylock-notify.service
	-rmdir $(DESTDIR)$(USERUNITDIR) 2>/dev/null
	rm -f $(DESTDIR)$(APPLICATIONSDIR)/simplylock.desktop
	-rmdir $(DESTDIR)$(APPLICATIONSDIR) 2>/dev/null
	rm -f $(DESTDIR)$(SYSUSERSDIR)/simplylock.conf $(DESTDIR)$(TMPFILESDIR)/simplylock.conf
	@if [ -e $(DESTDIR)$(SYSCONFDIR)/simplylock/simplylockd.toml ]; then \
	    if cmp -s $(DESTDIR)$(SYSCONFDIR)/simplylock/simplylockd.toml $(DESTDIR)$(PKGDATADIR)/simplylockd.toml; then \
	        echo "rm -f $(DESTDIR)$(SYSCONFDIR)/simplylock/simplylockd.toml"; \
	        rm -f $(DESTDIR)$(SYSCONFDIR)/simplylock/simplylockd.toml; \
	    else \
	        echo "keeping modified $(DESTDIR)$(SYSCONFDIR)/simplylock/simplylockd.toml"; \
	    fi; \
	fi
	-rmdir $(DESTDIR)$(SYSCONFDIR)/simplylock 2>/dev/null
	rm -f $(addprefix $(DESTDIR)$(PKGDATADIR)/,$(notdir $(DATA_FILES) $(BPF_OBJECT)))
	rm -f $(addprefix $(DESTDIR)$(PKGDATADIR)/profiles/,$(notdir $(DATA_PROFILES)))
	rm -f $(addprefix $(DESTDIR)$(PKGDATADIR)/ui/,$(notdir $(UI_FILES))) $(addprefix $(DESTDIR)$(PKGDATADIR)/ui/js/,$(notdir $(UI_MODULES)))
	-rmdir $(DESTDIR)$(PKGDATADIR)/ui/js $(DESTDIR)$(PKGDATADIR)/ui 2>/dev/null
	-rmdir $(DESTDIR)$(PKGDATADIR)/profiles $(DESTDIR)$(PKGDATADIR) 2>/dev/null
	rm -f $(DESTDIR)$(BASHCOMPDIR)/lockctl $(DESTDIR)$(ZSHCOMPDIR)/_lockctl $(DESTDIR)$(FISHCOMPDIR)/lockctl.fish
	rm -f $(DESTDIR)$(MANDIR)/man1/lockctl.1 $(DESTDIR)$(MANDIR)/man8/simplylockd.8 \
	    $(DESTDIR)$(MANDIR)/man5/simplylockd.toml.5
	@if [ "$(POSTINSTALL)" = yes ] && [ -d /run/systemd/system ]; then systemctl daemon-reload; fi

# What `lockctl browser install` wrote (native host manifests, managed policies, the packed
# extension; the admin's own Firefox policies kept), while lockctl is still there. The signing
# key stays in the state directory. Machine-wide only as root or under a staged ROOT.
uninstall-browser:
	@lockctl=$(DESTDIR)$(BINDIR)/lockctl; \
	if [ -x "$$lockctl" ] && { [ "$$(id -u)" = 0 ] || [ "$(ROOT)" != / ]; }; then \
	    echo "$$lockctl --root $(ROOT) browser uninstall"; \
	    "$$lockctl" --root $(ROOT) browser uninstall; \
	fi

uninstall-blocks:
	@daemon=$(DESTDIR)$(SBINDIR)/simplylockd; hosts=$(ROOT)/etc/hosts; \
	saved=""; \
	if [ -r "$$hosts" ] && grep -q '^# BEGIN simplylock' "$$hosts"; then saved="$$hosts has a simplylock section"; fi; \
	if [ -x $(DESTDIR)$(BINDIR)/lockctl ] && $(DESTDIR)$(BINDIR)/lockctl --root $(ROOT) status --json 2>/dev/null | grep -q '"profile"'; then \
	    saved="blocks are active"; fi; \
	if [ -z "$$saved" ]; then exit 0; fi; \
	if [ -z "$(FORCE)" ]; then \
	    echo "uninstall refused: $$saved; they would stay in force with nothing to lift them." >&2; \
	    echo "Let them end (lockctl status), or run 'make uninstall FORCE=1' to end them and lift the hosts section and firewall first." >&2; \
	    exit 1; \
	fi; \
	if [ "$(POSTINSTALL)" = yes ] && [ -d /run/systemd/system ]; then \
	    systemctl stop simplylockd.socket simplylockd.service 2>/dev/null || true; fi; \
	if [ ! -x "$$daemon" ]; then echo "uninstall: $$daemon is missing, cannot release the blocks" >&2; exit 1; fi; \
	echo "$$daemon --root $(ROOT) --release $(RELEASE_FLAGS)"; \
	"$$daemon" --root $(ROOT) --release $(RELEASE_FLAGS)

# Verifies the units as they will be installed, with ExecStart= pointing at the built daemon,
# and fails if the security exposure is above 4.9 (the upper end of systemd's "OK" band).
check-units: $(BUILDDIR)/$(DAEMON_PRODUCT) $(GENDIR)/man/man1/lockctl.1
	@rm -rf $(GENDIR)/check-units && mkdir -p $(GENDIR)/check-units/sbin
	@ln -s $(abspath $(BUILDDIR)/$(DAEMON_PRODUCT)) $(GENDIR)/check-units/sbin/simplylockd
	sed -e 's|@sbindir@|$(abspath $(GENDIR))/check-units/sbin|g' systemd/simplylockd.service.in \
	    > $(GENDIR)/check-units/simplylockd.service
	cp systemd/simplylockd.socket $(GENDIR)/check-units/
	cd $(GENDIR)/check-units && MANPATH=$(abspath $(GENDIR))/man: \
	    systemd-analyze verify simplylockd.service simplylockd.socket
	@cd $(GENDIR)/check-units && \
	    report=$$(systemd-analyze security --offline=true --threshold=49 simplylockd.service 2>&1); \
	    status=$$?; echo "$$report" | tail -n 1; \
	    [ $$status -eq 0 ] || { echo "$$report" >&2; exit 1; }

clean:
	rm -rf $(GENDIR)
