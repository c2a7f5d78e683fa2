# Optional oneDNN under the CPU convolutions, built as a plugin that libkiln
# loads the first time a convolution goes to oneDNN (framework/src/backend/cpu/
# onednn/), so libkiln itself never links oneDNN or its OpenMP runtime.
#   -DKILN_ONEDNN=AUTO  (default) on when oneDNN is found (Debian: libdnnl-dev)
#   -DKILN_ONEDNN=ON    the same, but a missing oneDNN is a configure error
#   -DKILN_ONEDNN=OFF   Kiln's own convolution kernels only
set(KILN_ONEDNN AUTO CACHE STRING "Run the CPU's large convolutions through oneDNN: AUTO, ON or OFF")
set_property(CACHE KILN_ONEDNN PROPERTY STRINGS AUTO ON OFF)
string(TOUPPER "${KILN_ONEDNN}" _kiln_onednn_mode)
set(KILN_WITH_ONEDNN OFF)
if(_kiln_onednn_mode STREQUAL "OFF")
  set(_kiln_onednn_why "KILN_ONEDNN=OFF")
elseif(NOT KILN_SHARED)
  set(_kiln_onednn_why "a static libkiln (KILN_SHARED=OFF) cannot load the oneDNN plugin")
else()
  find_path(KILN_ONEDNN_INCLUDE_DIR oneapi/dnnl/dnnl.hpp)
  find_library(KILN_ONEDNN_LIBRARY dnnl)
  if(KILN_ONEDNN_INCLUDE_DIR AND KILN_ONEDNN_LIBRARY)
    set(KILN_WITH_ONEDNN ON)
  else()
    set(_kiln_onednn_why "oneDNN was not found (Debian: apt install libdnnl-dev)")
  endif()
endif()
if(NOT KILN_WITH_ONEDNN)
  if(_kiln_onednn_mode STREQUAL "ON")
    message(FATAL_ERROR "KILN_ONEDNN=ON but the oneDNN plugin cannot be built: ${_kiln_onednn_why}")
  endif()
  message(STATUS "Kiln oneDNN convolutions: off (${_kiln_onednn_why})")
  return()
endif()
message(STATUS "Kiln oneDNN convolutions: on (${KILN_ONEDNN_LIBRARY})")

add_library(kiln_onednn MODULE ${CMAKE_CURRENT_SOURCE_DIR}/framework/src/backend/cpu/onednn/onednn_plugin.cpp)
target_include_directories(kiln_onednn PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/framework/src ${CMAKE_CURRENT_SOURCE_DIR}/framework/include)
# An -I/usr/include would break libstdc++'s #include_next; only a folder of its own is named.
if(NOT KILN_ONEDNN_INCLUDE_DIR IN_LIST CMAKE_CXX_IMPLICIT_INCLUDE_DIRECTORIES)
  target_include_directories(kiln_onednn SYSTEM PRIVATE ${KILN_ONEDNN_INCLUDE_DIR})
endif()
target_link_libraries(kiln_onednn PRIVATE ${KILN_ONEDNN_LIBRARY} ${CMAKE_DL_LIBS})
target_compile_features(kiln_onednn PRIVATE cxx_std_20)
# Built beside libkiln (the build folder), where the loader looks first.
set_target_properties(kiln_onednn PROPERTIES PREFIX "lib" OUTPUT_NAME "kiln_onednn")
# Only the loader knows the plugin exists; every other libkiln source compiles
# the same with or without oneDNN.
set_property(SOURCE ${CMAKE_CURRENT_SOURCE_DIR}/framework/src/backend/cpu/conv2d_onednn.cpp APPEND PROPERTY
             COMPILE_DEFINITIONS KILN_ONEDNN_PLUGIN_FILE="libkiln_onednn.so")
add_dependencies(kiln kiln_onednn)
install(TARGETS kiln_onednn LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime)
