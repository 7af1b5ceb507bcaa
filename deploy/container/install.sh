#!/bin/sh
# The container's final stage: the user `dataschema` and its state
# directory under ROOT (default /), then a smoke test of the binary.
#
#   /usr/local/lib/dataschema/install.sh ROOT
#
# The user is made only when ROOT is / and this runs as root (in the
# image); CI runs it with a ROOT of its own and checks the rest.
set -eu
root="${1:-/}"
state="$root/var/lib/dataschema"
mkdir -p "$state" "$root/run/secrets"
if [ "$root" = / ] && [ "$(id -u)" = 0 ]; then
  if ! id dataschema >/dev/null 2>&1; then
    useradd --system --no-create-home --home-dir /var/lib/dataschema \
      --shell /usr/sbin/nologin dataschema
  fi
  chown dataschema: "$state"
  chmod 0750 "$state"
fi
"$root/usr/local/bin/dataschema" --version
