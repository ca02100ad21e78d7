#!/usr/bin/env bash
# ctest production_bench.smoke: production_bench at a tiny size (seconds).
# Its CSV has every column for every layout × policy × workload, all rows
# on the same files per level, with plausible figures and false positives
# by level that add up to the total; a second run reuses the load and
# plots through gnuplot with no signal blocked, and one interrupted while
# it plots keeps its complete CSV; --compact_to_last_level
# leaves one level; bad input is refused with a message and touches
# nothing, before any load; --rounds gives the
# same rows from copies of the load it removes after, with every slice's
# ops/s, which bench/production_ratios.sh compares, and each copy's read
# latency from the disk; --device_us slows
# the reads it measures to the emulated device's; a second run on a
# directory in use is refused; an interrupted run removes what it made.
#
#   bash bench/production_smoke.sh PRODUCTION_BENCH SCRATCH_DIR
set -euo pipefail
BIN="${1:?usage: production_smoke.sh PRODUCTION_BENCH SCRATCH_DIR}"
DIR="${2:?usage: production_smoke.sh PRODUCTION_BENCH SCRATCH_DIR}"
rm -rf "$DIR"
mkdir -p "$DIR"
LOG="$DIR/run.log"
fail() { echo "FAIL: $*"; tail -n 20 "$LOG"; exit 1; }
# 20K keys of 16 + 200 bytes in 128 KiB files: ~15 files on two levels.
TINY=(--keys=20000 --value_bytes=200 --write_buffer_bytes=262144 --target_file_bytes=131072
      --level_base_bytes=524288 --ops=2000 --min_seconds=0 --warmup_ops=500 --fp_misses=20000
      --hit_percents=0,50 --threads=1,2 --policies=rocksdb.Bloom,sstfilter.Ribbon --layouts=a,b
      --allocator=system)

"$BIN" "${TINY[@]}" --db_dir="$DIR/db" --csv="$DIR/out.csv" > "$DIR/out.txt" 2> "$LOG" ||
  fail "the tiny run exited with $?"
[ ! -e "$DIR/out.csv.partial" ] || fail "a .partial CSV was left behind"
want="policy,layout,budget_bits_per_key,bits_per_key,alloc_bits_per_key,filter_bytes"
head -2 "$DIR/out.csv" | tail -1 | grep -q "^$want,.*,wasted_reads_per_miss,.*,miss_p999_us,.*,filter_cache_hit_ratio,setting,wasted_reads_per_miss_L0,.*,wasted_reads_per_miss_L6,device_reads_per_miss_L0,.*,device_reads_per_miss_L6,copy_read_median_us,copy_read_p99_us,ops_per_sec_by_round$" ||
  fail "CSV header: $(head -2 "$DIR/out.csv" | tail -1)"
rows=$(tail -n +3 "$DIR/out.csv" | wc -l)
[ "$rows" -eq 16 ] || fail "want 16 rows (2 layouts x 2 policies x 2 mixes x 2 thread counts), got $rows"
shapes=$(tail -n +3 "$DIR/out.csv" | cut -d, -f8 | sort -u | wc -l)
[ "$shapes" -eq 1 ] || fail "rows on different files per level: $(cut -d, -f8 "$DIR/out.csv" | sort -u | tr '\n' ' ')"
awk -F, 'NR > 2 {
           if ($12 <= 0) { print "no ops/s: " $0; bad = 1 }
           if ($16 < 0 || $16 > 0.1) { print "wasted reads per miss: " $0; bad = 1 } }
         END { exit bad }' "$DIR/out.csv" || fail "implausible rows"
