# Optional MPI transport for kiln::distribute, built as a plugin that libkiln
# loads at run time (framework/src/distribute/transport.h), only in processes
# started by an MPI launcher. libkiln itself never links MPI, so programs that
# do not distribute need no MPI installed.
#
#   -DKILN_MPI=AUTO  (default) on when MPI's C library is found (Debian: libopenmpi-dev)
#   -DKILN_MPI=ON    the same, but a missing MPI is a configure error
#   -DKILN_MPI=OFF   no MPI: DataParallel runs single-process only
set(KILN_MPI AUTO CACHE STRING "Build the MPI transport for kiln::distribute: AUTO, ON or OFF")
set_property(CACHE KILN_MPI PROPERTY STRINGS AUTO ON OFF)
string(TOUPPER "${KILN_MPI}" _kiln_mpi_mode)
set(KILN_WITH_MPI OFF)
set(_kiln_mpi_why "")
if(_kiln_mpi_mode STREQUAL "OFF")
  set(_kiln_mpi_why "KILN_MPI=OFF")
elseif(NOT KILN_SHARED)
  set(_kiln_mpi_why "a static libkiln (KILN_SHARED=OFF) cannot load the MPI plugin")
else()
  find_package(MPI QUIET COMPONENTS C)
  if(MPI_C_FOUND)
    set(KILN_WITH_MPI ON)
  else()
    set(_kiln_mpi_why "no MPI C library was found (Debian: apt install libopenmpi-dev openmpi-bin)")
  endif()
endif()
if(NOT KILN_WITH_MPI)
  if(_kiln_mpi_mode STREQUAL "ON")
    message(FATAL_ERROR "KILN_MPI=ON but the MPI transport cannot be built: ${_kiln_mpi_why}")
  endif()
  message(STATUS "Kiln MPI transport: off (${_kiln_mpi_why})")
  return()
endif()
message(STATUS "Kiln MPI transport: on (${MPI_C_LIBRARIES})")
add_library(kiln_mpi MODULE ${CMAKE_CURRENT_SOURCE_DIR}/framework/src/distribute/mpi/mpi_transport.cpp)
target_include_directories(kiln_mpi PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/framework/src)
target_link_libraries(kiln_mpi PRIVATE MPI::MPI_C)
target_compile_features(kiln_mpi PRIVATE cxx_std_20)
# Built beside libkiln (the build folder), where the loader looks first.
set_target_properties(kiln_mpi PROPERTIES PREFIX "lib" OUTPUT_NAME "kiln_mpi")
# Only the communicator knows the plugin exists; every other libkiln source
# compiles the same with or without MPI.
set_property(SOURCE ${CMAKE_CURRENT_SOURCE_DIR}/framework/src/distribute/communicator.cpp APPEND PROPERTY
             COMPILE_DEFINITIONS KILN_MPI_PLUGIN_FILE="libkiln_mpi.so")
add_dependencies(kiln kiln_mpi)
install(TARGETS kiln_mpi LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT mpi)
find_program(KILN_MPIEXEC NAMES mpirun mpiexec)
