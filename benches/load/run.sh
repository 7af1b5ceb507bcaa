#!/usr/bin/env bash
# The server under load, on loopback (issue 9, "Evidence").
#
#   benches/load/run.sh
#
# Builds `dataschema` (release, feature `cli`), starts `dataschema serve`
# over SQLite, publishes one ~1 KB JSON Schema, starts nginx (Debian's
# package) with a configuration of its own serving the same bytes as files,
# and runs wrk with a bounded duration against:
#   nginx /schema.json      the schema's bytes        (the baseline)
#   GET /schemas/{urn}      our native read, cached
#   nginx /ids.json         the bytes of the Confluent answer below
#   GET /schemas/ids/{id}   our Confluent read, cached
# Any non-2xx/3xx response or socket error fails the run. Then publish
# throughput: PUBLISH_N distinct schemas published with PUBLISH_C
# concurrent keep-alive clients, against SQLite and against PostgreSQL
# (a fresh database, dropped afterwards). Everything started here is
# stopped at the end, on failure too.
#
# Settings (environment): WRK_THREADS (2), WRK_CONNECTIONS (32),
# WRK_DURATION (10s), PUBLISH_N (500), PUBLISH_C (8), RUST_LOG (info:
# the server's one line per request), PG (postgres://postgres@127.0.0.1:5432),
# CARGO_TARGET_DIR (target). The machine's load is printed with the figures.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
threads="${WRK_THREADS:-2}"
connections="${WRK_CONNECTIONS:-32}"
duration="${WRK_DURATION:-10s}"
publish_n="${PUBLISH_N:-500}"
publish_c="${PUBLISH_C:-8}"
pg="${PG:-postgres://postgres@127.0.0.1:5432}"
export RUST_LOG="${RUST_LOG:-info}"

# Tools: nginx and wrk from Debian's packages (a no-op when installed).
if ! command -v wrk >/dev/null || { ! command -v nginx >/dev/null && [ ! -x /usr/sbin/nginx ]; }; then
    apt_get=(apt-get)
    [ "$(id -u)" -eq 0 ] || apt_get=(sudo apt-get)
    DEBIAN_FRONTEND=noninteractive "${apt_get[@]}" install -y nginx-light wrk
fi
nginx_bin="$(command -v nginx || echo /usr/sbin/nginx)"

tmp="$(mktemp -d)"
pids=()
pg_db=""
cleanup() {
    local status=$?
    for pid in "${pids[@]}"; do
        kill "$pid" 2>/dev/null || true
    done
    for pid in "${pids[@]}"; do
        wait "$pid" 2>/dev/null || true
    done
    if [ -n "$pg_db" ]; then
        psql "$pg/postgres" -qc "DROP DATABASE IF EXISTS $pg_db" >/dev/null 2>&1 || true
    fi
    rm -rf "$tmp"
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Waits until `$1` answers (any HTTP status), at most 30 s.
wait_http() {
    for _ in $(seq 300); do
        if curl -s -o /dev/null "$1"; then return 0; fi
        sleep 0.1
    done
    echo "no answer from $1" >&2
    return 1
}

echo "== build"
(cd "$repo" && cargo build --release --features cli --bin dataschema)
bin="${CARGO_TARGET_DIR:-$repo/target}/release/dataschema"

token="$(head -c 32 /dev/urandom | base64)"
(umask 077 && printf '%s\n' "$token" >"$tmp/token")

# Starts `dataschema serve --store $1` on a free port; sets $server.
start_server() {
    local port log
    port="$(free_port)"
    log="$tmp/serve-$port.log"
    "$bin" serve --store "$1" --listen "127.0.0.1:$port" --namespace acme \
        --token-file "$tmp/token" >"$log" 2>&1 &
    pids+=($!)
    server="http://127.0.0.1:$port"
    wait_http "$server/schemas" || { cat "$log" >&2; return 1; }
}

# PUTs file $2 under URN $1; fails unless 2xx.
publish() {
    local status
    status="$(curl -s -o "$tmp/answer" -w '%{http_code}' -X PUT \
        -H "Authorization: Bearer $token" --data-binary "@$2" \
        "$server/publish/schemas/$1")"
    case "$status" in
    2??) ;;
    *) echo "publish $1: HTTP $status: $(cat "$tmp/answer")" >&2; return 1 ;;
    esac
}

echo "== server (SQLite) and the schema"
start_server "sqlite:$tmp/x.db"
publish urn:acme:schema:common.address:1 "$repo/schemas/common.address.v1.json"
publish urn:acme:schema:orders.created:1 "$repo/schemas/orders.created.v1.json"
publish urn:acme:schema:orders.created:2 "$repo/schemas/orders.created.v2.json"
urn=urn:acme:schema:orders.created:2
mkdir -p "$tmp/www"
# nginx's workers run as an unprivileged user: they may traverse $tmp and
# read www/, nothing else.
chmod 711 "$tmp"
chmod 755 "$tmp/www"
curl -sf -D "$tmp/headers" -o "$tmp/www/schema.json" "$server/schemas/$urn"
cmp "$tmp/www/schema.json" "$repo/schemas/orders.created.v2.json"
id="$(tr -d '\r' <"$tmp/headers" | awk -F': ' 'tolower($1) == "dataschema-id" { print $2 }')"
[ -n "$id" ] || { echo "no dataschema-id header" >&2; exit 1; }
curl -sf -o "$tmp/www/ids.json" "$server/schemas/ids/$id"
echo "schema $urn: $(wc -c <"$tmp/www/schema.json") bytes, id $id; Confluent answer $(wc -c <"$tmp/www/ids.json") bytes"

