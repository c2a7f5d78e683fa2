# Debian packages with CPack (scripts/package.sh builds them):
#   libkiln      the shared libraries, the oneDNN plugin and the bundled MNIST digits;
#   libkiln-mpi  the MPI transport plugin (kiln::distribute across processes), apart
#                so that a program without MPI does not pull Open MPI in;
#   libkiln-dev  the headers, the CMake package (find_package(kiln)) and pkg-config's kiln.pc.
# Dependencies come from dpkg-shlibdeps, so they are Debian 12's own packages.
# The CUDA plugin is never packaged: its libraries come from /usr/local/cuda,
# which no Debian package provides.

# pkg-config: pkg-config --cflags --libs kiln (and kiln-applications for keras.applications).
# C++20 is part of the flags: the public headers need it.
set(_kiln_pc_libdir "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(_kiln_pc_libdir "${CMAKE_INSTALL_LIBDIR}")
endif()
set(_kiln_pc_includedir "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
if(IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(_kiln_pc_includedir "${CMAKE_INSTALL_INCLUDEDIR}")
endif()
set(_kiln_pc_static "")
if(NOT KILN_SHARED)
  # A static libkiln.a needs its private libraries on the link line too.
  set(_kiln_pc_static "Libs.private:")
  foreach(_lib ${BLAS_LIBRARIES} ${FFTW3_LIBRARIES} ${HDF5_C_LIBRARIES} ${ZLIB_LIBRARIES}
               ${JPEG_LIBRARIES} ${PNG_LIBRARIES} ${GIF_LIBRARIES})
    string(APPEND _kiln_pc_static " ${_lib}")
  endforeach()
  string(APPEND _kiln_pc_static " -l${CMAKE_DL_LIBS}")
endif()
configure_file(${CMAKE_CURRENT_SOURCE_DIR}/cmake/kiln.pc.in ${CMAKE_CURRENT_BINARY_DIR}/kiln.pc @ONLY)
configure_file(${CMAKE_CURRENT_SOURCE_DIR}/cmake/kiln-applications.pc.in
               ${CMAKE_CURRENT_BINARY_DIR}/kiln-applications.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/kiln.pc ${CMAKE_CURRENT_BINARY_DIR}/kiln-applications.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT dev)

if(NOT PROJECT_IS_TOP_LEVEL)
  return()
endif()
set(CPACK_GENERATOR DEB)
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGE_NAME kiln)
set(CPACK_PACKAGE_VENDOR "Kiln")
set(CPACK_PACKAGE_CONTACT "Kiln developers <kiln@localhost>")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Keras-style deep learning in C++20")
set(CPACK_PACKAGING_INSTALL_PREFIX ${CMAKE_INSTALL_PREFIX})
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL runtime mpi dev)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# The packages' own libraries satisfy each other's references; shlibdeps looks there.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${CMAKE_CURRENT_BINARY_DIR})
set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME libkiln)
set(CPACK_DEBIAN_RUNTIME_DESCRIPTION
  "Keras-style deep learning in C++20: runtime\n Models, layers, training, saving in Keras's formats, ONNX export;\n CPU kernels over OpenBLAS and FFTW, with oneDNN convolutions.")
set(CPACK_DEBIAN_MPI_PACKAGE_NAME libkiln-mpi)
set(CPACK_DEBIAN_MPI_PACKAGE_DEPENDS "libkiln (= ${PROJECT_VERSION})")
set(CPACK_DEBIAN_MPI_DESCRIPTION "Keras-style deep learning in C++20: MPI transport\n Data-parallel training across processes started by mpirun.")
set(CPACK_DEBIAN_DEV_PACKAGE_NAME libkiln-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "libkiln (= ${PROJECT_VERSION})")
set(CPACK_DEBIAN_DEV_DESCRIPTION
  "Keras-style deep learning in C++20: development files\n Headers, the CMake package (find_package(kiln)) and pkg-config's kiln.pc.")
include(CPack)
