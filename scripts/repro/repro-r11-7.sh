#!/bin/bash
# Review s11r R11-7 (availability + spurious FAILED OSSs): every zone file an OSS backend opens
# stays open for the life of the process (backend.rs `files: HashMap<(object, zone), Arc<File>>`,
# no bound), so a command that visits every file needs about files x OSSs x zones descriptors.
# Part A: a 6-OSS raid6 WCL store with 250 files: under the usual soft limit `ulimit -n 1024`,
#   scrub, flush and rebuild exit 1 "OSS ...: Too many open files (os error 24)"; a failed OSS
#   cannot be rebuilt (only with a higher limit).
# Part B: the same store, `flush` under limits just around what it needs: at some limits it exits
#   0 with "OSS N ... is recorded failed: its sync failed after a settle's home writes (... Too
#   many open files ...)": healthy OSSs recorded FAILED for a process limit (two of raid6's two).
# Usage: EXARAID=... scripts/repro/repro-r11-7.sh [DIR]   (10 minutes on a loaded 2-core VM; the limits that hit move with the file system: widen FROM, TO)
E=${EXARAID:-target/release/exaraid}; D=${1:-/tmp/repro-r11-7}
rm -rf "$D"; mkdir -p "$D"; S="$D/s"
$E store init "$S" --oss 6 --code raid6 --stripe-unit 4096 --write-path wcl >/dev/null
for i in $(seq 1 250); do head -c 20000 /dev/urandom | $E store put "$S" f$i; done
for i in $(seq 1 250); do head -c 3000 /dev/urandom | $E store write "$S" f$i --offset 100; done
cp -a "$S" "$D/bak"
echo "== Part A: ulimit -n 1024"
( ulimit -n 1024
  for c in "scrub $S" "flush $S"; do $E store $c >/dev/null 2>"$D/err"; echo "$c: rc=$? $(head -c 120 "$D/err")"; done
  $E store fail "$S" --oss 2 >/dev/null
  $E store rebuild "$S" --oss 2 >/dev/null 2>"$D/err"; echo "rebuild --oss 2: rc=$? $(head -c 120 "$D/err")" )
echo "== Part B: flush under limits around what it needs"
spurious=0
for lim in $(seq ${FROM:-2000} ${TO:-2040}); do
  rm -rf "$S"; cp -a "$D/bak" "$S"
  ( ulimit -n $lim; $E store flush "$S" >/dev/null 2>"$D/err" ); rc=$?
  failed=$($E store status "$S" | awk '$2 == "FAILED" {print $1}' | tr '\n' ' ')
  if [ -n "$failed" ]; then spurious=$((spurious+1)); echo "ulimit -n $lim: flush rc=$rc, OSSs now recorded FAILED: $failed($(grep -o 'Too many open files' "$D/err" | head -1))"; fi
done
echo "limits with healthy OSSs recorded failed: $spurious"
