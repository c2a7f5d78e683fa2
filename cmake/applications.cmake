# keras.applications' models (applications/, kiln/applications.h): a library of
# its own over libkiln, so the core's compile lines do not change and only the
# programs that build these models link it (kiln::applications).
file(GLOB _kiln_app_srcs CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/applications/src/*.cpp)
if(KILN_SHARED)
  add_library(kiln_applications SHARED ${_kiln_app_srcs})
else()
  add_library(kiln_applications STATIC ${_kiln_app_srcs})
endif()
add_library(kiln::applications ALIAS kiln_applications)
target_include_directories(kiln_applications PUBLIC
  $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/applications/include>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_link_libraries(kiln_applications PUBLIC kiln PRIVATE $<BUILD_INTERFACE:nlohmann_json::nlohmann_json>)
set_target_properties(kiln_applications PROPERTIES POSITION_INDEPENDENT_CODE ON
                      VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR})
install(TARGETS kiln_applications EXPORT kilnTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime NAMELINK_COMPONENT dev)
install(DIRECTORY applications/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT dev)
