# shellcheck shell=bash
# Sourced by the benches that start one fakeprovider at a time on ephemeral loopback ports
# (bench/clients/run.sh, bench/sdk/run.sh). Needs $provider (the binary); sets fp_pid, base
# (the data plane's URL) and admin (the admin API's).

# start_provider LOG ARRIVALS_CSV [FLAGS...]: starts it, its output to LOG, its arrival log to
# ARRIVALS_CSV on exit, and waits until it says where it listens.
start_provider() {
  local log=$1 arrivals=$2
  shift 2
  "$provider" --listen 127.0.0.1:0 --admin-listen 127.0.0.1:0 --arrivals-out "$arrivals" \
    "$@" >"$log" 2>&1 &
  fp_pid=$!
  for _ in $(seq 1 500); do
    grep -q '^admin on ' "$log" && break
    kill -0 "$fp_pid" 2>/dev/null || break
    sleep 0.01
  done
  base=$(sed -n 's/^listening on //p' "$log")
  admin=$(sed -n 's/^admin on //p' "$log")
  [ -n "$base" ] && [ -n "$admin" ] || { echo "fakeprovider did not start:" >&2; cat "$log" >&2; exit 1; }
}

# SIGTERM makes fakeprovider write its arrival log and exit.
stop_provider() {
  kill -TERM "$fp_pid"
  wait "$fp_pid" || true
  fp_pid=
}
