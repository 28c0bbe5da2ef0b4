#!/bin/bash
# s16r: s15h's deferral of the extents snapshot rewrite on a full OSS disk, at store level (note15 item 9).
# raid5 4+1 rmw, OSS 0 on a tmpfs; N1 writes at fresh offsets (log records grow toward 4096), the
# tmpfs then filled to ENOSPC, then N2 overwrites of written bytes (no new pages) past the rewrite point.
# usage: EXARAID=... s16r-snapshot-full.sh DIR [N1=2100] [N2=300]   (root: mounts a tmpfs)
set -u; B="timeout 60 ${EXARAID:?}"; D=$1; N1=${2:-2100}; N2=${3:-300}
umount $D/mnt 2>/dev/null; rm -rf $D; mkdir -p $D/mnt; cd $D
mount -t tmpfs -o size=16m tmpfs mnt
$B store init s --oss-dirs mnt/o0,o1,o2,o3,o4 --code raid5 --stripe-unit 4096 >/dev/null
head -c 16384 /dev/urandom > p
for i in $(seq 0 $((N1-1))); do $B store write s f --offset $((i*16384)) < p >/dev/null || { echo "write $i rc $?"; break; }; done
cp p model; python3 -c "
import sys; p=open('p','rb').read(); open('model','wb').write(p*$N1)"
echo "log bytes after N1: $(stat -c %s mnt/o0/exaraid-extents.log) (alloc $(du -k mnt/o0/exaraid-extents.log | cut -f1) KiB)"
dd if=/dev/zero of=mnt/filler bs=4k 2>/dev/null; echo "filled: $(df -k mnt | tail -1)"
ok=0; bad=0
for i in $(seq 1 $N2); do
  off=$(( (i % N1) * 16384 + 100 )); head -c 3000 /dev/urandom > q
  if $B store write s f --offset $off < q 2>err >/dev/null; then ok=$((ok+1))
    python3 -c "
b=bytearray(open('model','rb').read()); b[$off:$off+3000]=open('q','rb').read(); open('model','wb').write(b)"
  else bad=$((bad+1)); [ $bad -le 3 ] && echo "write $i refused: $(head -c 300 err)"; fi
done
echo "overwrites: $ok ok, $bad refused; log $(stat -c %s mnt/o0/exaraid-extents.log) bytes; snapshot $(stat -c %s mnt/o0/exaraid-extents.json)"
$B store status s | sed -n 3,4p
$B store get s f | cmp - model && echo "get exact (full)"
rm mnt/filler; $B store write s f --offset 0 < p >/dev/null && python3 -c "
b=bytearray(open('model','rb').read()); b[0:16384]=open('p','rb').read(); open('model','wb').write(b)"
echo "after room: log $(stat -c %s mnt/o0/exaraid-extents.log) snapshot $(stat -c %s mnt/o0/exaraid-extents.json)"
$B store status s | sed -n 3,4p; $B store get s f | cmp - model && echo "get exact (room)"; $B store scrub s | tail -1
