#include "distribute/nccl_buckets.h"

#include <chrono>
#include <map>
#include <mutex>
#include <thread>

#include "backend/backend.h"
#include "backend/cuda/nccl_api.h"
#include "backend/cuda_loader.h"
#include "distribute/communicator.h"
#include "kiln/distribute/data_parallel.h"
#include "kiln/ops/math_ops.h"

namespace kiln::distribute {

namespace {

const cuda::NcclApi* api(std::string* why) { return cuda::nccl_api(why); }

/// The process's NCCL communicator on GPU `index`, made on first use.
void* comm_for(int index) {
  static std::mutex mu;
  static std::map<int, void*> comms;
  std::lock_guard<std::mutex> lock(mu);
  if (auto it = comms.find(index); it != comms.end()) return it->second;
  std::string why;
  const cuda::NcclApi* nccl = api(&why);
  if (!nccl) throw DistributedError("DataParallel: NCCL is not available: " + why);
  Communicator& c = Communicator::instance();
  std::string id, error;
  if (c.rank() == 0 && !nccl->unique_id(&id, &error)) throw DistributedError("DataParallel: " + error);
  id = broadcast_text(id, "the NCCL unique id");
  void* comm = nccl->init(index, id, c.size(), c.rank(), &error);
  if (!comm) throw DistributedError("DataParallel: NCCL could not start on cuda:" + std::to_string(index) + ": " + error);
  return comms[index] = comm;
}

}  // namespace

std::string nccl_unavailable_reason(Device device) {
  if (device.is_cpu()) return "the model's variables are on the CPU; NCCL reduces GPU tensors";
  std::string why;
  return api(&why) ? "" : why;
}

bool nccl_available(std::string* why) {
  std::string reason;
  const bool ok = api(&reason) != nullptr;
  if (why) *why = reason;
  return ok;
}

NcclBucket::NcclBucket(std::size_t count, DType dtype, Device device)
    : data_(Tensor::empty(Shape({static_cast<int64_t>(count)}), dtype, device)), comm_(comm_for(device.index)) {}

void NcclBucket::stage(const Tensor& g, std::size_t offset, double share) {
  Tensor scaled = share == 1.0 ? g : g * share;
  backend::backend_for(data_.device())
      .strided_copy(scaled, 0, {1}, data_, static_cast<int64_t>(offset), {1}, Shape({scaled.size()}), false);
}

void NcclBucket::zero(std::size_t offset, std::size_t count) {
  Tensor z = Tensor::empty(Shape({static_cast<int64_t>(count)}), data_.dtype(), data_.device());
  auto& be = backend::backend_for(data_.device());
  be.fill(z, 0.0);
  be.strided_copy(z, 0, {1}, data_, static_cast<int64_t>(offset), {1}, Shape({z.size()}), false);
}

void NcclBucket::launch(const std::string& what) {
  std::string error;
  what_ = what;
  pending_ = api(&error)->all_reduce(comm_, data_.raw_data(), static_cast<std::size_t>(data_.size()),
                                     data_.dtype() == DType::float32 ? 0 : 1, &error);
  if (!pending_) throw DistributedError("DataParallel: " + what + ": " + error);
}

void NcclBucket::join() {
  if (!pending_) return;
  const cuda::NcclApi* nccl = api(nullptr);
  Communicator& c = Communicator::instance();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(c.timeout());
  std::string error;
  int state = 0;
  while ((state = nccl->poll(pending_, &error)) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      nccl->abort(comm_);
      const std::string why = "NCCL " + what_ + " did not finish within " + std::to_string(static_cast<int>(c.timeout())) +
                              " s (DataParallelOptions::timeout, KILN_COLLECTIVE_TIMEOUT)";
      c.report_failure(why);
      throw DistributedError("DataParallel (rank " + std::to_string(c.rank()) + "): " + why);
    }
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
  if (state < 0) throw DistributedError("DataParallel: NCCL " + what_ + ": " + error);
  nccl->join(pending_);
  pending_ = nullptr;
}

void NcclBucket::read(std::size_t offset, Tensor& out) const {
  backend::backend_for(out.device())
      .strided_copy(data_, static_cast<int64_t>(offset), {1}, out, 0, {1}, Shape({out.size()}), false);
}

}  // namespace kiln::distribute
