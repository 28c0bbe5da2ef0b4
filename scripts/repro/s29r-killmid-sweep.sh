#!/bin/bash
# s29r sweep: a crash ALONE with several API writers in flight (scripts/repro/s22r-api-killmid.rs: four writer
# threads on overlapping ranges of one file, optionally a background worker and a thread calling flush), killed
# at `write-torn-block:N` in plan order, N drawn in 60..299 (past the put; KMIN/KSPAN move it); then `check` in a new process (the
# open recovers; every byte from a write over it, the length past every acknowledged write, scrub clean). With no
# rot and no failed OSS a "get refused ... lost" is a LOSS from a crash alone (review s29r R29-1).
# Env: KM (the built s22r_killmid example; build: see the header of s22r-api-killmid.rs), KEEP=DIR (the crash
#      image, before recovery, of each trial that lost bytes, as DIR-TRIAL with DIR-TRIAL.log),
#      POINT (kill point name, default write-torn-block: grep the store crate for EXARAID_KILL_AT),
#      THREADS (writer threads, default 4), WRITES (writes per thread, default 40), and any env the
#      tool reads (S22R_BG, S22R_FLUSH: set at all, even to 0, they are on; S26R_WINDOW_MS, ...), passed through.
# usage: KM=... s29r-killmid-sweep.sh SCRATCH CODE PATH TRIALS SEED [UNIT]
# example (R29-1): KM=/tmp/s29r-killmid KEEP=/dev/shm/s29r-lost scripts/repro/s29r-killmid-sweep.sh /dev/shm/s29r-k raid6 wcl 30 1 16384
D=$1; CODE=$2; P=$3; N=$4; SEED=$5; UNIT=${6:-16384}
RANDOM=$SEED; lost=0; bad=0; killed=0
for t in $(seq "$N"); do
  k=$(( (RANDOM % ${KSPAN:-240}) + ${KMIN:-60} )); s=$((SEED + t)); rm -rf "$D" "$D.log" "$D.img" "$D.img.log"
  { EXARAID_KILL_AT=${POINT:-write-torn-block}:$k EXARAID_KILL_IN_PLAN_ORDER=1 timeout 120 "$KM" run "$D" "$CODE" "$P" $s "${THREADS:-4}" "${WRITES:-40}" "$UNIT" \
    >/dev/null 2>"$D.err"; } 2>/dev/null; rc=$?
  [ $rc -eq 124 ] && { echo "HANG run trial $t seed $s kill $k"; bad=$((bad+1)); continue; }
  cp -a "$D" "$D.img"; cp "$D.log" "$D.img.log"
  timeout 120 "$KM" check "$D" >"$D.out" 2>&1; out=$(head -c 700 "$D.out" | tr '\n' ' ')
  desc="trial $t $CODE $P seed $s kill ${POINT:-write-torn-block}:$k rc $rc $(grep -o 'killed at.*' "$D.err" | head -1)"
  [ $rc -eq 137 ] && killed=$((killed+1))
  if ! grep -q '^A 7$' "$D.img.log"; then continue  # the put itself was cut: no file is right
  elif grep -q 'get refused' "$D.out"; then
    lost=$((lost+1)); echo "LOST $desc: $out"
    [ -n "$KEEP" ] && { rm -rf "$KEEP-$t"; mv "$D.img" "$KEEP-$t"; mv "$D.img.log" "$KEEP-$t.log"; }
  elif grep -q PROBLEM "$D.out"; then bad=$((bad+1)); echo "PROBLEM $desc: $out"
  fi
done
echo "s29r-killmid-sweep $CODE $P seed $SEED: $N trials, $killed killed, $lost lost (a crash alone), $bad other problems"
rm -rf "$D" "$D.log" "$D.err" "$D.out" "$D.img" "$D.img.log"
