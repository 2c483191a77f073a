# `cmake --build build --target bundle` puts the bench and test binaries, the GPU routine script,
# and every non-system shared library they load into build/bundle/ (RPATH $ORIGIN): a folder that
# runs on a GPU host with only the NVIDIA driver installed.
set(PARCOMP_BUNDLE_TARGETS parcomp-bench parcomp parcomp-gpu-hold parcomp-exit-cost parcomp-start-cost)
if(BUILD_TESTING)
  list(APPEND PARCOMP_BUNDLE_TARGETS parcomp-tests-cpu parcomp-tests-gpu)
endif()
install(TARGETS ${PARCOMP_BUNDLE_TARGETS} RUNTIME DESTINATION . COMPONENT bundle EXCLUDE_FROM_ALL)
install(PROGRAMS ${PROJECT_SOURCE_DIR}/scripts/gpu-check.sh ${PROJECT_SOURCE_DIR}/scripts/profile.sh ${PROJECT_SOURCE_DIR}/scripts/bz2-times.sh ${PROJECT_SOURCE_DIR}/scripts/load-test.sh
                 ${PROJECT_SOURCE_DIR}/scripts/bytes_per_char.py
                 ${PROJECT_SOURCE_DIR}/scripts/ncu_summary.py ${PROJECT_SOURCE_DIR}/scripts/run_experiments.py
                 ${PROJECT_SOURCE_DIR}/scripts/merge_results.py ${PROJECT_SOURCE_DIR}/scripts/shard_tests.py DESTINATION . COMPONENT bundle EXCLUDE_FROM_ALL)

# The peers run as programs by the pipeline and tool.e2e benchmarks (lbzip2, bzip2, zstd, pigz, pbzip2),
# with the shared libraries they load (parcomp-bench points LD_LIBRARY_PATH at the bundle for them).
set(PARCOMP_BUNDLE_EXES "")
foreach(prog IN ITEMS PARCOMP_LBZIP2 PARCOMP_BZIP2 PARCOMP_ZSTD PARCOMP_PIGZ PARCOMP_PBZIP2)
  if(${prog})
    install(PROGRAMS ${${prog}} DESTINATION . COMPONENT bundle EXCLUDE_FROM_ALL)
    list(APPEND PARCOMP_BUNDLE_EXES "${${prog}}")
  endif()
endforeach()
foreach(t IN LISTS PARCOMP_BUNDLE_TARGETS)
  list(APPEND PARCOMP_BUNDLE_EXES "$<TARGET_FILE:${t}>")
endforeach()
install(CODE "set(PARCOMP_BUNDLE_EXES \"${PARCOMP_BUNDLE_EXES}\")" COMPONENT bundle EXCLUDE_FROM_ALL)
install(CODE [[
  file(GET_RUNTIME_DEPENDENCIES
    EXECUTABLES ${PARCOMP_BUNDLE_EXES}
    RESOLVED_DEPENDENCIES_VAR parcomp_deps
    UNRESOLVED_DEPENDENCIES_VAR parcomp_unresolved
    # glibc and the driver come from the host; everything else travels.
    PRE_EXCLUDE_REGEXES "^ld-linux" "^libc\\.so" "^libm\\.so" "^libdl\\.so" "^librt\\.so" "^libpthread\\.so"
                        "^libcuda\\.so" "^linux-vdso")
  if(parcomp_unresolved)
    message(FATAL_ERROR "bundle: unresolved shared libraries: ${parcomp_unresolved}")
  endif()
  foreach(dep IN LISTS parcomp_deps)
    file(INSTALL DESTINATION "${CMAKE_INSTALL_PREFIX}" TYPE SHARED_LIBRARY FOLLOW_SYMLINK_CHAIN FILES "${dep}")
  endforeach()
]] COMPONENT bundle EXCLUDE_FROM_ALL)

add_custom_target(bundle
  COMMAND ${CMAKE_COMMAND} -E rm -rf ${CMAKE_BINARY_DIR}/bundle
  COMMAND ${CMAKE_COMMAND} --install ${CMAKE_BINARY_DIR} --prefix ${CMAKE_BINARY_DIR}/bundle --component bundle
  DEPENDS ${PARCOMP_BUNDLE_TARGETS}
  COMMENT "Bundling binaries and their shared libraries into ${CMAKE_BINARY_DIR}/bundle"
  VERBATIM)
