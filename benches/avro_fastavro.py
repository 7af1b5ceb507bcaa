"""Python fastavro's `schemaless_reader` over the datums `benches/avro_scan.rs`
generated, with the table that bench printed and a fastavro column added.

Run the Rust bench first (it writes the schemas, the datums and its own
timings), then this with the project's virtualenv (the one `.ci/setup`
makes, where fastavro is installed with its C extension):

    cargo bench --bench avro_scan -- --warm-up-time 1 --measurement-time 3
    ~/.cache/dataschema/venv/bin/python benches/avro_fastavro.py [DIR]

DIR is where the bench wrote (`$DATASCHEMA_AVRO_BENCH_OUT`, else
`dataschema-avro-bench` in the system's temporary folder).
"""

import io
import json
import os
import struct
import sys
import tempfile
import time

import fastavro
from fastavro import _read as compiled


def datums(path):
    blob = open(path, "rb").read()
    out = []
    at = 0
    while at < len(blob):
        (length,) = struct.unpack_from("<I", blob, at)
        at += 4
        out.append(blob[at : at + length])
        at += length
    return out


def best(rounds, run):
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def main():
    folder = (
        sys.argv[1]
        if len(sys.argv) > 1
        else os.environ.get(
            "DATASCHEMA_AVRO_BENCH_OUT",
            os.path.join(tempfile.gettempdir(), "dataschema-avro-bench"),
        )
    )
    # The C-accelerated reader, not the pure-Python fallback.
    if fastavro.read.schemaless_reader is not compiled.schemaless_reader:
        sys.exit("fastavro's C extension is not in use")
    results = json.load(open(os.path.join(folder, "results.json")))
    print(f"fastavro {fastavro.__version__} (C extension), Python {sys.version.split()[0]}")
    print(
        "| schema | mean size | apache-avro decode | scan | fastavro schemaless_reader "
        "| scan vs decode | scan vs fastavro |"
    )
    print("|---|---|---|---|---|---|---|")
    for case in results:
        schema = fastavro.parse_schema(
            json.load(open(os.path.join(folder, case["file"] + ".avsc")))
        )
        payloads = datums(os.path.join(folder, case["file"] + ".bin"))
        streams = [io.BytesIO(p) for p in payloads]
        reader = fastavro.schemaless_reader

        def run():
            for stream in streams:
                stream.seek(0)
                reader(stream, schema, None)

        # Every datum reads to its end (the same datums the bench checked).
        for stream, payload in zip(streams, payloads):
            stream.seek(0)
            reader(stream, schema, None)
            assert stream.tell() == len(payload), case["name"]
        run()
        seconds = best(15, run)
        fast_ns = seconds * 1e9 / len(payloads)
        print(
            f"| {case['name']} | {case['mean_bytes']} B | {case['decode_ns']:.0f} ns "
            f"| {case['scan_ns']:.0f} ns | {fast_ns:.0f} ns "
            f"| **{case['decode_ns'] / case['scan_ns']:.1f}x** "
            f"| **{fast_ns / case['scan_ns']:.1f}x** |"
        )


if __name__ == "__main__":
    main()
