#!/usr/bin/env bash
# scripts/mpi-bundle.sh [DEST]: packs this machine's OpenMPI (Debian's, from scripts/deps.sh)
# into DEST (default .device/openmpi) so that it travels to the GPU machine, which cannot
# install packages (as .device/metis does for METIS): OpenMPI's prefix tree (binaries,
# headers, libraries and plugins, help files, configuration), PMIx's plugins, and the shared
# libraries they load that a base Debian system lacks. DEST/env.sh points OpenMPI and PMIx at
# their relocated trees (OPAL_PREFIX and friends, PMIX_INSTALL_PREFIX), puts mpiexec on PATH
# and the libraries on LD_LIBRARY_PATH; src/dist/dist.cmake finds DEST/usr/... on its own.
# Use there: `source .device/openmpi/env.sh` before cmake, ctest or mpiexec.
set -euo pipefail
cd "$(dirname "$0")/.."
dest=${1:-.device/openmpi}
arch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
ompi=/usr/lib/$arch/openmpi
pmix=/usr/lib/$arch/pmix2
[ -d "$ompi" ] && [ -x /usr/bin/orterun ] || { echo "mpi-bundle: no Debian OpenMPI here (bash scripts/deps.sh)" >&2; exit 1; }
rm -rf "$dest"
mkdir -p "$dest/usr/bin" "$dest/usr/lib/$arch" "$dest/usr/share" "$dest/etc" "$dest/lib"
cp -aL "$ompi" "$dest/usr/lib/$arch/"                 # include/, lib/ (libmpi.so, plugins)
[ -d "$pmix" ] && cp -aL "$pmix" "$dest/usr/lib/$arch/"
cp -aL /usr/share/openmpi "$dest/usr/share/"
cp -aL /etc/openmpi "$dest/etc/"
for b in orterun orted ompi_info; do cp -aL "/usr/bin/$b" "$dest/usr/bin/"; done
ln -s orterun "$dest/usr/bin/mpiexec"
ln -s orterun "$dest/usr/bin/mpirun"
# the libraries the binaries, libmpi and every plugin load, but glibc's, the compiler
# runtime's and zlib (present on any Debian system the project builds on)
keep='^(libc|libm|libdl|libpthread|librt|libresolv|ld-linux[^ ]*|libgcc_s|libstdc\+\+|libz)\.so'
find "$dest" -type f \( -name '*.so*' -o -perm -u+x \) -print0 | xargs -0 ldd 2>/dev/null |
  awk '$2 == "=>" && $3 ~ /^\// {print $3}' | sort -u | while read -r lib; do
    case $lib in "$PWD/$dest"/*|"$dest"/*) continue ;; esac
    base=$(basename "$lib")
    [[ $base =~ $keep ]] && continue
    [ -e "$dest/lib/$base" ] || cp -L "$lib" "$dest/lib/$base"
  done
cat >"$dest/env.sh" <<ENV
# $dest/env.sh (written by scripts/mpi-bundle.sh): the relocated OpenMPI of this tree.
b=\$(cd "\$(dirname "\${BASH_SOURCE[0]}")" && pwd)
export OPAL_PREFIX=\$b/usr OPAL_EXEC_PREFIX=\$b/usr OPAL_BINDIR=\$b/usr/bin OPAL_LIBDIR=\$b/usr/lib/$arch/openmpi/lib
export OPAL_INCLUDEDIR=\$b/usr/lib/$arch/openmpi/include OPAL_DATAROOTDIR=\$b/usr/share OPAL_DATADIR=\$b/usr/share
export OPAL_PKGDATADIR=\$b/usr/share/openmpi OPAL_SYSCONFDIR=\$b/etc/openmpi
export OPAL_PKGLIBDIR=\$b/usr/lib/$arch/openmpi/lib/openmpi3 OPAL_LIBEXECDIR=\$b/usr/libexec
export PMIX_INSTALL_PREFIX=\$b/usr/lib/$arch/pmix2 PMIX_MCA_mca_base_component_path=\$b/usr/lib/$arch/pmix2/lib/pmix
export OMPI_MCA_mca_base_component_path=\$b/usr/lib/$arch/openmpi/lib/openmpi3
export PATH=\$b/usr/bin:\$PATH
export LD_LIBRARY_PATH=\$b/lib:\$b/usr/lib/$arch/openmpi/lib:\$b/usr/lib/$arch/pmix2/lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
ENV
du -sh "$dest"
echo "mpi-bundle: $dest ready; on the GPU machine: source $dest/env.sh"
