#!/usr/bin/env bash
# tests/test_install.sh: `cmake --install` of this build into a scratch prefix, checked: the
# files in place, libspx.so exporting exactly the functions the installed headers declare, the
# installed CLI running, and tests/install/main.c built outside the tree against the install
# four ways (find_package with spx::spx and spx::spx_static; pkg-config, shared and --static)
# and run. Needs pkg-config, nm, readelf and ldd (exit 77, a skip, naming the missing one).
# Usage: test_install.sh BUILD_DIR SOURCE_DIR C_COMPILER CMAKE
set -u
build=$1; source=$2; cc=$3; cmake=$4
for tool in pkg-config nm readelf ldd; do
  command -v "$tool" >/dev/null 2>&1 || { echo "SKIP: $tool not found (scripts/deps.sh installs it)"; exit 77; }
done
. "$(dirname "$0")/cli_lib.sh"
prefix=$tmp/prefix

# run_ok NAME CMD...: CMD exits 0; its output is kept in $tmp/NAME.log and shown on failure
run_ok() {
  local name=$1; shift
  if "$@" >"$tmp/$name.log" 2>&1; then ok; else bad "$name: $*"; sed 's/^/  /' "$tmp/$name.log" >&2; fi
}
# app_ok NAME BINARY: BINARY runs, exits 0 and prints the check's verdict
app_ok() {
  run_ok "$1" "$2"
  if grep -q '^install check: ok: libspx ' "$tmp/$1.log"; then ok; else bad "$1: no 'install check: ok' line"; fi
}
# links_shared BINARY YES|NO: whether BINARY needs libspx.so; when it does, the loader finds
# the installed one (no other copy on the path)
links_shared() {
  [ -x "$1" ] || { bad "$1 was not built"; return; }
  if readelf -d "$1" | grep -q 'NEEDED.*\[libspx\.so'; then
    [ "$2" = YES ] && ok || bad "$1 needs libspx.so but should have libspx.a linked in"
    local found
    found=$(ldd "$1" | sed -n 's/^[[:space:]]*libspx\.so[^ ]* => \([^ ]*\) .*/\1/p')
    if [ -n "$found" ] && [ "$(dirname "$(realpath "$found")")" = "$(realpath "$libdir")" ]; then ok
    else bad "$1 loads libspx.so from '$found', not from $libdir"; fi
  else
    [ "$2" = NO ] && ok || bad "$1 does not need libspx.so"
  fi
}

run_ok install "$cmake" --install "$build" --prefix "$prefix"
pc=$(find "$prefix" -path '*/pkgconfig/spx.pc' | head -n 1)
[ -n "$pc" ] && ok || { bad "no pkgconfig/spx.pc under $prefix"; report; exit 1; }
libdir=$(dirname "$(dirname "$pc")")
version=$(sed -n 's/^#define SPX_VERSION "\(.*\)"$/\1/p' "$prefix/include/spx/spx.h")
[ -n "$version" ] && ok || bad "installed spx.h has no SPX_VERSION"

