# src/dist/dist.cmake: the optional distributed module (MPI). When find_package(MPI) finds a C
# MPI (Debian's OpenMPI from scripts/deps.sh; MPICH should do, untried), it builds libspx_dist, a
# static library of src/dist/*.c over libspx (whose internals it uses: the reader's stages,
# the solvers' space) and MPI::MPI_C, and compiles the CLI's --distributed commands
# (tools/dist/cmd_dist.c) into spx, which then links MPI. Without MPI, libspx and the CLI build
# as before: tools/dist/cmd_dist_stub.c answers --distributed and `spx --version` with "not
# built: <why>", and the tests (tests/dist/) skip with that reason. libspx itself never
# needs MPI. Sets SPX_HAVE_MPI, SPX_DIST_WHY and, for the tests, SPX_MPIEXEC.
option(SPX_ENABLE_MPI "Build the distributed module when MPI is found" ON)
set(SPX_HAVE_MPI OFF)
set(SPX_DIST_WHY "MPI not found (install libopenmpi-dev and openmpi-bin, or MPICH)")
if(SPX_ENABLE_MPI)
  # The GPU machine cannot install packages: an OpenMPI carried in .device/openmpi
  # (scripts/mpi-bundle.sh; `source .device/openmpi/env.sh` first) is used as found there,
  # bypassing the compiler wrapper, unless an MPI was named on the command line (its
  # libraries, or its compiler wrapper: -DMPI_C_COMPILER=mpicc.mpich for MPICH).
  set(spx_mpi_bundle ${CMAKE_SOURCE_DIR}/.device/openmpi)
  if(EXISTS ${spx_mpi_bundle}/env.sh AND NOT MPI_C_LIBRARIES AND NOT MPI_C_COMPILER)
    file(GLOB spx_mpi_inc ${spx_mpi_bundle}/usr/lib/*/openmpi/include)
    file(GLOB spx_mpi_lib ${spx_mpi_bundle}/usr/lib/*/openmpi/lib/libmpi.so)
    set(MPI_C_ADDITIONAL_INCLUDE_DIRS ${spx_mpi_inc})
    set(MPI_C_LIBRARIES ${spx_mpi_lib})
    set(MPIEXEC_EXECUTABLE ${spx_mpi_bundle}/usr/bin/mpiexec)
    message(STATUS "spx: MPI from ${spx_mpi_bundle} (scripts/mpi-bundle.sh)")
  endif()
  find_package(MPI COMPONENTS C QUIET)
  if(MPI_C_FOUND AND MPIEXEC_EXECUTABLE)
    set(SPX_HAVE_MPI ON)
  elseif(MPI_C_FOUND)
    set(SPX_DIST_WHY "MPI found, but no mpiexec to run it (install openmpi-bin)")
  endif()
else()
  set(SPX_DIST_WHY "disabled (-DSPX_ENABLE_MPI=OFF)")
endif()

if(SPX_HAVE_MPI)
  file(GLOB SPX_DIST_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*.c)
  list(FILTER SPX_DIST_SOURCES EXCLUDE REGEX "_stub\\.c$")
  add_library(spx_dist STATIC ${SPX_DIST_SOURCES})
  target_link_libraries(spx_dist PUBLIC spx MPI::MPI_C)
  target_include_directories(spx_dist PRIVATE ${PROJECT_SOURCE_DIR}/src)
  target_compile_options(spx_dist PRIVATE $<$<COMPILE_LANGUAGE:C>:${SPX_WARNINGS}>)
  # The NCCL transport (dist_nccl.cu) when CUDA is built and NCCL found (it ships with the CUDA
  # toolkit here); else dist_nccl_stub.c refuses it with the reason.
  set(SPX_NCCL_WHY "CUDA is not built")
  if(SPX_HAVE_CUDA)
    find_path(SPX_NCCL_INCLUDE_DIR nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS})
    find_library(SPX_NCCL_LIBRARY nccl HINTS ${CUDAToolkit_LIBRARY_DIR})
    set(SPX_NCCL_WHY "NCCL not found (nccl.h and libnccl beside the CUDA toolkit)")
  endif()
  if(SPX_HAVE_CUDA AND SPX_NCCL_INCLUDE_DIR AND SPX_NCCL_LIBRARY)
    target_sources(spx_dist PRIVATE ${CMAKE_CURRENT_LIST_DIR}/dist_nccl.cu)
    target_include_directories(spx_dist PRIVATE ${SPX_NCCL_INCLUDE_DIR})
    target_link_libraries(spx_dist PUBLIC ${SPX_NCCL_LIBRARY})
    message(STATUS "spx: distributed NCCL transport built (${SPX_NCCL_LIBRARY})")
  else()
    target_sources(spx_dist PRIVATE ${CMAKE_CURRENT_LIST_DIR}/dist_nccl_stub.c)
    set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/dist_nccl_stub.c PROPERTIES
      COMPILE_DEFINITIONS "SPX_NCCL_WHY=\"${SPX_NCCL_WHY}\"")
    message(STATUS "spx: distributed NCCL transport not built: ${SPX_NCCL_WHY}")
  endif()
  set(SPX_MPIEXEC ${MPIEXEC_EXECUTABLE})
  target_sources(spx_cli PRIVATE ${PROJECT_SOURCE_DIR}/tools/dist/cmd_dist.c)
  target_link_libraries(spx_cli PRIVATE spx_dist)
  message(STATUS "spx: distributed module built (MPI ${MPI_C_VERSION}, ${MPIEXEC_EXECUTABLE})")
else()
  target_sources(spx_cli PRIVATE ${PROJECT_SOURCE_DIR}/tools/dist/cmd_dist_stub.c)
  set_source_files_properties(${PROJECT_SOURCE_DIR}/tools/dist/cmd_dist_stub.c PROPERTIES
    COMPILE_DEFINITIONS "SPX_DIST_WHY=\"${SPX_DIST_WHY}\"")
  message(STATUS "spx: distributed module not built: ${SPX_DIST_WHY}")
endif()
target_include_directories(spx_cli PRIVATE ${PROJECT_SOURCE_DIR}/tools)
