# Optional CUDA + cuDNN backend, built as a plugin that libkiln loads at run
# time (framework/src/backend/cuda/plugin_api.h). Included by the top-level
# CMakeLists.txt after the `kiln` target exists.
#
#   -DKILN_CUDA=AUTO  (default) on when nvcc, cuBLAS and cuDNN are all found
#   -DKILN_CUDA=ON    the same, but a missing piece is a configure error
#   -DKILN_CUDA=OFF   CPU only
#
# Layout: libkiln_cuda.so is a MODULE library made of the host code
# (framework/src/backend/cuda/*.cpp) and the kernels (framework/src/backend/cuda/*.cu, an
# object library built by nvcc, so kiln's C++ flags never reach nvcc). It links
# libkiln.so and the CUDA libraries; libkiln itself links none of them, so a
# program that never asks for a GPU never loads them. A static libkiln.a has no
# shared libkiln for a plugin to link back to, so static builds are CPU-only.
set(KILN_CUDA AUTO CACHE STRING "Build the CUDA + cuDNN backend: AUTO, ON or OFF")
set_property(CACHE KILN_CUDA PROPERTY STRINGS AUTO ON OFF)
string(TOUPPER "${KILN_CUDA}" _kiln_cuda_mode)

set(KILN_WITH_CUDA OFF)
set(_kiln_cuda_why "")

if(_kiln_cuda_mode STREQUAL "OFF")
  set(_kiln_cuda_why "KILN_CUDA=OFF")
elseif(NOT KILN_SHARED)
  set(_kiln_cuda_why "a static libkiln (KILN_SHARED=OFF) cannot load the CUDA plugin; the CUDA backend needs the shared library")
elseif(NOT _kiln_cuda_mode MATCHES "^(AUTO|ON)$")
  message(FATAL_ERROR "KILN_CUDA must be AUTO, ON or OFF, but is '${KILN_CUDA}'")
else()
  # Where nvcc lives when it is not on PATH.
  if(NOT CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX} AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc CACHE FILEPATH "CUDA compiler")
  endif()
  # sm_90 (H100/H200) machine code plus compute_90 PTX for later GPUs. Set
  # before check_language so CMake never probes an architecture nvcc 13 dropped.
  if(NOT CMAKE_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES "90-real;90-virtual" CACHE STRING "CUDA architectures for the Kiln kernels")
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(NOT CMAKE_CUDA_COMPILER)
    set(_kiln_cuda_why "no CUDA compiler (nvcc) was found")
  else()
    get_filename_component(_nvcc_dir "${CMAKE_CUDA_COMPILER}" DIRECTORY)
    get_filename_component(_cuda_root "${_nvcc_dir}" DIRECTORY)
    find_path(KILN_CUDNN_INCLUDE_DIR cudnn.h
              HINTS ${_cuda_root}/include /usr/local/cuda/include $ENV{CUDNN_ROOT}/include
              PATH_SUFFIXES cuda)
    find_library(KILN_CUDNN_LIBRARY cudnn
                 HINTS ${_cuda_root}/lib64 ${_cuda_root}/lib /usr/local/cuda/lib64 /usr/local/cuda/lib
                       $ENV{CUDNN_ROOT}/lib64 $ENV{CUDNN_ROOT}/lib)
    if(NOT KILN_CUDNN_INCLUDE_DIR OR NOT KILN_CUDNN_LIBRARY)
      set(_kiln_cuda_why "nvcc was found (${CMAKE_CUDA_COMPILER}) but cuDNN was not (cudnn.h: ${KILN_CUDNN_INCLUDE_DIR}, libcudnn: ${KILN_CUDNN_LIBRARY})")
    else()
      set(CUDAToolkit_ROOT "${_cuda_root}")
      # Debian 12's CMake 3.25.1 FindCUDAToolkit marks CUDA::nvToolsExt deprecated
      # without checking that the target exists, whenever the project's minimum
      # CMake is 3.25 or later; CUDA 12+ ships no nvToolsExt, so configuring
      # fails. The module reads the minimum only for that warning.
      set(_kiln_cmake_min "${CMAKE_MINIMUM_REQUIRED_VERSION}")
      set(CMAKE_MINIMUM_REQUIRED_VERSION 3.24)
      find_package(CUDAToolkit QUIET)
      set(CMAKE_MINIMUM_REQUIRED_VERSION "${_kiln_cmake_min}")
      if(NOT CUDAToolkit_FOUND OR NOT TARGET CUDA::cublas OR NOT TARGET CUDA::cudart)
        set(_kiln_cuda_why "nvcc was found but the CUDA toolkit libraries (cudart, cuBLAS) were not")
      else()
        set(KILN_WITH_CUDA ON)
      endif()
    endif()
  endif()
endif()

if(NOT KILN_WITH_CUDA)
  if(_kiln_cuda_mode STREQUAL "ON")
    message(FATAL_ERROR "KILN_CUDA=ON but the CUDA backend cannot be built: ${_kiln_cuda_why}")
  endif()
  message(STATUS "Kiln CUDA backend: off (${_kiln_cuda_why})")
  return()