# The files: every public header, both libraries (the shared one with its SONAME links), the
# CLI as `spx`, the CMake package and spx.pc.
for h in "$source"/include/spx/*.h; do
  cmp -s "$h" "$prefix/include/spx/$(basename "$h")" && ok || bad "header $(basename "$h") not installed as is"
done
for f in "$libdir/libspx.a" "$libdir/libspx.so" "$libdir/cmake/spx/spxConfig.cmake" \
         "$libdir/cmake/spx/spxConfigVersion.cmake" "$libdir/cmake/spx/spxTargets.cmake" "$prefix/bin/spx"; do
  [ -e "$f" ] && ok || bad "not installed: ${f#"$prefix"/}"
done
soname=$(readelf -d "$libdir/libspx.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
case $soname in libspx.so.*) [ -e "$libdir/$soname" ] && ok || bad "no $soname beside libspx.so" ;;
                *) bad "libspx.so has SONAME '$soname'" ;; esac
[ "$(realpath "$libdir/libspx.so")" = "$(realpath "$libdir/libspx.so.$version")" ] && ok \
  || bad "libspx.so is not libspx.so.$version"

# The shared library's dynamic symbols are the public API: every function declared in the
# installed headers (a declaration starts its line), and nothing else.
grep -hE '^[a-z].*\bspx_[a-z0-9_]+\(' "$prefix"/include/spx/*.h | grep -v '^typedef' \
  | grep -oE '\bspx_[a-z0-9_]+\(' | tr -d '(' | LC_ALL=C sort -u >"$tmp/declared"
nm -D --defined-only "$libdir/libspx.so" | awk '{print $3}' | LC_ALL=C sort -u >"$tmp/exported"
n_declared=$(wc -l <"$tmp/declared")
[ "$n_declared" -ge 50 ] && ok || bad "only $n_declared function declarations found in the headers"
if cmp -s "$tmp/declared" "$tmp/exported"; then ok; else
  bad "libspx.so's exports differ from the headers' functions (< declared only, > exported only):"
  diff "$tmp/declared" "$tmp/exported" | grep '^[<>]' | head -n 20 >&2
fi

# The installed CLI.
run_ok cli_version "$prefix/bin/spx" --version
grep -q "^spx $version " "$tmp/cli_version.log" && ok || bad "spx --version: $(cat "$tmp/cli_version.log")"
run_ok cli_info "$prefix/bin/spx" info gen:poisson2d:n=10
grep -qE '^nnz +460$' "$tmp/cli_info.log" && ok || bad "spx info: no 'nnz 460' line"

# find_package: a project of its own outside the tree (a copy of tests/install), the install
# its only prefix; spx_DIR must be the installed package's folder.
mkdir "$tmp/src"
cp "$source/tests/install/CMakeLists.txt" "$source/tests/install/main.c" "$tmp/src/"
run_ok cmake_configure "$cmake" -S "$tmp/src" -B "$tmp/cmake-build" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_COMPILER="$cc" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
spx_dir=$(sed -n 's/^spx_DIR:PATH=//p' "$tmp/cmake-build/CMakeCache.txt" 2>/dev/null)
[ "$(realpath "$spx_dir" 2>/dev/null)" = "$(realpath "$libdir/cmake/spx")" ] && ok \
  || bad "find_package found spx in '$spx_dir', not in $libdir/cmake/spx"
run_ok cmake_build "$cmake" --build "$tmp/cmake-build"
app_ok cmake_shared "$tmp/cmake-build/app_shared"
links_shared "$tmp/cmake-build/app_shared" YES
app_ok cmake_static "$tmp/cmake-build/app_static"
links_shared "$tmp/cmake-build/app_static" NO

# pkg-config: `cc $(pkg-config --cflags --libs spx)` with the library found at run time through
# an rpath to its libdir; then libspx.a with --static's Libs.private (-lspx named as the
# archive, which the linker would otherwise pass over for libspx.so).
export PKG_CONFIG_PATH="$libdir/pkgconfig"
pc_version=$(pkg-config --modversion spx 2>&1)
[ "$pc_version" = "$version" ] && ok || bad "pkg-config --modversion spx: $pc_version, not $version"
[ "$(realpath "$(pkg-config --variable=libdir spx)")" = "$(realpath "$libdir")" ] && ok \
  || bad "spx.pc's libdir $(pkg-config --variable=libdir spx) is not $libdir"
read -r -a cflags <<<"$(pkg-config --cflags spx)"
read -r -a libs <<<"$(pkg-config --libs spx)"
read -r -a static_libs <<<"$(pkg-config --static --libs spx)"
for i in "${!static_libs[@]}"; do [ "${static_libs[$i]}" = -lspx ] && static_libs[$i]=-l:libspx.a; done
# a dependency named by its full path outside the system's folders (METIS in .device/metis on
# the GPU machine) needs a run path in the program, as any static link against it would
for l in "${static_libs[@]}"; do
  case $l in
    /*.so | /*.so.*) static_libs+=("-Wl,-rpath,$(dirname "$l")") ;;
    -L/*) static_libs+=("-Wl,-rpath,${l#-L}") ;;
  esac
done
run_ok pc_build_shared "$cc" -o "$tmp/pc_shared" "$tmp/src/main.c" "${cflags[@]}" "${libs[@]}" \
  -Wl,-rpath,"$(pkg-config --variable=libdir spx)"
app_ok pc_shared "$tmp/pc_shared"
links_shared "$tmp/pc_shared" YES
run_ok pc_build_static "$cc" -o "$tmp/pc_static" "$tmp/src/main.c" "${cflags[@]}" "${static_libs[@]}"
app_ok pc_static "$tmp/pc_static"
links_shared "$tmp/pc_static" NO

report