# By level (the same absent keys, counted per level): the false positives
# add up to the total, and the device reads were counted. They are not
# bounded by the false positives: lookups can miss the cache on a few more
# blocks than their false positives' data blocks (~0.4% more in the levels
# of a 100M-key database that the cache never holds).
awk -F, 'NR == 2 { for (i = 1; i <= NF; i++) c[$i] = i; next }
         NR > 2 {
           sum = 0; dev = 0
           for (l = 0; l < 7; l++) {
             sum += $c["wasted_reads_per_miss_L" l]; dev += $c["device_reads_per_miss_L" l]
           }
           t = $c["wasted_reads_per_miss"]
           if (sum - t > 1e-5 || t - sum > 1e-5) { print "levels " sum " vs " t ": " $0; bad = 1 }
           if ($c["policy"] == "rocksdb.Bloom" && (sum <= 0 || dev <= 0)) {
             print "no false positives or device reads: " $0; bad = 1 } }
         END { exit bad }' "$DIR/out.csv" || fail "by-level columns"

# The second run also plots, through a stand-in gnuplot that records its
# signal mask and arguments: the run blocks SIGINT for its own clean-up,
# and gnuplot must not inherit that (Ctrl-C would not stop it), nor go
# through a shell (a path with a space or a $ must arrive as it is).
PLOTS="$DIR/a \$plot dir"
mkdir -p "$DIR/bin" "$PLOTS"
cat > "$DIR/bin/gnuplot" <<'GNUPLOT'
#!/usr/bin/env bash
printf '%s\n' "$@" > "$(dirname "$0")/gnuplot.record"
exec grep -E '^Sig(Blk|Ign):' /proc/self/status >> "$(dirname "$0")/gnuplot.record"
GNUPLOT
chmod +x "$DIR/bin/gnuplot"
PATH="$DIR/bin:$PATH" "$BIN" "${TINY[@]}" --policies=sstfilter.Ribbon --layouts=a --db_dir="$DIR/db" \
  --csv="$PLOTS/second.csv" --plot="$PLOTS/second.png" > /dev/null 2> "$LOG" ||
  fail "the second run exited with $?"
