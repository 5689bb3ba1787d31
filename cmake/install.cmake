# `cmake --install build [--prefix P]`: the programs, the bundled plans (P/share/scaleout, found by
# core/files/bundled_data.hpp relative to P/bin), the docs and the man page. `cpack -G DEB` (run in the
# build directory) packs the same files as Debian packages: scaleout (the CPU tool, component
# `tool`) and, in a CUDA build, scaleout-cuda (the GPU backend's plugin, component `cuda`).
set(CMAKE_INSTALL_DEFAULT_COMPONENT_NAME tool)
install(TARGETS scaleout RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(SCALEOUT_CUDA)
  # lib/scaleout beside bin/: where exec/cuda_plugin.hpp's loader looks from the program.
  install(TARGETS scaleout_cuda_plugin LIBRARY DESTINATION lib/scaleout COMPONENT cuda)
endif()
if(SCALEOUT_GUI)
  install(TARGETS scaleout-gui RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/models ${PROJECT_SOURCE_DIR}/topologies
                  ${PROJECT_SOURCE_DIR}/experiments ${PROJECT_SOURCE_DIR}/devices
        DESTINATION ${CMAKE_INSTALL_DATADIR}/scaleout
        USE_SOURCE_PERMISSIONS)
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/CHANGELOG.md
              ${PROJECT_SOURCE_DIR}/LICENSE
        DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs
        PATTERN "*.1" EXCLUDE)
install(FILES ${PROJECT_SOURCE_DIR}/docs/scaleout.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)

set(CPACK_PACKAGE_NAME scaleout)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "scaleout maintainers <scaleout@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "predicts how deep-learning training scales (SimGrid), runs it for real (Gloo, NCCL), compares")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
# Dependencies are Debian's package names, read by dpkg-shlibdeps from the libraries the programs
# link. CUDA's and NCCL's libraries (in a CUDA build) come from NVIDIA's installer, not a Debian
# package: dpkg-shlibdeps skips them, and docs/install.md says the toolkit must be on the machine.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "iproute2")
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_TOOL_PACKAGE_NAME scaleout)
set(CPACK_COMPONENTS_ALL tool)
if(SCALEOUT_CUDA)
  list(APPEND CPACK_COMPONENTS_ALL cuda)
  set(CPACK_DEBIAN_CUDA_PACKAGE_NAME scaleout-cuda)
  set(CPACK_COMPONENT_CUDA_DESCRIPTION
      "GPU backend of scaleout: run and calibrate on CUDA GPUs over NCCL")
  set(CPACK_DEBIAN_CUDA_PACKAGE_DEPENDS "scaleout (= ${PROJECT_VERSION})")
endif()
set(CPACK_GENERATOR DEB)
include(CPack)
