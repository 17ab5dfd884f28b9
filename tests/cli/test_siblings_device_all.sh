#!/usr/bin/env bash
# `apod run --device all` on a machine with two or more GPUs: after the children, the sibling
# check prints each GPU against its siblings (docs/siblings.md); a --quick run is a smoke test and
# never fails on it. Then `apod compare --siblings` judges the same set from the database.
# Skipped (77) with fewer than two GPUs.
set -u
apod=$1
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)
if [[ ${gpus:-0} -lt 2 ]]; then
  echo "fewer than two GPUs: skipped"; exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=$("$apod" run --device all --quick --only peak_copy --db "$tmp/n.db" 2>"$tmp/err"); code=$?
echo "$out" | sed -n '/^Siblings:/,$p'
if [[ $code -ne 0 || $out != *"Siblings: "* || $out != *"Sibling check: "* ]]; then
  echo "FAIL run --device all: exit $code"; echo "$out" | tail -20; tail -5 "$tmp/err"; exit 1
fi
out=$("$apod" compare --siblings --db "$tmp/n.db" 2>&1); code=$?
echo "$out"
if [[ $code -gt 1 || $out != *"Sibling check: "* ]]; then
  echo "FAIL compare --siblings: exit $code"; exit 1
fi
echo "ok   device_all_sibling_check"
