#!/usr/bin/env bash
# Runs the built C++ and Rust harnesses at N records (default 1,000,000) and prints their rows
# after a header line (date, cores, CPU, widest vector instruction set): the file the report
# reads as benchmarks/results/peers.txt. Further sizes after N run the lookup alone (the report's
# "Lookup as the table grows", beside JMH's LookupScaleBenchmark).
#   benchmarks/peers/run.sh 1000000 8388608 33554432 > benchmarks/results/peers.txt
set -euo pipefail
cd "$(dirname "$0")"
n=${1:-1000000}
shift || true
for b in cpp/bench cpp/mem rust/target/release/slotbench rust/target/release/slotmem; do
    if [ ! -x "$b" ]; then
        echo "benchmarks/peers/$b is not built: see benchmarks/peers/README.md" >&2
        exit 1
    fi
done
cpu=$(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
flags=" $(grep -m1 '^flags' /proc/cpuinfo | cut -d: -f2-) "
case "$flags" in
    *" avx512f "*) isa="AVX-512" ;;
    *" avx2 "*) isa="AVX2" ;;
    *) isa="no AVX2" ;;
esac
echo "# peers run $(date -u +%Y-%m-%dT%H:%MZ); $(nproc) cores ($cpu, $isa); n=$n"
cpp/bench "$n"
rust/target/release/slotbench "$n"
cpp/mem "$n"
rust/target/release/slotmem "$n"
for m in "$@"; do
    WORKLOADS=lookup cpp/bench "$m" | grep ' lookup '
    WORKLOADS=lookup rust/target/release/slotbench "$m" | grep ' lookup '
done
