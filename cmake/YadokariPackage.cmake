# `cmake --install` layout and the CMake package that lets users relink:
#   find_package(yadokari) ; target_link_libraries(app PRIVATE yadokari::shim_openmpi)
# (or by hand: -L<prefix>/lib -lyadokari-openmpi placed before -lmpi).
include(CMakePackageConfigHelpers)
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/yadokariConfig.cmake.in
  ${CMAKE_BINARY_DIR}/yadokariConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/yadokari)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/yadokariConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/yadokariConfig.cmake ${CMAKE_BINARY_DIR}/yadokariConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/yadokari)
install(EXPORT yadokariTargets NAMESPACE yadokari:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/yadokari)
