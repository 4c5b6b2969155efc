#!/usr/bin/env bash
# zc advise: validate the cost model on this GPU (12 workloads run for real with every
# technique) and write the validation table; then the report page from the results so far.
# Run as: bash 50-advise.sh ZC_BINARY RESULTS_DIR (about a minute and a half).
set -uo pipefail
zc=${1:?usage: 50-advise.sh ZC_BINARY RESULTS_DIR}
results=${2:?usage: 50-advise.sh ZC_BINARY RESULTS_DIR}
mkdir -p "$results/advise"
status=0

# The profile: the zc bench result of 20-bench.sh when there is one, else a quick one.
profile_args=()
if [ -s "$results/bench.json" ]; then
  profile_args=(--profile "$results/bench.json")
  echo "profile: $results/bench.json"
else
  echo "profile: none from zc bench; zc advise measures a quick one"
fi

start=$SECONDS
"$zc" advise --validate --force "${profile_args[@]}" --out "$results/advise" \
  --save-profile "$results/advise/profile.json" >"$results/advise/validation.txt" \
  2>"$results/advise/validation.err"
rc=$?
echo "zc advise --validate: exit $rc, $((SECONDS - start)) s"
[ $rc -eq 0 ] || { status=1; tail -20 "$results/advise/validation.err"; }
sed -n '1,/^## Every technique/p' "$results/advise/validation.md" 2>/dev/null | head -40

# A second validation with the profile zc advise makes for itself (zc bench --quick, or its
# own calibration when that fails), when the first used a bench profile: it shows how much the
# model owes to the profile.
if [ ${#profile_args[@]} -gt 0 ] && [ $((SECONDS - start)) -lt 45 ]; then
  mkdir -p "$results/advise/calibrated"
  "$zc" advise --validate --force --out "$results/advise/calibrated" \
    >"$results/advise/calibrated/validation.txt" 2>"$results/advise/calibrated/validation.err" ||
    status=1
  grep -m1 "Recommended technique measured fastest" "$results/advise/calibrated/validation.md"
fi

# Example advice for the tour, from the same profile.
"$zc" advise --profile "$results/advise/profile.json" --bytes 4K --concurrent \
  --latency-budget 20 >"$results/advise/example-4k.txt" 2>&1 || status=1
"$zc" advise --profile "$results/advise/profile.json" --bytes 64M --transfers 100 \
  >"$results/advise/example-64m.txt" 2>&1 || status=1
tail -1 "$results/advise/example-4k.txt"

# The report page from every bench and stream result here (pictures need gnuplot and graphviz;
# without them the page says so).
inputs=()
for f in "$results"/bench.json "$results"/stream*.json "$results"/pinning.json; do
  [ -s "$f" ] && inputs+=("$f")
done
[ ${#inputs[@]} -gt 0 ] || inputs=("$results/advise/profile.json")
"$zc" report --force -o "$results/report.html" --picture-dot "$results/picture.dot" "${inputs[@]}" ||
  status=1
exit $status
