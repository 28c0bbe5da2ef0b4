#!/usr/bin/env python3
"""List the records of an exaraid journal: offset, length, crc ok, kind."""
import sys, struct, json, zlib
def recs(b):
    at = 0; out = []
    while at + 8 <= len(b):
        n, c = struct.unpack_from("<II", b, at)
        p = b[at + 8: at + 8 + n]
        try:
            j = json.loads(p); r = j["rec"]; kind = next(iter(r)) if isinstance(r, dict) else r
        except Exception:
            kind = "?"
        out.append((at, 8 + n, kind, p)); at += 8 + n
    return out
if __name__ == "__main__":
    b = open(sys.argv[1], "rb").read()
    for at, ln, kind, p in recs(b):
        print(at, ln, kind, p[:160].decode(errors="replace") if len(sys.argv) > 2 else "")
