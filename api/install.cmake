# `make install` (cmake --install build --prefix PREFIX): the hdgc binary, libhdgc.so and
# the PETSc module beside it, the public headers, hdgc.pc for pkg-config,
# hdgcConfig.cmake for find_package(hdgc) (target hdgc::hdgc), examples and docs under share/.
include(CMakePackageConfigHelpers)
set_target_properties(hdgc PROPERTIES INSTALL_RPATH "$ORIGIN/../${CMAKE_INSTALL_LIBDIR}")
install(TARGETS hdgc RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS hdgc_shared EXPORT hdgcTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS hdgc_petsc LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES ${CMAKE_SOURCE_DIR}/include/hdgc.h ${CMAKE_SOURCE_DIR}/include/hdg.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

# prefix relative to the .pc file, so that `--prefix` at install time is honoured
file(RELATIVE_PATH HDG_PC_UP ${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
string(REGEX REPLACE "/$" "" HDG_PC_UP "${HDG_PC_UP}")
configure_file(${CMAKE_SOURCE_DIR}/api/hdgc.pc.in ${CMAKE_BINARY_DIR}/hdgc.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/hdgc.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

set(HDG_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/hdgc)
install(EXPORT hdgcTargets NAMESPACE hdgc:: DESTINATION ${HDG_CMAKE_DIR})
configure_package_config_file(${CMAKE_SOURCE_DIR}/api/hdgcConfig.cmake.in
  ${CMAKE_BINARY_DIR}/hdgcConfig.cmake INSTALL_DESTINATION ${HDG_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/hdgcConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/hdgcConfig.cmake ${CMAKE_BINARY_DIR}/hdgcConfigVersion.cmake
  DESTINATION ${HDG_CMAKE_DIR})

install(DIRECTORY ${CMAKE_SOURCE_DIR}/examples/ DESTINATION ${CMAKE_INSTALL_DATADIR}/hdgc/examples)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES ${CMAKE_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})

# `pip install .` (pyproject.toml): the component `python` is the library and the PETSc module
# in the package folder hdgc/ of the wheel, where python/hdgc/_lib.py and libhdgc look first
install(TARGETS hdgc_shared LIBRARY DESTINATION hdgc COMPONENT python EXCLUDE_FROM_ALL)
install(TARGETS hdgc_petsc LIBRARY DESTINATION hdgc COMPONENT python EXCLUDE_FROM_ALL)
