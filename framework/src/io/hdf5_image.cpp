// Opening an HDF5 image in place (hdf5_internal.h: borrow_image). By default
// libhdf5 copies an image twice (into the file-access list, then into the core
// driver); the sandboxed child reads a mapping of the file it was handed, so
// both copies of a large weights file are pure cost. These callbacks make
// libhdf5 use the caller's bytes as they are. The file is opened read-only, so
// they are never written, grown or freed by libhdf5.
#include <cstring>

#include "io/hdf5_internal.h"

namespace kiln::io::h5 {

namespace {

struct BorrowedImage {
  const void* data;
  std::size_t size;
};

void* borrowed_malloc(std::size_t size, H5FD_file_image_op_t op, void* udata) {
  auto* b = static_cast<BorrowedImage*>(udata);
  if (size != b->size) return nullptr;
  if (op == H5FD_FILE_IMAGE_OP_PROPERTY_LIST_SET || op == H5FD_FILE_IMAGE_OP_PROPERTY_LIST_COPY ||
      op == H5FD_FILE_IMAGE_OP_FILE_OPEN)
    return const_cast<void*>(b->data);
  return nullptr;  // H5Pget_file_image would hand out a copy the caller frees: not supported
}

void* borrowed_memcpy(void* dest, const void* src, std::size_t size, H5FD_file_image_op_t, void* udata) {
  auto* b = static_cast<BorrowedImage*>(udata);
  if (dest == b->data) return dest;  // the image onto itself: nothing to copy
  return std::memcpy(dest, src, size);
}

void* borrowed_realloc(void*, std::size_t, H5FD_file_image_op_t, void*) { return nullptr; }

herr_t borrowed_free(void*, H5FD_file_image_op_t, void*) { return 0; }

void* borrowed_udata_copy(void* udata) { return udata; }

herr_t borrowed_udata_free(void*) { return 0; }

}  // namespace

void borrow_image(hid_t fapl, const void* data, std::size_t size) {
  // Lives as long as the process: the child that uses it exits after one file.
  static BorrowedImage image;
  image = {data, size};
  H5FD_file_image_callbacks_t cb{borrowed_malloc, borrowed_memcpy, borrowed_realloc, borrowed_free,
                                 borrowed_udata_copy, borrowed_udata_free, &image};
  if (H5Pset_file_image_callbacks(fapl, &cb) < 0 || H5Pset_file_image(fapl, const_cast<void*>(data), size) < 0)
    fail("HDF5 image", "cannot hand the image to the library");
}

}  // namespace kiln::io::h5
