#!/usr/bin/env bash
# Where a build's time goes: configures a fresh tree (no ccache), builds it with every compile
# and link timed, then prints the whole build's CPU and wall time, the slowest translation
# units and links, and the compile CPU by target.
#   bench/build/profile.sh [BUILD_DIR] [-- CMAKE_FLAGS...]
# BUILD_DIR defaults to a new temporary directory (removed afterwards); TOP (default 15) rows
# in each list; JOBS (default nproc) parallel steps. `make build-profile` runs it on a
# Release tree with the tests, as `make test` builds it.
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
here=$src/bench/build
build=${1:-}
[ $# -gt 0 ] && shift
[ "${1:-}" = -- ] && shift
keep=1
if [ -z "$build" ]; then
  build=$(mktemp -d /tmp/stampede-build-profile.XXXXXX)
  keep=0
fi
if [ -e "$build/CMakeCache.txt" ]; then
  echo "profile.sh: $build already holds a build tree; give a new or empty directory" >&2
  exit 2
fi
TOP=${TOP:-15}
JOBS=${JOBS:-$(nproc)}
log=$build/step-times.log
mkdir -p "$build"
: >"$log"
export STAMPEDE_BUILD_LOG=$log CCACHE_DISABLE=1
echo "profile: configuring $build" >&2
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
cmake -S "$src" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON \
  -DCMAKE_CXX_COMPILER_LAUNCHER="$here/time-step.sh" \
  -DCMAKE_CXX_LINKER_LAUNCHER="$here/time-step.sh" "$@" >/dev/null
echo "profile: building with $JOBS jobs (a fresh tree takes minutes)" >&2
if ! /usr/bin/time -f '%U %S %e' -o "$build/whole.time" cmake --build "$build" -j "$JOBS" \
  >"$build/build.log" 2>&1; then
  tail -n 30 "$build/build.log" >&2
  echo "profile.sh: the build failed (whole log: $build/build.log)" >&2
  exit 1
fi
read -r user sys wall <"$build/whole.time"
python3 - "$log" "$build" "$TOP" "$user" "$sys" "$wall" <<'PY'
import collections, os, re, sys
log, build, top = sys.argv[1], sys.argv[2], int(sys.argv[3])
user, sys_, wall = map(float, sys.argv[4:7])
compiles, links = [], []
for line in open(log):
    u, s, r, out = line.split(maxsplit=3)
    out = out.strip()
    (compiles if out.endswith('.o') else links).append((float(u) + float(s), float(r), out))

def target_and_source(obj):
    # CMake names an object .../CMakeFiles/<target>.dir/<source path>.o
    m = re.search(r'CMakeFiles/([^/]+)\.dir/(.*)\.o$', obj)
    return (m.group(1), m.group(2)) if m else ('?', obj)

cc = sum(c for c, _, _ in compiles)
print(f"whole build: {user + sys_:.0f} s CPU (user {user:.0f} + sys {sys_:.0f}), {wall:.0f} s wall")
print(f"  {len(compiles)} compiles: {cc:.0f} s CPU; {len(links)} links: {sum(r for _, r, _ in links):.0f} s wall;"
      f" configure-time steps, archives, links and case registration: {user + sys_ - cc:.0f} s CPU")
print(f"\nslowest {top} translation units (CPU s):")
for c, _, out in sorted(compiles, reverse=True)[:top]:
    t, src = target_and_source(out)
    print(f"  {c:7.1f}  {t}: {src}")
# mold forks and leaves its work to a child the launcher cannot time: links are wall seconds.
print(f"\nslowest {top} links (wall s):")
for _, r, out in sorted(links, key=lambda row: -row[1])[:top]:
    print(f"  {r:7.1f}  {os.path.basename(out)}")
by = collections.defaultdict(lambda: [0.0, 0])
for c, _, out in compiles:
    t, _ = target_and_source(out)
    by[t][0] += c
    by[t][1] += 1
print("\ncompile CPU by target:")
for t, (c, n) in sorted(by.items(), key=lambda kv: -kv[1][0]):
    print(f"  {c:7.1f}  {n:4d} TUs  {c / n:5.1f} s each  {t}")
PY
[ "$keep" = 1 ] || rm -rf "$build"
