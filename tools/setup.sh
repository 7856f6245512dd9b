#!/usr/bin/env bash
# Host set-up for building and testing LAVD: apt sources and pins, packages.
# Idempotent and quiet when everything is already there. Needs root (apt).
#
#   tools/setup.sh            host toolchain + VM tools
#
# Suites: bookworm (host tools), bookworm-backports (clang-19, libbpf 1.4,
# bpftool 7.5, QEMU 10), trixie-backports and sid (kernel images only,
# downloaded with `apt-get download`, never installed: pinned to -1).
set -euo pipefail

STAMP_DIR=${LAVD_CACHE:-$HOME/.cache/lavd}
mkdir -p "$STAMP_DIR"

need_root() {
	if [ "$(id -u)" != 0 ]; then
		echo "setup: root is needed to install packages (run as root or with sudo)" >&2
		exit 2
	fi
}

PKGS_HOST="make gcc pkg-config libelf-dev zlib1g-dev libzstd-dev zstd libjansson-dev gnuplot-nox python3"
PKGS_BPO="clang-19 llvm-19 libclang-rt-19-dev libbpf-dev bpftool"
PKGS_VM="busybox-static cpio stress-ng rt-tests linux-perf rt-app"

missing=""
for p in $PKGS_HOST $PKGS_BPO $PKGS_VM; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
# libbpf must be the backported 1.4 (bookworm's 1.1 lacks what the skeleton uses).
if ! dpkg --compare-versions "$(dpkg-query -W -f='${Version}' libbpf-dev 2>/dev/null || echo 0)" ge 1:1.4; then
	missing="$missing libbpf-dev"
fi

srcs=/etc/apt/sources.list.d/lavd.sources
pins=/etc/apt/preferences.d/lavd
want_srcs='Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://deb.debian.org/debian
Suites: trixie-backports trixie sid
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg'
# Host tools come from bookworm; backports only for what we name; trixie/sid
# are reachable for `apt-get download` of kernels but never installed from.
want_pins='Package: *
Pin: release n=bookworm-backports
Pin-Priority: 100

Package: *
Pin: release n=trixie-backports
Pin-Priority: -1

Package: *
Pin: release n=trixie
Pin-Priority: -1

Package: *
Pin: release n=sid
Pin-Priority: -1'

changed=0
if [ "$(cat "$srcs" 2>/dev/null)" != "$want_srcs" ]; then
	need_root; printf '%s\n' "$want_srcs" >"$srcs"; changed=1
fi
if [ "$(cat "$pins" 2>/dev/null)" != "$want_pins" ]; then
	need_root; printf '%s\n' "$want_pins" >"$pins"; changed=1
fi

# Refresh the lists when sources changed, when packages are missing, or once a day.
upd_stamp="$STAMP_DIR/apt-updated"
if [ $changed = 1 ] || [ -n "$missing" ] || [ -z "$(find "$upd_stamp" -mmin -1440 2>/dev/null)" ]; then
	need_root
	echo "setup: apt-get update" >&2
	# Unrelated third-party sources on the machine may be unreachable: do not
	# fail on them; the install below fails loudly if our packages are missing.
	apt-get update -qq >/dev/null 2>&1 || true
	touch "$upd_stamp"
fi

if [ -n "$missing" ]; then
	need_root
	echo "setup: installing:$missing" >&2
	export DEBIAN_FRONTEND=noninteractive
	bpo=""; plain=""
	for p in $missing; do
		case " $PKGS_BPO " in *" $p "*) bpo="$bpo $p" ;; *) plain="$plain $p" ;; esac
	done
	if [ -n "$plain" ]; then
		apt-get install -y -qq -t bookworm --no-install-recommends $plain >/dev/null
	fi
	if [ -n "$bpo" ]; then
		apt-get install -y -qq -t bookworm-backports --no-install-recommends $bpo >/dev/null
	fi
fi
# QEMU >= 10 for the VM harness: fetch-qemu installs qemu-system-x86 from
# bookworm-backports if needed (and is quiet when it is already there).
"$(dirname "${BASH_SOURCE[0]}")/vm/fetch-qemu" >/dev/null
# Both sched_ext kernels into the cache (the BPF build needs 7.3's BTF).
for k in 7.3 7.2; do
	"$(dirname "${BASH_SOURCE[0]}")/vm/fetch-kernel" "$k" >/dev/null
done
exit 0