grep -q "reusing the load" "$LOG" || fail "the second run did not reuse the load"
head -1 "$DIR/out.csv" | grep -q " device=disk$" || fail "the CSV does not name the disk"
record="$DIR/bin/gnuplot.record"
[ -f "$record" ] || fail "--plot did not run gnuplot"
grep -q "^SigBlk:[[:space:]]*0*$" "$record" || fail "gnuplot ran with signals blocked: $(grep SigBlk "$record")"
ign=$(awk '/^SigIgn:/ { print $2 }' "$record")
(( (16#$ign & 16#4003) == 0 )) || fail "gnuplot ran with SIGHUP, SIGINT or SIGTERM ignored: SigIgn $ign"
grep -qxF "csv='$PLOTS/second.csv'; png='$PLOTS/second.png'" "$record" ||
  fail "gnuplot's settings: $(sed -n 2p "$record")"
grep -q "/bench/plot_production_bench.gp$" "$record" || fail "gnuplot's script: $(sed -n 3p "$record")"

# Interrupted while plotting (gnuplot stands in for a slow plot): the CSV
# is complete and stays, and the run says so.
cat > "$DIR/bin/gnuplot" <<'GNUPLOT'
#!/usr/bin/env bash
echo $$ > "$(dirname "$0")/gnuplot.pid"
exec sleep 60
GNUPLOT
PATH="$DIR/bin:$PATH" "$BIN" "${TINY[@]}" --policies=sstfilter.Ribbon --layouts=a --db_dir="$DIR/db" \
  --csv="$PLOTS/third.csv" --plot="$PLOTS/third.png" > /dev/null 2> "$LOG" &
pid=$!
for _ in $(seq 600); do [ -s "$DIR/bin/gnuplot.pid" ] && break; sleep 0.1; done
kill -TERM "$pid"
status=0; wait "$pid" || status=$?
kill "$(cat "$DIR/bin/gnuplot.pid" 2>/dev/null)" 2>/dev/null || true
[ "$status" -eq 143 ] || fail "interrupted while plotting: exit status $status, want 143"
grep -q "the CSV is complete, the plot is not" "$LOG" || fail "interrupted while plotting: no word of the CSV"
[ "$(tail -n +3 "$PLOTS/third.csv" | wc -l)" -eq 4 ] || fail "interrupted while plotting: the CSV lost rows"

# --rounds: the policies take turns slice by slice, each on its own copy of
# the load, rewritten as the one copy is: the same false positives as the
# first run's layout-a rows, every round run, and no copy left after.
"$BIN" "${TINY[@]}" --layouts=a --rounds=3 --db_dir="$DIR/db" --csv="$DIR/rounds.csv" \
  > /dev/null 2> "$LOG" || fail "the --rounds run exited with $?"
head -1 "$DIR/rounds.csv" | grep -q " rounds=3 " || fail "the CSV does not name the rounds"
[ "$(grep -c "round 3 of 3" "$LOG")" -eq 4 ] || fail "want round 3 of 3 for each of 4 workloads"
grep -q "ops/s (rounds: [0-9]* [0-9]* [0-9]*)" "$LOG" || fail "no ops/s per round in the log"
[ ! -e "$DIR/db/rounds" ] || fail "--rounds left its copies in $DIR/db/rounds"
diff <(awk -F, 'NR > 2 && $2 == "a" { print $1, $10, $11, $16 }' "$DIR/out.csv") \
     <(awk -F, 'NR > 2 { print $1, $10, $11, $16 }' "$DIR/rounds.csv") > /dev/null ||
  fail "--rounds rows differ from the first run's layout a (policy, hits, threads, wasted reads per miss)"
awk -F, 'NR > 2 { if (split($NF, s, " ") != 3 || !(s[1] > 0 && s[2] > 0 && s[3] > 0)) { print; bad = 1 } }
         END { exit bad }' "$DIR/rounds.csv" || fail "want ops/s of 3 rounds in every row's last column"
# Each copy's own files were read from the disk just before the timed
# workloads, and every row has that copy's read latency; on a file system
# in memory the log says why not, and the columns say "-".
disk_ratio='[0-9]+\.[0-9]+'
if grep -q "no direct reads of its files" "$LOG"; then
  disk_ratio='-'
  awk -F, 'NR == 2 { for (i = 1; i <= NF; i++) c[$i] = i; next }
           NR > 2 && $c["copy_read_median_us"] != "-" { bad = 1 } END { exit bad }' \
    "$DIR/rounds.csv" || fail "copy read columns filled without direct reads"
else
  [ "$(grep -c "its files read from the disk in [0-9.]* us median" "$LOG")" -eq 2 ] ||
    fail "want the read latency of each of the 2 copies in the log"
  awk -F, 'NR == 2 { for (i = 1; i <= NF; i++) c[$i] = i; next }
           NR > 2 { m = $c["copy_read_median_us"]; p = $c["copy_read_p99_us"]
                    if (!(m > 0 && p >= m)) { print; bad = 1 } } END { exit bad }' \
    "$DIR/rounds.csv" || fail "want every row's copy read median > 0 and p99 >= median"
fi
# Slice by slice against the reference: one row per workload, with the
# lowest and highest ratio of a slice, and the copies' disk ratio.
ratios=$(bash "$(dirname "${BASH_SOURCE[0]}")/production_ratios.sh" "$DIR/rounds.csv" rocksdb.Bloom) ||
  fail "production_ratios.sh exited with $?"
[ "$(grep -cE "^a +10 +[0-9]+ +[12] +sstfilter\\.Ribbon +[0-9.]+ +[0-9.]+-[0-9.]+ .* $disk_ratio\$" <<<"$ratios")" -eq 4 ] ||
  fail "production_ratios.sh: want 4 rows of sstfilter.Ribbon with slice ranges and a disk ratio, got: $ratios"

# An emulated device of a fixed 3 ms: a hit that reads a block from the
# file takes at least that (~0.9 device reads per hit here).
"$BIN" "${TINY[@]}" --policies=sstfilter.Ribbon --layouts=a --hit_percents=100 --threads=1 \
  --ops=300 --device_us=3000,3000 --db_dir="$DIR/db" --csv="$DIR/device.csv" > /dev/null 2> "$LOG" ||
  fail "the --device_us run exited with $?"
head -1 "$DIR/device.csv" | grep -q " device=emulated(median_us=3000,mean_us=3000)$" ||
  fail "the CSV does not name the emulated device"
awk -F, 'NR > 2 { rows++; if (!($13 > 0.5 && $19 >= 3000)) { print; bad = 1 } }
         END { exit bad || rows != 1 }' "$DIR/device.csv" ||
  fail "want one row whose hits read the device no faster than the emulated 3 ms"

# A full compaction after the load: every file in one level (none in L0).
"$BIN" "${TINY[@]}" --policies=sstfilter.Ribbon --layouts=a --hit_percents=0 --threads=1 \
  --l0_files=0 --compact_to_last_level --db_dir="$DIR/db-compacted" --csv="$DIR/compacted.csv" \
  > /dev/null 2> "$LOG" || fail "the --compact_to_last_level run exited with $?"
shape=$(tail -n +3 "$DIR/compacted.csv" | cut -d, -f8 | sort -u)
[ "$(tr '/' '\n' <<<"$shape" | grep -vc '^0$')" -eq 1 ] && [ "${shape%%/*}" = 0 ] ||
  fail "--compact_to_last_level left files in more than the last level: $shape"

refused() {  # refused PATTERN ARGS...: exit status != 0 and PATTERN in the message
  local pattern="$1"; shift
  if "$BIN" "${TINY[@]}" "$@" > /dev/null 2> "$LOG"; then fail "accepted: $*"; fi
  grep -q "$pattern" "$LOG" || fail "no '$pattern' in the message for: $*"
}
mkdir -p "$DIR/theirs" && echo keep > "$DIR/theirs/data"
refused "was not made by production_bench" --db_dir="$DIR/theirs"
[ "$(cat "$DIR/theirs/data")" = keep ] || fail "a directory it did not make was touched"
refused "holds a load with other flags" --db_dir="$DIR/db" --keys=30000
refused "holds a load with other flags" --db_dir="$DIR/db" --compact_to_last_level
refused "bad policy\|NotSupported\|not found\|unknown" --db_dir="$DIR/db" --policies=no.such.Policy
refused "layouts" --db_dir="$DIR/db" --layouts=c
refused "MEDIAN,MEAN" --db_dir="$DIR/db" --device_us=510,120
refused "rounds" --db_dir="$DIR/db" --rounds=0
# Checked before any load: a new directory stays empty.
refused "in --bits_per_key" --db_dir="$DIR/early" --bits_per_key=abc
refused "no directory" --db_dir="$DIR/early" --csv="$DIR/no/such/dir/out.csv"
[ ! -e "$DIR/early" ] || fail "a refused run made its --db_dir"

# A directory another run is using (here: this script holds its marker's
# lock, as a running production_bench does) is refused, and left as it is.
mkdir -p "$DIR/db-busy"
printf 'loading\nsomeone else\n' > "$DIR/db-busy/PRODUCTION_BENCH"
flock "$DIR/db-busy/PRODUCTION_BENCH" sleep 30 &
holder=$!
for _ in $(seq 100); do ! flock -n "$DIR/db-busy/PRODUCTION_BENCH" true || { sleep 0.05; continue; }; break; done
refused "another production_bench run is using" --db_dir="$DIR/db-busy"
[ "$(head -1 "$DIR/db-busy/PRODUCTION_BENCH")" = loading ] && [ ! -e "$DIR/db-busy/db" ] ||
  fail "a directory in use was touched"
kill "$holder"; wait "$holder" 2>/dev/null || true

# Interrupted (SIGTERM) while loading its own temporary directory: the
# directory goes with it.
before=$(find /var/tmp -maxdepth 1 -name 'production_bench.*' | sort)
"$BIN" "${TINY[@]}" --keys=400000 > /dev/null 2> "$DIR/term.log" &
pid=$!
for _ in $(seq 200); do grep -q "loading\|load" "$DIR/term.log" 2>/dev/null && break; sleep 0.05; done
sleep 0.5
kill -TERM "$pid"
if wait "$pid"; then fail "the interrupted run exited with 0"; fi
after=$(find /var/tmp -maxdepth 1 -name 'production_bench.*' | sort)
[ "$before" = "$after" ] || fail "an interrupted run left its temporary directory: $after"
echo "production_bench smoke: ok ($rows rows)"
