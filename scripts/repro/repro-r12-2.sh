#!/bin/bash
# Review s12r R12-2 (BAD ERROR): metadata FILES the caller cannot write, in a metadata
# DIRECTORY it can write (a shared, group- or world-writable project directory; a journal
# made append-only or immutable): the reads-only open is decided by access(DIR, W_OK) only.
#  (a) journal not writable (mode 644, another owner; or `chattr +a` / `+i`): every command,
#      `get` and `status` included, fails with a bare "journal DIR/journal: Permission denied
#      (os error 13)" / "Operation not permitted (os error 1)", no advice.
#  (b) journal writable, state not replaceable (sticky directory, state of another owner):
#      a plain `get` (which rewrites DIR/state at close, as every command does) warns that
#      "This was an I/O error, not a full disk: the disk holding DIR may be failing. Check it
#      (the kernel log, its SMART status)", and leaves a DIR/state.tmp of the reader's.
# Needs root (setpriv to uid 65534, chattr on ext4/xfs). Usage: EXARAID=... repro-r12-2.sh [DIR]
E=${EXARAID:-exaraid}; D=${1:-/tmp/repro-r12-2}
rm -rf "$D"; mkdir -p "$D"; chmod 755 "$D"; cd "$D"
$E store init s --oss 5 --code raid5 --stripe-unit 4096 >/dev/null
head -c 30000 /dev/urandom > a; $E store put s f < a
chmod -R a+rX . ; chmod 1777 s
U="setpriv --reuid=65534 --regid=65534 --clear-groups"
echo "== (a) journal 0644 root, directory 1777, reader uid 65534"
$U $E store get s f > got 2> err; echo "get rc=$? $(cmp -s got a && echo bytes-ok || echo no-bytes): $(cat err)"
$U $E store status s > /dev/null 2> err; echo "status rc=$?: $(cat err)"
echo "== (a') root, journal append-only (chattr +a)"
chattr +a s/journal && { $E store get s f > got 2> err; echo "get rc=$?: $(cat err)"; chattr -a s/journal; }
echo "== (b) journal 0666, state 0644 root, directory 1777 (sticky), reader uid 65534"
chmod 666 s/journal
$U $E store get s f > got 2> err; echo "get rc=$? $(cmp -s got a && echo bytes-ok): $(cat err)"
ls -la s | grep state
