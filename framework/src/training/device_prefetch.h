#pragma once
// Private: batches made and copied to a GPU ahead of the step that uses them.
// A worker thread pulls the next batches of a pass (slicing and shuffling on
// the host) and queues their copies to the device, while the training thread
// runs the current step; the host's share of a step then overlaps the
// device's instead of following it. Keras gets the same from tf.data's
// prefetching, PyTorch from its loader's pinned-memory thread.
#include <cstddef>
#include <optional>

#include "kiln/core/device.h"
#include "training/data_adapter.h"

namespace kiln::training {

/// `b` with every tensor on `d` (itself when nothing needs to move to the CPU).
Batch batch_to(const Batch& b, Device d);

/// The batches of `pull`, at most `limit` of them (all when absent), each
/// moved to `device` by a worker thread that stays at most `depth` batches
/// ahead. What the pull or a copy throws comes after the batches made before
/// it. Destroying the returned pull (and every copy of it) stops and joins
/// the worker, after the pull it may be inside.
BatchPull prefetch_to_device(BatchPull pull, Device device, std::optional<int> limit, std::size_t depth = 2);

}  // namespace kiln::training
