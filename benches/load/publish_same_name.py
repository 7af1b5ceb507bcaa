"""Publish throughput on one name: N versions of one subject registered
through the Confluent API by C concurrent keep-alive clients (each a new
version, BACKWARD-compatible with the others).

python3 benches/load/publish_same_name.py http://127.0.0.1:PORT TOKEN N C
"""
import http.client, json, sys, threading, time, urllib.parse
base, token, n, c = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
url = urllib.parse.urlsplit(base)
def body(i):
    return json.dumps({"schemaType": "JSON", "schema": json.dumps({"title": f"same name {i}", "type": "object"})}).encode()
errors, lat, lock = [], [], threading.Lock()
def worker(w):
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=60)
    for i in range(w, n, c):
        t = time.perf_counter()
        conn.request("POST", "/subjects/orders-value/versions", body=body(i),
                     headers={"Authorization": f"Bearer {token}", "Content-Type": "application/vnd.schemaregistry.v1+json"})
        r = conn.getresponse(); d = r.read()
        with lock:
            lat.append(time.perf_counter() - t)
            if r.status != 200: errors.append((r.status, d[:200]))
ts = [threading.Thread(target=worker, args=(w,)) for w in range(c)]
s = time.perf_counter()
for t in ts: t.start()
for t in ts: t.join()
e = time.perf_counter() - s
lat.sort()
print(f"same name: {n/e:8.1f} versions/s, {n} versions, {c} clients, {len(errors)} errors, p50 {lat[len(lat)//2]*1e3:.1f} ms, p99 {lat[min(len(lat)-1,int(len(lat)*.99))]*1e3:.1f} ms")
if errors: print(errors[0])
