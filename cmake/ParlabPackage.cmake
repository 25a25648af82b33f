# The CMake package another project builds its kernel against (docs/your-kernel.md):
#   include/parlab/kernel.hpp                    the public header, the whole contract (core/include/)
#   lib/parlab/libparlab_*.a                     the harness: command line, runner, executors, wings
#   lib/cmake/parlab/parlab{Config,ConfigVersion}.cmake   find_package(parlab CONFIG) -> parlab::harness
#   share/parlab/tsan.supp                       the ThreadSanitizer suppressions CI runs with
# The config is written here with the system libraries this configuration linked, so a project
# that finds it needs no find_package of oneTBB, OpenMP, Python or MPI of its own.
include(CMakePackageConfigHelpers)

# Every archive parlab_harness links, whichever parts this configuration built.
set(_parlab_package_targets parlab_harness parlab_cli parlab_backends parlab_io parlab_peers parlab_cpu parlab_core)
foreach(_t parlab_embed parlab_gpu parlab_mpi)
  if(TARGET ${_t})
    list(APPEND _parlab_package_targets ${_t})
  endif()
endforeach()
set(PARLAB_PACKAGE_ARCHIVES "")
foreach(_t IN LISTS _parlab_package_targets)
  list(APPEND PARLAB_PACKAGE_ARCHIVES "$<TARGET_FILE_NAME:${_t}>")
endforeach()
install(TARGETS ${_parlab_package_targets} ARCHIVE DESTINATION lib/parlab)

# The libraries outside parlab, as files (generator expressions, evaluated below).
set(PARLAB_PACKAGE_DEPS "")
if(PARLAB_HAVE_TBB)
  list(APPEND PARLAB_PACKAGE_DEPS "$<TARGET_LINKER_FILE:TBB::tbb>")
endif()
if(PARLAB_HAVE_OPENMP)
  list(APPEND PARLAB_PACKAGE_DEPS ${OpenMP_CXX_LIBRARIES})
endif()
if(TARGET parlab_embed)
  list(APPEND PARLAB_PACKAGE_DEPS ${Python3_LIBRARIES})
endif()
if(TARGET parlab_mpi)
  list(APPEND PARLAB_PACKAGE_DEPS ${MPI_C_LIBRARIES})
endif()
if(TARGET parlab_gpu)
  list(APPEND PARLAB_PACKAGE_DEPS "$<TARGET_LINKER_FILE:CUDA::cudart>")
endif()
list(APPEND PARLAB_PACKAGE_DEPS ${CMAKE_DL_LIBS})
list(REMOVE_DUPLICATES PARLAB_PACKAGE_DEPS)
string(REPLACE ";" " " PARLAB_PACKAGE_ARCHIVES "${PARLAB_PACKAGE_ARCHIVES}")
configure_file("${PROJECT_SOURCE_DIR}/cmake/parlabConfig.cmake.in" "${CMAKE_BINARY_DIR}/package/parlabConfig.cmake.genex" @ONLY)
file(GENERATE OUTPUT "${CMAKE_BINARY_DIR}/package/parlabConfig.cmake"
     INPUT "${CMAKE_BINARY_DIR}/package/parlabConfig.cmake.genex")
write_basic_package_version_file("${CMAKE_BINARY_DIR}/package/parlabConfigVersion.cmake"
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES "${CMAKE_BINARY_DIR}/package/parlabConfig.cmake" "${CMAKE_BINARY_DIR}/package/parlabConfigVersion.cmake"
        DESTINATION lib/cmake/parlab)
install(FILES core/include/parlab/kernel.hpp DESTINATION include/parlab)
install(FILES tests/tsan.supp DESTINATION share/parlab)

# A ThreadSanitizer harness (PARLAB_SANITIZE=thread, the tsan preset) also installs
# share/parlab/tsan-run, which runs a command in the environment CI runs parlab's TSan tests in:
# the tsan test preset's TSAN_OPTIONS with the installed suppressions, and libomp's Archer (its
# annotations of OpenMP's synchronisation) where OpenMP was built.
if(PARLAB_SANITIZE STREQUAL "thread")
  set(PARLAB_PACKAGE_ARCHER "")
  if(PARLAB_HAVE_OPENMP)
    get_filename_component(_parlab_omp_dir "${OpenMP_omp_LIBRARY}" DIRECTORY)
    find_library(PARLAB_PACKAGE_ARCHER_LIBRARY NAMES archer HINTS "${_parlab_omp_dir}")
    if(PARLAB_PACKAGE_ARCHER_LIBRARY)
      set(PARLAB_PACKAGE_ARCHER "${PARLAB_PACKAGE_ARCHER_LIBRARY}")
    endif()
  endif()
  configure_file("${PROJECT_SOURCE_DIR}/cmake/tsan-run.in" "${CMAKE_BINARY_DIR}/package/tsan-run" @ONLY)
  install(PROGRAMS "${CMAKE_BINARY_DIR}/package/tsan-run" DESTINATION share/parlab)
endif()