endif()

enable_language(CUDA)
if(NOT DEFINED CMAKE_CUDA_STANDARD)
  set(CMAKE_CUDA_STANDARD 17)
  set(CMAKE_CUDA_STANDARD_REQUIRED ON)
endif()
if(CCACHE_PROGRAM AND NOT CMAKE_CUDA_COMPILER_LAUNCHER)
  set(CMAKE_CUDA_COMPILER_LAUNCHER ${CCACHE_PROGRAM})
endif()
message(STATUS "Kiln CUDA backend: on (nvcc ${CMAKE_CUDA_COMPILER_VERSION}, architectures ${CMAKE_CUDA_ARCHITECTURES}, cuDNN ${KILN_CUDNN_LIBRARY})")

file(GLOB _kiln_cu CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/framework/src/backend/cuda/*.cu)
file(GLOB _kiln_cuda_host CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/framework/src/backend/cuda/*.cpp)
# NCCL (kiln::distribute's GPU all-reduce) when the toolkit has it; the plugin works without.
find_path(KILN_NCCL_INCLUDE_DIR nccl.h HINTS ${_cuda_root}/include /usr/local/cuda/include)
find_library(KILN_NCCL_LIBRARY nccl HINTS ${_cuda_root}/lib64 ${_cuda_root}/lib /usr/local/cuda/lib64)
if(KILN_NCCL_INCLUDE_DIR AND KILN_NCCL_LIBRARY)
  set(KILN_WITH_NCCL ON)
  message(STATUS "Kiln CUDA backend: NCCL found (${KILN_NCCL_LIBRARY})")
else()
  set(KILN_WITH_NCCL OFF)
  list(FILTER _kiln_cuda_host EXCLUDE REGEX "/nccl_collectives\\.cpp$")
  message(STATUS "Kiln CUDA backend: no NCCL (data-parallel GPU training uses MPI through the host)")
endif()
# The kernels: no relocatable device code, so no device-link step. CMake 3.25
# knows no C++20 flag for nvcc, so they stay a separate C++17 target.
add_library(kiln_cuda_kernels OBJECT ${_kiln_cu})
set_target_properties(kiln_cuda_kernels PROPERTIES POSITION_INDEPENDENT_CODE ON
                      CUDA_ARCHITECTURES "${CMAKE_CUDA_ARCHITECTURES}" CUDA_SEPARABLE_COMPILATION OFF)
target_include_directories(kiln_cuda_kernels PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/framework/src)
# -lineinfo keeps profilers useful at no run-time cost; fast maths stays off so
# the GPU matches the CPU reference within float rounding. #186 is nvcc's
# "unsigned compared with zero" in the uint8 instantiations.
target_compile_options(kiln_cuda_kernels PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-lineinfo --expt-relaxed-constexpr -diag-suppress=186>)
target_link_libraries(kiln_cuda_kernels PRIVATE CUDA::cudart)

# The plugin. g++ links it (CXX's linker preference beats CUDA's).
add_library(kiln_cuda MODULE ${_kiln_cuda_host} $<TARGET_OBJECTS:kiln_cuda_kernels>)
target_compile_features(kiln_cuda PRIVATE cxx_std_20)
target_include_directories(kiln_cuda PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/framework/src ${KILN_CUDNN_INCLUDE_DIR})
target_compile_options(kiln_cuda PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-fno-math-errno>)
get_filename_component(_kiln_cudnn_dir "${KILN_CUDNN_LIBRARY}" DIRECTORY)
target_link_libraries(kiln_cuda PRIVATE kiln CUDA::cudart CUDA::cublas ${KILN_CUDNN_LIBRARY})
if(KILN_WITH_NCCL)
  target_include_directories(kiln_cuda PRIVATE ${KILN_NCCL_INCLUDE_DIR})
  target_link_libraries(kiln_cuda PRIVATE ${KILN_NCCL_LIBRARY})
  target_compile_definitions(kiln_cuda PRIVATE KILN_CUDA_NCCL=1)
endif()
# Installed beside libkiln.so ($ORIGIN), finding the CUDA libraries where the build found them.
set_target_properties(kiln_cuda PROPERTIES PREFIX "lib" OUTPUT_NAME kiln_cuda
                      INSTALL_RPATH "$ORIGIN;${CUDAToolkit_LIBRARY_DIR};${_kiln_cudnn_dir}")
install(TARGETS kiln_cuda LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT cuda)
# Only the loader knows the plugin exists; every other libkiln source compiles
# the same with or without CUDA.
set_property(SOURCE ${CMAKE_CURRENT_SOURCE_DIR}/framework/src/backend/cuda_loader.cpp APPEND PROPERTY
             COMPILE_DEFINITIONS KILN_CUDA_PLUGIN_FILE="libkiln_cuda.so")
