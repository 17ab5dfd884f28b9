# The checks the reliability shell tests share (sourced, not run): each check prints "ok" or
# "FAIL" with its name, and `finish` prints the counts and fails the test on any failure.
failures=0 passed=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }
pass() { echo "ok   $*"; passed=$((passed + 1)); }
# expect NAME WANT_CODE WANT_TEXT -- command...: the exit code, and WANT_TEXT in its output. A
# death by signal, a timeout (124) or a sanitizer report is a crash unless that code is wanted.
expect() {
  local name=$1 want=$2 text=$3; shift 4
  local out code
  out=$("$@" 2>&1); code=$?
  if [[ $code -ge 124 && $want -lt 124 || $out == *"terminate called"* || $out == *Sanitizer* ]]; then fail "$name crashed or hung (exit $code): ${out:0:300}"
  elif [[ $code -ne $want ]]; then fail "$name: exit $code, wanted $want: ${out:0:400}"
  elif [[ -n $text && $out != *"$text"* ]]; then fail "$name: message lacks '$text': ${out:0:400}"
  else pass "$name"; fi
}
same() { cmp -s "$2" "$3" && pass "$1" || fail "$1: the file changed"; }  # same NAME FILE COPY
absent() { [[ ! -e $2 ]] && pass "$1" || fail "$1: $2 was created"; }    # absent NAME PATH
finish() {
  echo "$passed passed, $failures failed"
  [[ $failures -eq 0 ]]
}
