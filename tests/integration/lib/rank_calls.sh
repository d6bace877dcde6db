# Sourced by the integration tests that wait for the ranks of a running job to be in a given MPI
# call, as `yadokari status --json` shows it. Needs: $yadokari, $np, $job (the job's pid).

# calls_now: every rank's current call, "rank:call" sorted by rank.
calls_now() {
    "$yadokari" status --json 2>/dev/null | /usr/bin/python3 -c '
import json, sys
ranks = sorted(json.load(sys.stdin)["ranks"], key=lambda r: r["rank"])
print(" ".join("%d:%s" % (r["rank"], r["current_call"]) for r in ranks))' 2>/dev/null
}

# wait_for_calls WANT...: until rank i shows the i-th WANT ("*": any call), or every rank the one
# WANT given (600 looks, 0.1 s apart; the job must still run).
wait_for_calls() {
    local -a wants=("$@")
    local r got
    for _ in $(seq 600); do
        kill -0 "$job" 2>/dev/null || return 1
        got=" $(calls_now) "
        local all=1
        for ((r = 0; r < np; r++)); do
            local want="${wants[0]}"
            ((${#wants[@]} > 1)) && want="${wants[r]}"
            [[ "$want" == "*" ]] && { [[ "$got" == *" $r:"* ]] || all=0; continue; }
            [[ "$got" == *" $r:$want "* ]] || all=0
        done
        ((all)) && return 0
        sleep 0.1
    done
    return 1
}
