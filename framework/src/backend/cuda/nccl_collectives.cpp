// The NCCL half of nccl_api.h, inside the CUDA plugin.
#include <cuda_runtime.h>
#include <nccl.h>

#include <cstring>
#include <string>

#include "backend/cuda/cuda_backend.h"
#include "backend/cuda/nccl_api.h"

namespace kiln::cuda {

CudaBackend* backend_at(int index);

namespace {

struct Comm {
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
  int index = 0;
};

struct Pending {
  Comm* comm = nullptr;
  cudaEvent_t done = nullptr;
};

bool nccl_ok(ncclResult_t r, const char* what, std::string* error) {
  if (r == ncclSuccess) return true;
  if (error) *error = std::string(what) + ": " + ncclGetErrorString(r);
  return false;
}

bool cuda_ok(cudaError_t r, const char* what, std::string* error) {
  if (r == cudaSuccess) return true;
  if (error) *error = std::string(what) + ": " + cudaGetErrorString(r);
  return false;
}

bool unique_id(std::string* id, std::string* error) {
  ncclUniqueId u;
  if (!nccl_ok(ncclGetUniqueId(&u), "ncclGetUniqueId", error)) return false;
  id->assign(u.internal, sizeof u.internal);
  return true;
}

void* init(int index, const std::string& id, int size, int rank, std::string* error) {
  if (id.size() != sizeof(ncclUniqueId::internal)) {
    if (error) *error = "NCCL unique id of " + std::to_string(id.size()) + " bytes";
    return nullptr;
  }
  ncclUniqueId u;
  std::memcpy(u.internal, id.data(), id.size());
  if (!cuda_ok(cudaSetDevice(index), "cudaSetDevice", error)) return nullptr;
  auto* c = new Comm;
  c->index = index;
  if (!cuda_ok(cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking), "cudaStreamCreate", error) ||
      !nccl_ok(ncclCommInitRank(&c->comm, size, u, rank), "ncclCommInitRank", error)) {
    if (c->stream) cudaStreamDestroy(c->stream);
    delete c;
    return nullptr;
  }
  return c;
}

void* all_reduce(void* comm, void* data, std::size_t count, int dtype, std::string* error) {
  auto* c = static_cast<Comm*>(comm);
  CudaBackend* b = backend_at(c->index);
  if (!b) {
    if (error) *error = "no CUDA device " + std::to_string(c->index);
    return nullptr;
  }
  if (!cuda_ok(cudaSetDevice(c->index), "cudaSetDevice", error)) return nullptr;
  // The gradients were written on the compute stream: the reduction starts after them.
  cudaEvent_t ready = nullptr;
  auto* p = new Pending{c, nullptr};
  const bool ok = cuda_ok(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming), "cudaEventCreate", error) &&
                  cuda_ok(cudaEventRecord(ready, b->ctx().stream()), "cudaEventRecord", error) &&
                  cuda_ok(cudaStreamWaitEvent(c->stream, ready, 0), "cudaStreamWaitEvent", error) &&
                  nccl_ok(ncclAllReduce(data, data, count, dtype == 0 ? ncclFloat32 : ncclFloat64, ncclSum, c->comm,
                                        c->stream),
                          "ncclAllReduce", error) &&
                  cuda_ok(cudaEventCreateWithFlags(&p->done, cudaEventDisableTiming), "cudaEventCreate", error) &&
                  cuda_ok(cudaEventRecord(p->done, c->stream), "cudaEventRecord", error);
  if (ready) cudaEventDestroy(ready);
  if (ok) return p;
  if (p->done) cudaEventDestroy(p->done);
  delete p;
  return nullptr;
}

int poll(void* handle, std::string* error) {
  auto* p = static_cast<Pending*>(handle);
  const cudaError_t q = cudaEventQuery(p->done);
  if (q == cudaSuccess) return 1;
  if (q != cudaErrorNotReady) return cuda_ok(q, "the NCCL stream", error) ? 1 : -1;
  ncclResult_t async = ncclSuccess;
  ncclCommGetAsyncError(p->comm->comm, &async);
  if (async != ncclSuccess && async != ncclInProgress) return nccl_ok(async, "ncclAllReduce", error) ? 1 : -1;
  return 0;
}

void join(void* handle) {
  auto* p = static_cast<Pending*>(handle);
  if (CudaBackend* b = backend_at(p->comm->index)) cudaStreamWaitEvent(b->ctx().stream(), p->done, 0);
  cudaEventDestroy(p->done);
  delete p;
}

void abort_comm(void* comm) {
  auto* c = static_cast<Comm*>(comm);
  ncclCommAbort(c->comm);
  c->comm = nullptr;
}

std::string version() {
  int v = 0;
  ncclGetVersion(&v);
  return "NCCL " + std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100);
}

}  // namespace

const NcclApi* nccl_api() {
  static const NcclApi api{unique_id, init, all_reduce, poll, join, abort_comm, version};
  return &api;
}

}  // namespace kiln::cuda
