#!/bin/sh
# harness/cross/sysroot.sh DEBARCH DIR RUNTIME... -- DEV...
#
# Unpacks Debian's DEBARCH packages into DIR, a sysroot for the cross builds and for qemu-user's
# -L, without installing them. Some arm64 libraries the adapters need (libxnnpack0,
# libpthreadpool0, libtorch1.13 and a few of its dependencies) are not Multi-Arch: same, so
# `apt-get install PKG:arm64` would remove the amd64 packages the native build uses; libdnnl-dev
# is Multi-Arch: same but ships a different dnnl_config.h per architecture, so dpkg refuses to
# unpack the second one.
#
# RUNTIME... are resolved by apt's own resolver against an empty package status (everything they
# need, as on a fresh DEBARCH system, one choice per alternative); DEV... are unpacked without
# their dependencies (headers and lib*.so links). Packages are fetched with `apt-get download`
# and unpacked with `dpkg-deb -x`; no maintainer script runs. DIR/PACKAGES lists what is there
# ("name version" a line); DIR/REQUEST the arguments, and a rerun with the same ones does nothing.
set -eu
arch=$1 dir=$2
shift 2
request="$arch $*"
if [ -f "$dir/REQUEST" ] && [ "$(cat "$dir/REQUEST")" = "$request" ]; then
	echo "$dir: up to date ($(wc -l < "$dir/PACKAGES") $arch packages)"
	exit 0
fi
runtime= dev= seen=
for p in "$@"; do
	if [ "$p" = -- ]; then seen=1; elif [ -z "$seen" ]; then runtime="$runtime $p:$arch"; else dev="$dev $p:$arch"; fi
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
: > "$work/status"
# shellcheck disable=SC2086
apt-get -s -o Dir::State::status="$work/status" -o APT::Install-Recommends=0 install $runtime \
	> "$work/sim" || { cat "$work/sim" >&2; exit 2; }
pkgs=$(sed -n "s/^Inst \([^ ]*\) (.*\[$arch\]).*/\1/p" "$work/sim")
# apt's _apt user downloads into a directory it may write
mkdir -p "$work/debs"
chmod 755 "$work"
chmod 777 "$work/debs"
# shellcheck disable=SC2086
(cd "$work/debs" && apt-get download -q $pkgs $dev >/dev/null)
rm -rf "$dir.new"
mkdir -p "$dir.new"
for d in "$work"/debs/*.deb; do
	dpkg-deb -x "$d" "$dir.new"
	dpkg-deb -W --showformat='${Package} ${Version}\n' "$d" >> "$dir.new/PACKAGES"
	# the links a maintainer script would make with update-alternatives (libblas.so.3,
	# liblapack.so.3: libtorch needs them), the first package's choice kept
	dpkg-deb --ctrl-tarfile "$d" | tar -xOf - ./postinst 2>/dev/null |
		sed -e ':a' -e '/\\$/N; s/\\\n//; ta' |
		sed -n 's/.*update-alternatives[[:space:]]*--install[[:space:]]*\([^[:space:]]*\)[[:space:]]*[^[:space:]]*[[:space:]]*\([^[:space:]]*\).*/\1 \2/p' |
		while read -r link target; do
			case $link$target in *'$'*) continue ;; esac
			[ -e "$dir.new$link" ] || [ ! -e "$dir.new$target" ] ||
				ln -s "$(realpath -m --relative-to="$(dirname "$link")" "$target")" "$dir.new$link"
		done
done
echo "$request" > "$dir.new/REQUEST"
rm -rf "$dir"
mv "$dir.new" "$dir"
echo "$dir: $(wc -l < "$dir/PACKAGES") $arch packages, $(du -sm "$dir" | cut -f1) MiB"
