# Issue 9 (packaging): what `cmake --install BUILD [--prefix DIR]` puts where,
# and the CMake package that lets another project find_package(tessera).
#
#   bin/tessera, bin/tessera-plot
#   share/tessera/inputs/       example decks (and the data files they read)
#   share/tessera/slurm/        job scripts
#   share/doc/tessera/          README.md and docs/
#   lib/cmake/tessera/          tesseraConfig.cmake, tesseraConfigVersion.cmake,
#                               tesseraTargets*.cmake (imported tessera::tessera)
#
# See docs/install.md.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(TESSERA_INSTALL_DATADIR ${CMAKE_INSTALL_DATADIR}/tessera)
set(TESSERA_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/tessera)

# HDF5 and MPI often live outside the loader's default path (Debian's
# parallel HDF5, Spack, modules); keep the directories the build linked
# against, so the installed binary runs without LD_LIBRARY_PATH.
set_target_properties(tessera PROPERTIES INSTALL_RPATH_USE_LINK_PATH TRUE)

install(TARGETS tessera EXPORT tesseraTargets
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(PROGRAMS ${PROJECT_SOURCE_DIR}/tools/tessera-plot DESTINATION ${CMAKE_INSTALL_BINDIR})

# Source permissions keep the helper scripts next to the decks executable.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/inputs/ DESTINATION ${TESSERA_INSTALL_DATADIR}/inputs
  USE_SOURCE_PERMISSIONS)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/slurm/ DESTINATION ${TESSERA_INSTALL_DATADIR}/slurm
  USE_SOURCE_PERMISSIONS)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})

install(EXPORT tesseraTargets NAMESPACE tessera:: DESTINATION ${TESSERA_INSTALL_CMAKEDIR})

# The template is written here rather than kept as a file so that packaging
# stays in this one file.
file(WRITE ${PROJECT_BINARY_DIR}/tesseraConfig.cmake.in [=[
# tessera @PROJECT_VERSION@: the `tessera` molecular dynamics engine.
# Gives the imported executables tessera::tessera and tessera::plot (the
# tessera-plot script) and the folders of the example decks and job scripts:
#   tessera_INPUTS_DIR, tessera_SLURM_DIR, tessera_DOC_DIR
@PACKAGE_INIT@

include("${CMAKE_CURRENT_LIST_DIR}/tesseraTargets.cmake")

if(NOT TARGET tessera::plot)
  add_executable(tessera::plot IMPORTED)
  set_target_properties(tessera::plot PROPERTIES IMPORTED_LOCATION "@PACKAGE_CMAKE_INSTALL_BINDIR@/tessera-plot")
endif()
set_and_check(tessera_INPUTS_DIR "@PACKAGE_TESSERA_INSTALL_DATADIR@/inputs")
set_and_check(tessera_SLURM_DIR "@PACKAGE_TESSERA_INSTALL_DATADIR@/slurm")
set_and_check(tessera_DOC_DIR "@PACKAGE_CMAKE_INSTALL_DOCDIR@")
set(tessera_CUDA @TESSERA_CUDA@)

check_required_components(tessera)
]=])
configure_package_config_file(${PROJECT_BINARY_DIR}/tesseraConfig.cmake.in
  ${PROJECT_BINARY_DIR}/tesseraConfig.cmake
  INSTALL_DESTINATION ${TESSERA_INSTALL_CMAKEDIR}
  PATH_VARS CMAKE_INSTALL_BINDIR TESSERA_INSTALL_DATADIR CMAKE_INSTALL_DOCDIR)
# Only an executable is exported, so a consumer's word size does not matter;
# 0.x releases may change the command line between minor versions.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/tesseraConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion ARCH_INDEPENDENT)
install(FILES ${PROJECT_BINARY_DIR}/tesseraConfig.cmake ${PROJECT_BINARY_DIR}/tesseraConfigVersion.cmake
  DESTINATION ${TESSERA_INSTALL_CMAKEDIR})
