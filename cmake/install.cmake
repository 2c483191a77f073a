# `cmake --install build [--prefix P]`: the parcomp program (bin/), its man page, the library
# (lib/libparcomp.so), the public headers (include/parcomp/) and a CMake package, so that
#   find_package(parcomp REQUIRED)  target_link_libraries(app PRIVATE parcomp::parcomp)
# works from P. (The device bundle is another component: cmake/bundle.cmake.)
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
install(TARGETS parcomp RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS parcomp_lib EXPORT parcompTargets LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/parcomp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${PROJECT_SOURCE_DIR}/docs/parcomp.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(EXPORT parcompTargets NAMESPACE parcomp:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/parcomp)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/parcompConfig.cmake.in ${PROJECT_BINARY_DIR}/parcompConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/parcomp)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/parcompConfigVersion.cmake VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/parcompConfig.cmake ${PROJECT_BINARY_DIR}/parcompConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/parcomp)
