#!/usr/bin/env bash
# bench/peers/build.sh SRC_DIR OUT_DIR [SPX_BUILD_DIR]: builds the public peers for sm_90 (SPX_PEERS_ARCH
# to change it) from their sources in SRC_DIR (SRC_DIR/dasp, speck, opsparse, nsparse, as
# bench/peers/fetch.sh makes them; never committed here): each copied to OUT_DIR/src, our patches
# (bench/peers/patches/<peer>/*.patch, in order) applied, built with nvcc into OUT_DIR/<name>
# (dasp, speck, speck-h100, opsparse, nsparse), logs in OUT_DIR/logs, and what was built (repository,
# commit, patches, flags, seconds, or why not) in OUT_DIR/BUILD_INFO.json. A missing source or a failed
# build is reported and the others go on. With SPX_BUILD_DIR (a build of spx holding libspx.so),
# OUT_DIR/spx_export is built too. SPX_PEERS_ONLY (a space list of names) builds those alone (empty:
# none, e.g. spx_export beside binaries built elsewhere, whose records BUILD_INFO.json keeps).
# Exit status: 0 when every peer asked for whose source is present was built, 1 otherwise.
set -uo pipefail
[ $# -ge 2 ] || { echo "usage: bench/peers/build.sh SRC_DIR OUT_DIR [SPX_BUILD_DIR]" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
mkdir -p "$2/src" "$2/logs" || exit 2
src=$(cd "$1" 2>/dev/null && pwd) || src=$1
out=$(cd "$2" && pwd)
spx_build=${3:+$(cd "$3" && pwd)}
arch=${SPX_PEERS_ARCH:-90}
gencode="-gencode arch=compute_$arch,code=sm_$arch"
inc=$here/include
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
only=${SPX_PEERS_ONLY-dasp speck speck-h100 opsparse nsparse}
# The H100's (and H200's) opt-in shared memory per block: cudaDevAttrMaxSharedMemoryPerBlockOptin.
h100_shared=232448

# One line of peers.txt: name source repository branch commit.
peer_line() { grep -E "^$1[[:space:]]" "$here/peers.txt"; }

# The commit of a source folder: its git HEAD, else its PEER_COMMIT file (an exported snapshot).
source_commit() {
  git -C "$1" rev-parse HEAD 2>/dev/null && return
  [ -f "$1/PEER_COMMIT" ] && awk '{print $NF}' "$1/PEER_COMMIT" && return
  echo unknown
}

# prepare SOURCE: a fresh copy of SRC_DIR/SOURCE in OUT_DIR/src with our patches applied.
prepare() {
  local s=$1 p
  rm -rf "$out/src/$s" && cp -r "$src/$s" "$out/src/$s" || return 1
  for p in "$here/patches/$s"/*.patch; do
    [ -e "$p" ] || continue
    if command -v patch >/dev/null; then
      patch -p1 --forward --quiet -d "$out/src/$s" <"$p"
    else # git apply works outside a repository too (where patch is not installed)
      (cd "$out/src/$s" && git apply -p1 "$p")
    fi || { echo "patch $(basename "$p") failed"; return 1; }
  done
}

build_dasp() {
  local d=$out/src/dasp
  flags="-O3 $gencode -D f64 -Xcompiler -fopenmp-simd -lcusparse -lcublas"
  # shellcheck disable=SC2086 # (flags are words)
  "$nvcc" $flags -I"$inc" "$d/src/main_f64.cu" -o "$out/dasp"
}

# build_speck NAME DYNAMIC_SHARED_BYTES: spECK with that much dynamic shared memory per block.
build_speck() {
  local d=$out/src/speck b=$out/src/speck/build-$1
  flags="cmake Release, CMAKE_CUDA_FLAGS=$gencode -DSPX_SPECK_DYNAMIC_MEM=$2"
  cmake -S "$d" -B "$b" -DCMAKE_BUILD_TYPE=Release -DCUDA_BUILD_CC86=OFF -DCUDA_BUILD_CC90=OFF \
    -DCMAKE_CUDA_COMPILER="$nvcc" -DSPX_PEER_INCLUDE="$inc" -DCMAKE_CUDA_FLAGS="$gencode -DSPX_SPECK_DYNAMIC_MEM=$2" \
    -DCMAKE_CXX_FLAGS="-DSPX_SPECK_DYNAMIC_MEM=$2" &&
    cmake --build "$b" -j"$(nproc)" && cp "$b/runspECK" "$out/$1"
}

build_opsparse() {
  local d=$out/src/opsparse/OpSparse
  flags="make reg_opsparse GENCODE='$gencode' (-O3 -Xcompiler -fopenmp)"
  make -C "$d" reg_opsparse NVCC="$nvcc" GENCODE="$gencode" INCLUDE="-I./inc -I$inc" && cp "$d/reg_opsparse" "$out/opsparse"
}

build_nsparse() {
  local d=$out/src/nsparse/cuda-cpp
  flags="-O3 -DDOUBLE $gencode -lcusparse (sample/spgemm/spgemm_hash.cu)"
  # shellcheck disable=SC2086
  "$nvcc" -O3 -DDOUBLE $gencode -I"$d/inc" -I"$inc" -o "$out/nsparse" "$d/sample/spgemm/spgemm_hash.cu" -lcusparse
}

# build NAME: builds one peer from its prepared source, writing OUT_DIR/logs/NAME.json.
build() {
  local name=$1 line s rep br want t0 status=built flags=""
  line=$(peer_line "$name") || { echo "$name: not in peers.txt"; return 1; }
  read -r _ s rep br want <<<"$line"
  local log=$out/logs/$name.log info=$out/logs/$name.json
  t0=$SECONDS
  if [ ! -d "$src/$s" ]; then
    status="missing: no $src/$s (bench/peers/fetch.sh)"
  elif [ -e "$out/logs/prepare-$s.failed" ]; then
    status="failed: a patch did not apply (see logs/prepare-$s.log)"
  else
    case $name in
      dasp) build_dasp ;;
      speck) build_speck speck 49152 ;;
      speck-h100) build_speck speck-h100 "$h100_shared" ;;
      opsparse) build_opsparse ;;
      nsparse) build_nsparse ;;
    esac >"$log" 2>&1 || status="failed (see logs/$name.log)"
  fi
  local have=unknown patches
  [ -d "$src/$s" ] && have=$(source_commit "$src/$s")
  patches=$(cd "$here/patches/$s" 2>/dev/null && for p in *.patch; do [ -e "$p" ] && printf '"%s %s", ' "$p" "$(sha256sum "$p" | cut -c1-12)"; done)
  printf '{"name": "%s", "repository": "%s", "branch": "%s", "commit": "%s", "patched_against": "%s", "patches": [%s], "flags": "%s", "status": "%s", "seconds": %d}\n' \
    "$name" "$rep" "$br" "$have" "$want" "${patches%, }" "${flags//\"/\'}" "$status" $((SECONDS - t0)) >"$info"
  echo "$name: $status ($((SECONDS - t0)) s)"
  [ "$status" = built ] || [[ $status == missing* ]] # a missing source is reported, not an error
}

[ -d "$src" ] || [ -z "$only" ] || echo "note: no source folder $src: every peer is missing" >&2
echo "nvcc: $("$nvcc" --version | tail -1); arch sm_$arch; sources $src -> $out"
for name in $only; do rm -f "$out/logs/$name.json"; done
rm -f "$out"/logs/prepare-*.failed
# every source copied and patched once (speck serves two builds), then all built at once
for s in $(for name in $only; do peer_line "$name" | awk '{print $2}'; done | sort -u); do
  [ -d "$src/$s" ] || continue
  prepare "$s" >"$out/logs/prepare-$s.log" 2>&1 || touch "$out/logs/prepare-$s.failed"
done
rc=0
pids=()
for name in $only; do
  build "$name" &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || rc=1; done

if [ -n "$spx_build" ]; then
  if cc -O2 -std=c11 -Wall -I"$repo/include" "$here/spx_export.c" -L"$spx_build" -lspx -Wl,-rpath,"$spx_build" \
    -o "$out/spx_export" >"$out/logs/spx_export.log" 2>&1; then
    echo "spx_export: built against $spx_build"
  else
    echo "spx_export: failed (see logs/spx_export.log)"; rc=1
  fi
fi
{ echo '{"nvcc": "'"$("$nvcc" --version | tail -1)"'", "arch": "sm_'"$arch"'", "peers": ['
  first=1
  for f in "$out"/logs/*.json; do [ -e "$f" ] || continue; [ $first = 1 ] || echo ","; first=0; cat "$f"; done
  echo ']}'; } >"$out/BUILD_INFO.json"
exit $rc
