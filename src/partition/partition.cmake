# src/partition/partition.cmake: METIS 5.1 for the graph partitioner (src/partition: the ehyb
# format's default partitioner, the distributed module's metis partition). Looks in
# the tree's .device/metis (Debian's libmetis5 + libmetis-dev unpacked with dpkg -x, carried to
# the GPU machine, which cannot install packages) and in the system paths; links it to spx
# (a full library path, so CMake's build RPATH finds it at run time) and sets SPX_HAVE_METIS
# to 1, or to 0 when missing (ehyb's `available` then says why; its algorithm bfs still runs;
# the distributed module's metis partition refuses with the reason).
# -DSPX_ENABLE_METIS=OFF builds without it even where it is installed (to test that build).
option(SPX_ENABLE_METIS "Use METIS when found (ehyb's default partitioner, the distributed metis partition)" ON)
if(SPX_ENABLE_METIS)
  find_path(SPX_METIS_INCLUDE_DIR metis.h
    HINTS ${CMAKE_SOURCE_DIR}/.device/metis/usr/include)
  find_library(SPX_METIS_LIBRARY NAMES metis
    HINTS ${CMAKE_SOURCE_DIR}/.device/metis/usr/lib/x86_64-linux-gnu)
endif()
if(SPX_ENABLE_METIS AND SPX_METIS_INCLUDE_DIR AND SPX_METIS_LIBRARY)
  target_include_directories(spx PRIVATE ${SPX_METIS_INCLUDE_DIR})
  target_link_libraries(spx PRIVATE ${SPX_METIS_LIBRARY})
  target_compile_definitions(spx PRIVATE SPX_HAVE_METIS=1)
  # outside the system's library folders (the GPU machine's .device/metis): the installed
  # libspx.so and spx must find it at run time too (SPX_FORMAT_RPATH, CMakeLists.txt)
  get_filename_component(SPX_METIS_DIR ${SPX_METIS_LIBRARY} DIRECTORY)
  if(NOT SPX_METIS_DIR IN_LIST CMAKE_C_IMPLICIT_LINK_DIRECTORIES)
    list(APPEND SPX_FORMAT_RPATH ${SPX_METIS_DIR})
  endif()
  message(STATUS "spx: partition: METIS ${SPX_METIS_LIBRARY}")
else()
  target_compile_definitions(spx PRIVATE SPX_HAVE_METIS=0)
  set(spx_metis_why "not found (install libmetis-dev)")
  if(NOT SPX_ENABLE_METIS)
    set(spx_metis_why "disabled (-DSPX_ENABLE_METIS=OFF)")
  endif()
  message(STATUS "spx: partition: METIS ${spx_metis_why}; ehyb's metis algorithm and the distributed metis partition are not built")
endif()
