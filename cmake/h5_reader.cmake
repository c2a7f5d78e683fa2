# kiln-h5-reader: the HDF5 sandbox's child as a program (framework/src/io/h5_reader_main.cpp).
# libkiln runs it to parse untrusted HDF5 files; it looks for it in kiln/ beside itself
# (the build folder, or the install's lib folder). Without it (a static libkiln, or a
# program built without this target), the sandbox forks the loading process instead,
# which is as safe but slower: the fork's copy-on-write makes the loader's next writes fault.
add_executable(kiln_h5_reader ${CMAKE_CURRENT_SOURCE_DIR}/framework/src/io/h5_reader_main.cpp)
target_include_directories(kiln_h5_reader PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/framework/src)
target_link_libraries(kiln_h5_reader PRIVATE kiln)
set_target_properties(kiln_h5_reader PROPERTIES OUTPUT_NAME kiln-h5-reader
                      RUNTIME_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/kiln
                      INSTALL_RPATH "$ORIGIN/..")
install(TARGETS kiln_h5_reader RUNTIME DESTINATION ${CMAKE_INSTALL_LIBDIR}/kiln COMPONENT runtime)
