#!/bin/bash
# usage: s11g-epoch-cost.sh BINARY WORKDIR WRITE_PATH ROUNDS -- fsync-family calls (strace) and wall time of CLI write and get
X=$1; W=$2; P=$3; N=$4; rm -rf $W; mkdir -p $W; S=$W/s
head -c 4096 /dev/urandom > $W/p
$X store init $S --stripe-unit 65536 --oss 5 --code raid5 --write-path $P >/dev/null
head -c 1000000 /dev/urandom | $X store put $S f
strace -f -c -e trace=fsync,fdatasync -o $W/st $X store write $S f --offset 0 < $W/p
echo "  write 4 KiB: $(awk '$NF=="total"{print $(NF-1)}' $W/st) fsync+fdatasync calls"
strace -f -c -e trace=fsync,fdatasync -o $W/st $X store get $S f > /dev/null
echo "  get:         $(awk '$NF=="total"{print $(NF-1)}' $W/st) fsync+fdatasync calls"
t0=$(date +%s.%N); for i in $(seq 1 $N); do $X store write $S f --offset $((i*4096)) < $W/p; done; t1=$(date +%s.%N)
echo "  $N x write 4 KiB: $(python3 -c "print(round(($t1-$t0)/$N*1000,1))") ms each"
t0=$(date +%s.%N); for i in $(seq 1 $N); do $X store get $S f >/dev/null; done; t1=$(date +%s.%N)
echo "  $N x get:         $(python3 -c "print(round(($t1-$t0)/$N*1000,1))") ms each"
