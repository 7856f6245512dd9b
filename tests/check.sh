# Shared by the host-side shell tests (source it; bash): one check runs a
# command and compares its exit code and output with what is wanted.
pass=0; fail=0
# check_run GROUP NAME WANT_RC REGEX CMD ARGS...: PASS when CMD exits WANT_RC
# and its output (stdout and stderr) matches the extended regex REGEX.
check_run() {
	local group=$1 name=$2 want=$3 re=$4; shift 4
	local out rc
	out=$("$@" 2>&1); rc=$?
	if [ "$rc" = "$want" ] && grep -qE -- "$re" <<<"$out"; then
		echo "PASS $group/$name"; pass=$((pass + 1))
	else
		echo "FAIL $group/$name: rc=$rc (want $want), output: $out"; fail=$((fail + 1))
	fi
}
