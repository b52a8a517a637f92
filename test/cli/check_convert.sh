#!/usr/bin/env bash
# Usage: check_convert.sh RACEPREDICT TRACE WORKDIR
# Converts TRACE (any format) to binary and back and checks that the text
# written from the binary trace is byte-identical to the text written from
# TRACE itself, that binary -> text -> binary reproduces the binary file, that
# --to overrides the extension, and that `analyze` reports the same races
# (and exit status) on TRACE and on its binary form.
set -u
rp=$1; in=$2; dir=$3
mkdir -p "$dir" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
"$rp" convert "$in" "$dir/a.rptrace" || fail "convert to binary"
"$rp" convert "$in" "$dir/ref.rpt.txt" || fail "convert to text"
"$rp" convert "$dir/a.rptrace" "$dir/b.rpt.txt" || fail "binary to text"
cmp "$dir/ref.rpt.txt" "$dir/b.rpt.txt" || fail "text differs after a binary round trip"
"$rp" convert "$dir/b.rpt.txt" "$dir/c.rptrace" || fail "text to binary"
cmp "$dir/a.rptrace" "$dir/c.rptrace" || fail "binary differs after a text round trip"
"$rp" convert --to binary "$in" "$dir/d.txt" || fail "convert --to binary"
cmp "$dir/a.rptrace" "$dir/d.txt" || fail "--to binary ignored"
head -c 8 "$dir/a.rptrace" | grep -q RPTRACE || fail "no binary magic"
# The format samples are not all runs (all_kinds fails a try-lock of a free
# lock and matches a wait to an earlier notify, which no run can): both
# forms must then be refused alike (exit 2), else report the same races.
# r.json goes first, so that a failed analysis cannot pass on an earlier
# run's report.
races() {
  rm -f "$dir/r.json"
  "$rp" analyze --all-pairs --format json -o "$dir/r.json" "$1" 2>/dev/null
  echo "exit $?"
  if [ -f "$dir/r.json" ]; then
    python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))["races"]))' "$dir/r.json"
  fi
}
want=$(races "$in") || fail "analyze $in"
got=$(races "$dir/a.rptrace") || fail "analyze binary"
[ "$want" = "$got" ] || fail "races differ: text: $want binary: $got"
echo "ok: $in round-trips; $(echo "$want" | head -1)"
