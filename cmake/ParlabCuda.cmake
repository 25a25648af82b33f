# CUDA language setup. CMAKE_CUDA_ARCHITECTURES defaults to the GPU of the build machine when
# one is visible ("native"), else to sm_90 (Hopper: H100/H200), so a CPU-only build still
# compiles every kernel and catches errors. The `h200` preset sets 90 explicitly.
if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES OR CMAKE_CUDA_ARCHITECTURES STREQUAL "")
  find_program(_parlab_nvidia_smi nvidia-smi)
  set(_arch 90)
  if(_parlab_nvidia_smi)
    execute_process(COMMAND ${_parlab_nvidia_smi} -L RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_QUIET)
    if(_rc EQUAL 0 AND _out MATCHES "GPU 0")
      set(_arch native)
    endif()
  endif()
  set(CMAKE_CUDA_ARCHITECTURES ${_arch} CACHE STRING "CUDA architectures" FORCE)
endif()
if(NOT DEFINED CMAKE_CUDA_HOST_COMPILER AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  set(CMAKE_CUDA_HOST_COMPILER ${CMAKE_CXX_COMPILER} CACHE FILEPATH "CUDA host compiler")
endif()
enable_language(CUDA)
# CMake before 3.26 (Debian bookworm has 3.25) knows no C++20 flag for nvcc, so it rejects the
# CUDA_STANDARD 20 set below. nvcc 12 and later take -std=c++20: say so once, for every CUDA target.
if(NOT CMAKE_CUDA20_STANDARD_COMPILE_OPTION AND CMAKE_CUDA_COMPILER_ID STREQUAL "NVIDIA"
   AND CMAKE_CUDA_COMPILER_VERSION VERSION_GREATER_EQUAL 12.0)
  set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
  set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
endif()

set(CMAKE_CUDA_STANDARD 20)
set(CMAKE_CUDA_STANDARD_REQUIRED ON)
# No FMA contraction, as on the CPU (ParlabOptions.cmake): same arithmetic, same bits.
add_compile_options("$<$<COMPILE_LANGUAGE:CUDA>:--fmad=false>")
if(PARLAB_WERROR)
  add_compile_options("$<$<COMPILE_LANGUAGE:CUDA>:-Werror=all-warnings>")
endif()
