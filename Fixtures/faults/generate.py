#!/usr/bin/env python3
"""Writes the hostile bodies of the fault matrix (deterministic: run again to check)."""
import gzip
import pathlib

here = pathlib.Path(__file__).parent

# A gzip bomb: 66 KB on the wire, 64 MiB of JSON whitespace once decoded.
body = b"[" + b" " * (64 * 1024 * 1024) + b"]"
(here / "gzip-bomb.json.gz").write_bytes(gzip.compress(body, compresslevel=9, mtime=0))
