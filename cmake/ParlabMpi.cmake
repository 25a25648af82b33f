# Finds MPI for the mpi/ part and sets _found. Two ways in:
#   - the usual one: FindMPI through the compiler wrapper (mpicc) or MPI_HOME;
#   - PARLAB_MPI_PREFIX: a prefix holding mpi.h and libmpi without a working wrapper, e.g. an
#     unpacked libopenmpi-dev (dpkg -x) on a node whose image has Open MPI's runtime
#     (openmpi-bin, libopenmpi3) but not its headers. The prefix is searched for mpi.h and libmpi
#     in Debian's layout (usr/lib/<multiarch>/openmpi/{include,lib}) and the plain one
#     (include, lib); the library may also come from the system (libmpi.so.40).
set(PARLAB_MPI_PREFIX "" CACHE PATH "A prefix holding MPI's headers and library (an unpacked libopenmpi-dev) when no mpicc works")
set(_found OFF)
if(NOT PARLAB_ENABLE_MPI STREQUAL "OFF")
  if(PARLAB_MPI_PREFIX)
    file(GLOB _parlab_mpi_incs "${PARLAB_MPI_PREFIX}/include" "${PARLAB_MPI_PREFIX}/usr/include"
         "${PARLAB_MPI_PREFIX}/usr/lib/*/openmpi/include" "${PARLAB_MPI_PREFIX}/lib/*/openmpi/include")
    find_path(_parlab_mpi_h mpi.h PATHS ${_parlab_mpi_incs} NO_DEFAULT_PATH)
    file(GLOB _parlab_mpi_libdirs "${PARLAB_MPI_PREFIX}/lib" "${PARLAB_MPI_PREFIX}/usr/lib/*/openmpi/lib"
         "${PARLAB_MPI_PREFIX}/usr/lib/*" "${PARLAB_MPI_PREFIX}/lib/*")
    find_library(_parlab_libmpi NAMES mpi libmpi.so.40 PATHS ${_parlab_mpi_libdirs} NO_DEFAULT_PATH)
    if(NOT _parlab_libmpi)
      find_library(_parlab_libmpi NAMES mpi libmpi.so.40)
    endif()
    if(_parlab_mpi_h AND _parlab_libmpi)
      # FindMPI's documented overrides: no wrapper is asked when these are set.
      set(MPI_C_HEADER_DIR "${_parlab_mpi_h}" CACHE PATH "" FORCE)
      set(MPI_C_LIB_NAMES "mpi" CACHE STRING "" FORCE)
      set(MPI_mpi_LIBRARY "${_parlab_libmpi}" CACHE FILEPATH "" FORCE)
    else()
      message(WARNING "PARLAB_MPI_PREFIX=${PARLAB_MPI_PREFIX}: mpi.h (${_parlab_mpi_h}) or libmpi (${_parlab_libmpi}) not found")
    endif()
  endif()
  find_package(MPI QUIET COMPONENTS C)
  if(MPI_C_FOUND)
    set(_found ON)
  endif()
endif()
