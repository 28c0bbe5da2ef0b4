#!/bin/bash
# Review s11r (R11-2): many ranks run `init` then `put` on one store at once; counts inits that exit 0
# and acknowledged puts that do not read back. Env: EXARAID, B (scratch), N (ranks), ROUNDS.
# s11r: every rank of a job runs `init` (the second and later refused) then `put` its own file.
E=${EXARAID:-/tmp/s11r/exaraid}; B=${B:-/tmp/s11r/ir}; N=${N:-8}; ROUNDS=${ROUNDS:-10}
bad=0
for r in $(seq 1 $ROUNDS); do
  rm -rf $B; mkdir -p $B
  for i in $(seq 1 $N); do head -c $((5000 + i*777)) /dev/urandom > $B/data$i; done
  for i in $(seq 1 $N); do
    ( sleep 0.$((RANDOM % 10))$((RANDOM % 10)); $E store init $B/s --oss 6 --code raid6 --stripe-unit 4096 > $B/init$i 2>&1; echo "rc=$?" >> $B/init$i
      sleep 0.0$((RANDOM % 10)); $E store put $B/s r$i < $B/data$i > $B/put$i 2>&1; echo "rc=$?" >> $B/put$i ) &
  done
  wait
  acked=0; lost=0
  for i in $(seq 1 $N); do
    if grep -q rc=0 $B/put$i; then acked=$((acked+1))
      if ! $E store get $B/s r$i 2>$B/get$i | cmp -s - $B/data$i; then lost=$((lost+1)); echo "round $r: acked put r$i reads wrong: $(head -c 200 $B/get$i)"; fi
    fi
  done
  echo "round $r: inits ok $(grep -l rc=0 $B/init* | wc -l), puts acked $acked, wrong/lost $lost; ls: $($E store ls $B/s 2>&1 | wc -l) files"
  [ $lost -gt 0 ] && bad=1 && cp -a $B $B-bad-$r
done
exit $bad