echo "== nginx $("$nginx_bin" -v 2>&1 | sed 's/.*\///')"
nginx_port="$(free_port)"
cat >"$tmp/nginx.conf" <<EOF
daemon off;
worker_processes auto;
pid $tmp/nginx.pid;
error_log $tmp/nginx-error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path $tmp/nginx-body;
    proxy_temp_path $tmp/nginx-proxy;
    fastcgi_temp_path $tmp/nginx-fastcgi;
    uwsgi_temp_path $tmp/nginx-uwsgi;
    scgi_temp_path $tmp/nginx-scgi;
    keepalive_requests 1000000;
    types { application/schema+json json; }
    server {
        listen 127.0.0.1:$nginx_port;
        root $tmp/www;
    }
}
EOF
"$nginx_bin" -p "$tmp" -c "$tmp/nginx.conf" &
pids+=($!)
nginx="http://127.0.0.1:$nginx_port"
wait_http "$nginx/schema.json"
cmp <(curl -sf "$nginx/schema.json") "$tmp/www/schema.json"
cmp <(curl -sf "$nginx/ids.json") <(curl -sf "$server/schemas/ids/$id")

echo "== machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"

# Runs wrk against $2 (label $1); prints "label requests/s", fails on errors.
results=()
load() {
    local out rps
    out="$(wrk -t"$threads" -c"$connections" -d"$duration" --latency "$2")"
    printf '%s\n' "$out" >"$tmp/wrk-$1.txt"
    if grep -Eq 'Non-2xx or 3xx responses|Socket errors' <<<"$out"; then
        printf '%s\n' "$out" >&2
        echo "$1: errors (above)" >&2
        return 1
    fi
    rps="$(awk '/^Requests\/sec:/ { print $2 }' <<<"$out")"
    local requests p50 p99
    requests="$(awk '/requests in/ { print $1 }' <<<"$out")"
    p50="$(awk '$1 == "50%" { print $2 }' <<<"$out")"
    p99="$(awk '$1 == "99%" { print $2 }' <<<"$out")"
    printf '%-22s %10s req/s  %9s requests, 0 errors, p50 %s, p99 %s\n' \
        "$1" "$rps" "$requests" "$p50" "$p99"
    results+=("$1=$rps")
}

echo "== reads: wrk -t$threads -c$connections -d$duration (RUST_LOG=$RUST_LOG)"
load nginx-schema "$nginx/schema.json"
load native-urn "$server/schemas/$urn"
load nginx-ids "$nginx/ids.json"
load confluent-id "$server/schemas/ids/$id"
echo "load average after reads: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "${results[@]}" <<'EOF'
import sys
r = dict(arg.split("=") for arg in sys.argv[1:])
f = {k: float(v) for k, v in r.items()}
print(f"ratio native-urn / nginx-schema:  {f['native-urn'] / f['nginx-schema']:.2f}")
print(f"ratio confluent-id / nginx-ids:   {f['confluent-id'] / f['nginx-ids']:.2f}")
EOF

# Publishes $publish_n distinct ~1 KB schemas (new names, version 1) with
# $publish_c concurrent keep-alive connections; fails on any non-2xx.
publish_load() {
    python3 - "$server" "$token" "$publish_n" "$publish_c" "$1" <<'EOF'
import http.client, json, sys, threading, time, urllib.parse

base, token, n, c, label = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
url = urllib.parse.urlsplit(base)
def body(i):
    props = {f"field_{k}": {"type": "string", "maxLength": 64 + k} for k in range(12)}
    return json.dumps({"$schema": "https://json-schema.org/draft/2020-12/schema",
                       "title": f"load test schema {i}", "type": "object",
                       "properties": props, "required": ["field_0"],
                       "additionalProperties": False}).encode()
bodies = [body(i) for i in range(n)]
errors, latencies, lock = [], [], threading.Lock()
def worker(w):
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
    for i in range(w, n, c):
        t = time.perf_counter()
        try:
            conn.request("PUT", f"/publish/schemas/urn:acme:schema:load.{label}.s{i}:1",
                         body=bodies[i], headers={"Authorization": f"Bearer {token}"})
            resp = conn.getresponse()
            data = resp.read()
            ok = 200 <= resp.status < 300
        except Exception as err:  # a socket error counts as an error
            ok, data = False, repr(err).encode()
            conn.close()
            conn = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
        with lock:
            latencies.append(time.perf_counter() - t)
            if not ok:
                errors.append(data[:200])
threads = [threading.Thread(target=worker, args=(w,)) for w in range(c)]
start = time.perf_counter()
for t in threads: t.start()
for t in threads: t.join()
elapsed = time.perf_counter() - start
latencies.sort()
p50 = latencies[len(latencies) // 2] * 1e3
p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] * 1e3
print(f"publish {label:<10} {n / elapsed:8.1f} schemas/s  {n} schemas ({len(bodies[0])} bytes), "
      f"{c} clients, {elapsed:.2f} s, {len(errors)} errors, p50 {p50:.1f} ms, p99 {p99:.1f} ms")
if errors:
    print("first error:", errors[0], file=sys.stderr)
    sys.exit(1)
EOF
}

echo "== publish: $publish_n distinct schemas, $publish_c concurrent clients"
publish_load sqlite
pg_db="dataschema_load_$$"
psql "$pg/postgres" -qc "CREATE DATABASE $pg_db" >/dev/null
start_server "$pg/$pg_db"
publish_load postgres
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
