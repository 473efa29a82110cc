#!/usr/bin/env python3
"""Analyse a gtrace trace in Python: the queries of docs/sql.md, through DuckDB.

    gtrace export TRACE --format parquet -o trace.parquet
    python3 examples/analyse.py TRACE trace.parquet

Needs pyarrow and duckdb (pip install pyarrow duckdb). The trace file itself is an Arrow
IPC file: pyarrow opens it directly, and its schema metadata carries the launches and
program tables as JSON.
"""
import json
import re
import sys
from pathlib import Path

import duckdb
import pyarrow.ipc as ipc

COOKBOOK = Path(__file__).resolve().parent.parent / "docs" / "sql.md"


def describe(trace_path):
    with ipc.open_file(trace_path) as f:
        md = f.schema.metadata
        print("format version", md[b"gtrace.format.version"].decode())
        meta = json.loads(md[b"gtrace.meta"])
        for k, launch in enumerate(meta["launches"]):
            print(f"kernel {k}: {launch['kernel']} grid {launch['grid']} block {launch['block']}"
                  f" {len(launch['program'])} instructions")
        rows = sum(f.get_batch(i).num_rows for i in range(f.num_record_batches))
        print(f"{f.num_record_batches} record batches, {rows} warp-instructions")


def main():
    trace_path, parquet_path = sys.argv[1], sys.argv[2]
    describe(trace_path)
    con = duckdb.connect()
    # The cookbook reads 'trace.parquet'; point it at the file given.
    con.execute(f"CREATE VIEW trace AS SELECT * FROM read_parquet('{parquet_path}')")
    for query in re.findall(r"```sql\n(.*?)```", COOKBOOK.read_text(), re.S):
        name = query.splitlines()[0].removeprefix("-- name: ")
        if "lanes.parquet" in query:
            continue  # needs the per-lane export
        print(f"\n== {name}")
        print(con.sql(query.replace("'trace.parquet'", "trace")))


if __name__ == "__main__":
    main()
