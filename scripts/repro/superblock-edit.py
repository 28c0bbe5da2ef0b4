# Review s12r tool: rewrite DIR/superblock with its checksum recomputed after a Python edit of
# its JSON `j`. Usage: superblock-edit.py DIR/superblock "j['element_bytes']=4095"
import sys, json
def crc32c(b):
    crc = 0xFFFFFFFF
    for x in b:
        crc ^= x
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF
p = sys.argv[1]; raw = open(p, "rb").read()
hdr, body = raw.split(b"\n", 1)
assert int(hdr.split(b"crc32c=")[1], 16) == crc32c(body), "crc model wrong"
j = json.loads(body); exec(sys.argv[2])
nb = json.dumps(j, indent=2).encode() + (b"\n" if body.endswith(b"\n") else b"")
open(p, "wb").write(b"EXARAID superblock v1 len=%d crc32c=%08x\n" % (len(nb), crc32c(nb)) + nb)
