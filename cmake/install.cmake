# cmake/install.cmake: the install rules: public headers, libspx.so and libspx.a, the spx CLI,
# the CMake package and spx.pc.
include(CMakePackageConfigHelpers)

# spx.h's SPX_VERSION is the version the package, spx.pc and the SOVERSION carry.
file(STRINGS ${PROJECT_SOURCE_DIR}/include/spx/spx.h spx_h_version REGEX "^#define SPX_VERSION ")
if(NOT spx_h_version STREQUAL "#define SPX_VERSION \"${PROJECT_VERSION}\"")
  message(FATAL_ERROR "include/spx/spx.h has '${spx_h_version}', project() says ${PROJECT_VERSION}")
endif()

# (include/spx/dist/ is the optional MPI module's, whose libspx_dist is not installed yet.)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/spx DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h" PATTERN "dist" EXCLUDE)
install(TARGETS spx spx_shared EXPORT spxTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS spx_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# The CMake package: spxConfig.cmake finds what libspx.a's link interface names (libspx.so
# needs nothing from its users) and includes the exported targets.
set(spx_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/spx)
install(EXPORT spxTargets NAMESPACE spx:: DESTINATION ${spx_cmake_dir})
if(ZLIB_FOUND)
  set(SPX_CONFIG_ZLIB ON)
else()
  set(SPX_CONFIG_ZLIB OFF)
endif()
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/spxConfig.cmake.in
  ${PROJECT_BINARY_DIR}/spxConfig.cmake INSTALL_DESTINATION ${spx_cmake_dir})
if(PROJECT_VERSION_MAJOR EQUAL 0) # as the SOVERSION: 0.x minor releases are incompatible
  set(spx_compat SameMinorVersion)
else()
  set(spx_compat SameMajorVersion)
endif()
write_basic_package_version_file(${PROJECT_BINARY_DIR}/spxConfigVersion.cmake
  COMPATIBILITY ${spx_compat})
install(FILES ${PROJECT_BINARY_DIR}/spxConfig.cmake ${PROJECT_BINARY_DIR}/spxConfigVersion.cmake
        DESTINATION ${spx_cmake_dir})

# spx.pc's Libs.private: what libspx.a's users must link, as linker flags: spx's
# INTERFACE_LINK_LIBRARIES (for a static library its PUBLIC, INTERFACE and, as $<LINK_ONLY:...>,
# PRIVATE dependencies, the format.cmake fragments' included) with imported targets resolved to
# their files and their own dependencies; a library file becomes -L<dir> -l<name>. Another
# generator expression cannot be resolved here and is left out with a warning
# (tests/test_install.sh links the static library through spx.pc, so a missing flag fails it).
function(spx_link_flags out)
  set(todo ${ARGN})
  set(seen)
  set(flags)
  while(todo)
    list(POP_FRONT todo item)
    if(item MATCHES "^\\$<LINK_ONLY:(.*)>$")
      set(item ${CMAKE_MATCH_1})
    endif()
    if(item IN_LIST seen)
      continue()
    endif()
    list(APPEND seen ${item})
    if(TARGET ${item})
      set(loc)
      get_target_property(type ${item} TYPE)
      if(NOT type STREQUAL "INTERFACE_LIBRARY")
        get_target_property(loc ${item} IMPORTED_LOCATION)
        if(NOT loc)
          get_target_property(configs ${item} IMPORTED_CONFIGURATIONS)
          list(GET configs 0 config)
          get_target_property(loc ${item} IMPORTED_LOCATION_${config})
        endif()
      endif()
      get_target_property(deps ${item} INTERFACE_LINK_LIBRARIES)
      if(loc)
        list(APPEND todo ${loc})
      endif()
      if(deps)
        list(APPEND todo ${deps})
      endif()
    elseif(item MATCHES "^(.*)/lib([^/]+)\\.(so|a)(\\.[0-9.]+)?$")
      list(APPEND flags -L${CMAKE_MATCH_1} -l${CMAKE_MATCH_2})
    elseif(item MATCHES "\\$<")
      message(WARNING "spx.pc: '${item}' (a link dependency of spx) is left out of Libs.private")
    elseif(item MATCHES "^-")
      list(APPEND flags ${item})
    else()
      list(APPEND flags -l${item})
    endif()
  endwhile()
  list(REMOVE_DUPLICATES flags)
  list(JOIN flags " " flags)
  set(${out} "${flags}" PARENT_SCOPE)
endfunction()

get_target_property(spx_interface_libraries spx INTERFACE_LINK_LIBRARIES)
spx_link_flags(SPX_PC_LIBS_PRIVATE ${spx_interface_libraries})
# A sanitized library's users compile and link with the same sanitizer (its runtime first).
set(SPX_PC_CFLAGS)
set(SPX_PC_LIBS)
foreach(flag ${SPX_SAN_COMPILE})
  string(APPEND SPX_PC_CFLAGS " ${flag}")
endforeach()
foreach(flag ${SPX_SAN_LINK})
  string(APPEND SPX_PC_LIBS " ${flag}")
endforeach()
# The file locates itself (${pcfiledir}), so an install moved elsewhere or made with
# `cmake --install --prefix DIR` still names its own directories.
set(spx_pc_dir ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
if(IS_ABSOLUTE ${CMAKE_INSTALL_LIBDIR} OR IS_ABSOLUTE ${CMAKE_INSTALL_INCLUDEDIR})
  set(SPX_PC_PREFIX ${CMAKE_INSTALL_PREFIX})
else()
  file(RELATIVE_PATH spx_pc_up /${spx_pc_dir} /)
  string(REGEX REPLACE "/$" "" spx_pc_up ${spx_pc_up})
  set(SPX_PC_PREFIX "\${pcfiledir}/${spx_pc_up}")
endif()
set(SPX_PC_LIBDIR ${CMAKE_INSTALL_LIBDIR})
set(SPX_PC_INCLUDEDIR ${CMAKE_INSTALL_INCLUDEDIR})
if(NOT IS_ABSOLUTE ${SPX_PC_LIBDIR})
  set(SPX_PC_LIBDIR "\${prefix}/${SPX_PC_LIBDIR}")
endif()
if(NOT IS_ABSOLUTE ${SPX_PC_INCLUDEDIR})
  set(SPX_PC_INCLUDEDIR "\${prefix}/${SPX_PC_INCLUDEDIR}")
endif()
configure_file(${PROJECT_SOURCE_DIR}/cmake/spx.pc.in ${PROJECT_BINARY_DIR}/spx.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/spx.pc DESTINATION ${spx_pc_dir})
