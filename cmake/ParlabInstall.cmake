# The install layout, the build tree's mirror of it, the commit a binary was built from, and the
# Debian package (docs/design.md, "Builds and dependencies"; experiments/io/data_dir.hpp):
#   bin/parlab
#   include/parlab/, lib/parlab/, lib/cmake/parlab/  (the CMake package: cmake/ParlabPackage.cmake)
#   share/parlab/{suites/, analysis/ (the Python analysis package: plot.py, compare.py, figures/),
#                 schema/, python/, reference/ (the reference runs report.html compares a run with)}
# parlab finds share/parlab relative to itself, so an installed tree can be moved or packaged.

set(_parlab_share_dirs experiments/suites analysis experiments/schema)

# The build tree mirrors the layout with links to the sources (edits take effect without a
# rebuild): build/<preset>/share/parlab/... beside build/<preset>/experiments/parlab.
set(_parlab_mirror "${CMAKE_BINARY_DIR}/share/parlab")
file(MAKE_DIRECTORY "${_parlab_mirror}")
foreach(_item IN LISTS _parlab_share_dirs)
  get_filename_component(_name "${_item}" NAME)
  file(CREATE_LINK "${PROJECT_SOURCE_DIR}/${_item}" "${_parlab_mirror}/${_name}" SYMBOLIC)
endforeach()
file(CREATE_LINK "${PROJECT_SOURCE_DIR}/embed/workloads" "${_parlab_mirror}/python" SYMBOLIC)
# reference/ is made below, from the index the install reads.
# Only a build tree knows of the free-threaded child parlab (the release-ft preset's build).
file(WRITE "${_parlab_mirror}/interpreters"
     "# parlab binaries of other interpreters this build tree knows of (experiments/io/data_dir.hpp)\n"
     "${PROJECT_SOURCE_DIR}/build/release-ft/experiments/parlab\n")

install(TARGETS parlab RUNTIME DESTINATION bin)
# The CMake package another project's kernel is built against: lib/, include/, lib/cmake/parlab.
include(ParlabPackage)
foreach(_dir IN LISTS _parlab_share_dirs)
  install(DIRECTORY "${_dir}" DESTINATION share/parlab PATTERN "__pycache__" EXCLUDE)
endforeach()
install(DIRECTORY embed/workloads/ DESTINATION share/parlab/python FILES_MATCHING PATTERN "*.py")
# The reference runs (analysis/reference.py): results/runs.json, the one index of the committed
# runs, marks them; analysis/index.py (its one reader) writes their reference index, and each is
# installed with its results.json only, at the same path relative to that index. The index is
# data: editing it reconfigures, and a run marked there is installed.
set(_parlab_runs_index "${PROJECT_SOURCE_DIR}/results/runs.json")
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
             "${_parlab_runs_index}" "${PROJECT_SOURCE_DIR}/analysis/index.py")
# The interpreter the embedded Python was found with, else any python3 (a build without the
# embedded part still installs the analysis, which needs one).
if(Python3_EXECUTABLE)
  set(_parlab_index_python "${Python3_EXECUTABLE}")
else()
  find_program(PARLAB_INDEX_PYTHON NAMES python3 REQUIRED DOC "the Python that reads results/runs.json at configure time")
  set(_parlab_index_python "${PARLAB_INDEX_PYTHON}")
endif()
# The build tree's reference/ holds the same files (the index, and links to the listed runs'
# results.json, not the rest of results/), so a report drawn from the build tree compares with
# exactly what the installed one does. It is made afresh at each configure; a configure from
# before linked all of results/ as reference, and that link is removed first (only the link:
# file(REMOVE) never follows it into results/).
set(_parlab_ref_mirror "${_parlab_mirror}/reference")
if(IS_SYMLINK "${_parlab_ref_mirror}")
  file(REMOVE "${_parlab_ref_mirror}")
elseif(IS_DIRECTORY "${_parlab_ref_mirror}")
  file(REMOVE_RECURSE "${_parlab_ref_mirror}")  # folders and links of the last configure
endif()
file(MAKE_DIRECTORY "${_parlab_ref_mirror}")
execute_process(
  COMMAND "${_parlab_index_python}" "${PROJECT_SOURCE_DIR}/analysis/index.py"
          --reference-index "${_parlab_ref_mirror}/reference-runs.json" "${_parlab_runs_index}"
  OUTPUT_VARIABLE _parlab_ref_paths ERROR_VARIABLE _parlab_ref_error RESULT_VARIABLE _parlab_ref_rc)
if(NOT _parlab_ref_rc EQUAL 0)
  message(FATAL_ERROR "results/runs.json (read by ${_parlab_index_python} analysis/index.py, exit "
                      "${_parlab_ref_rc}): ${_parlab_ref_error}")
endif()
install(FILES "${_parlab_ref_mirror}/reference-runs.json" DESTINATION share/parlab/reference)
string(STRIP "${_parlab_ref_paths}" _parlab_ref_paths)
string(REPLACE "\n" ";" _parlab_ref_paths "${_parlab_ref_paths}")
foreach(_parlab_ref_path IN LISTS _parlab_ref_paths)
  install(FILES "${PROJECT_SOURCE_DIR}/results/${_parlab_ref_path}/results.json"
          DESTINATION "share/parlab/reference/${_parlab_ref_path}")
  file(MAKE_DIRECTORY "${_parlab_ref_mirror}/${_parlab_ref_path}")
  file(CREATE_LINK "${PROJECT_SOURCE_DIR}/results/${_parlab_ref_path}/results.json"
       "${_parlab_ref_mirror}/${_parlab_ref_path}/results.json" SYMBOLIC)
endforeach()
# README.md links docs/*.md by relative path: they go to docs/ beside it, so the links resolve.
install(FILES README.md CHANGELOG.md DESTINATION share/doc/parlab)
file(GLOB _parlab_docs "${PROJECT_SOURCE_DIR}/docs/*.md")
install(FILES ${_parlab_docs} DESTINATION share/doc/parlab/docs)

# The commit, refreshed at every build (a header rewritten only when it changes), so an installed
# binary names what it was built from without its source tree.
add_custom_target(parlab_commit_header
  COMMAND "${CMAKE_COMMAND}" -DSOURCE_DIR=${PROJECT_SOURCE_DIR}
          -DOUTPUT=${CMAKE_BINARY_DIR}/experiments/generated/parlab/build_commit.hpp
          -P "${PROJECT_SOURCE_DIR}/cmake/ParlabCommit.cmake"
  BYPRODUCTS "${CMAKE_BINARY_DIR}/experiments/generated/parlab/build_commit.hpp"
  COMMENT "parlab: the source commit"
  VERBATIM)
add_dependencies(parlab_cli parlab_commit_header)

# cpack -G DEB in the build tree: a .deb of the binary, share/parlab and the CMake package. Its dependencies are the
# runtime libraries this configuration linked (dpkg-shlibdeps), plus what the scripts need.
set(CPACK_PACKAGE_NAME parlab)
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_CONTACT "parlab maintainers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_GENERATOR DEB)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# jsonschema: report and compare check a results file against its schema before reading it.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "python3, python3-matplotlib, python3-numpy, python3-jsonschema")
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_PACKAGE_INSTALL_DIRECTORY parlab)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
include(CPack)
