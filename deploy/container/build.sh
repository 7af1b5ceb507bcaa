#!/bin/sh
# The container's build stage: builds `dataschema` (feature `cli`) and lays
# out what the image holds under OUT (default /out): the binary, its man
# pages and shell completions, and install.sh.
#
#   deploy/container/build.sh OUT
#
# DATASCHEMA_PROFILE=dev builds without optimizations (CI: faster);
# DATASCHEMA_BIN=PATH takes a binary built already instead of building.
set -eu
out="${1:-/out}"
cd "$(dirname "$0")/../.."
if [ -n "${DATASCHEMA_BIN:-}" ]; then
  bin="$DATASCHEMA_BIN"
else
  profile="${DATASCHEMA_PROFILE:-release}"
  cargo build --locked --profile "$profile" --features cli --bin dataschema
  case "$profile" in dev) dir=debug ;; *) dir="$profile" ;; esac
  bin="${CARGO_TARGET_DIR:-target}/$dir/dataschema"
fi
install -D -m 0755 "$bin" "$out/usr/local/bin/dataschema"
"$out/usr/local/bin/dataschema" man --out-dir "$out/usr/local/share/man/man1"
install -d "$out/usr/share/bash-completion/completions" \
  "$out/usr/share/zsh/vendor-completions" "$out/usr/share/fish/vendor_completions.d"
"$out/usr/local/bin/dataschema" completions bash > "$out/usr/share/bash-completion/completions/dataschema"
"$out/usr/local/bin/dataschema" completions zsh > "$out/usr/share/zsh/vendor-completions/_dataschema"
"$out/usr/local/bin/dataschema" completions fish > "$out/usr/share/fish/vendor_completions.d/dataschema.fish"
install -D -m 0755 deploy/container/install.sh "$out/usr/local/lib/dataschema/install.sh"
echo "built $("$out/usr/local/bin/dataschema" --version) into $out"
