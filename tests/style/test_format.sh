#!/usr/bin/env bash
# Every C++ and CUDA file of the tree is as clang-format-14 writes it with the project's
# .clang-format (ColumnLimit 100, LLVM base). Fails with the files that are not, and the command
# that fixes them; skipped (77) where clang-format-14 is missing or the tree is not a git checkout.
set -uo pipefail
cd "$(dirname "$0")/../.."
command -v clang-format-14 >/dev/null || { echo "clang-format-14 not installed: skipped"; exit 77; }
git rev-parse --is-inside-work-tree >/dev/null 2>&1 || { echo "not a git checkout: skipped"; exit 77; }
mapfile -t files < <(git ls-files '*.cpp' '*.hpp' '*.cu' '*.cuh' '*.h')
bad=()
for f in "${files[@]}"; do
  [[ -f $f ]] || continue
  clang-format-14 --dry-run -Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
if ((${#bad[@]})); then
  printf 'not formatted: %s\n' "${bad[@]}"
  echo "fix with: clang-format-14 -i ${bad[*]}"
  exit 1
fi
echo "${#files[@]} files formatted"
