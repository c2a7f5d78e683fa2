// The static memory plan of a trace: the intermediates' buffers are placed in
// one block so that no two alive at the same node overlap, the block is no
// larger than the most bytes ever alive at once (for these shapes, where
// placing the largest first is optimal), and a replay computes what the nodes
// computed in their own buffers.
#include <doctest/doctest.h>
#include <kiln/kiln.h>

#include <cstdint>
#include <vector>

#include "backend/recording.h"
#include "core/tensor_impl.h"
#include "graph/passes.h"

namespace k = kiln;

namespace {

/// A recorded graph over buffers of given sizes: node j writes buffer j from
/// the buffers it reads (each value: j + the sum of the first values it reads).
struct Graph {
  k::backend::Recording rec;
  std::vector<k::Tensor> buf;

  Graph(const std::vector<int64_t>& sizes, const std::vector<std::vector<int>>& reads) {
    {
      k::backend::RecordingScope scope(rec, false);  // the allocations a plan may move
      for (int64_t n : sizes) buf.push_back(k::Tensor::empty(k::Shape{n}));
    }
    for (std::size_t j = 0; j < sizes.size(); ++j) {
      k::backend::Node node;
      node.type = "Test";
      for (int r : reads[j]) node.inputs.push_back(buf[static_cast<std::size_t>(r)]);
      node.outputs = {buf[j]};
      node.run = [out = buf[j], in = node.inputs, j]() mutable {
        float v = static_cast<float>(j);
        for (const auto& t : in) v += t.data<float>()[0];
        float* o = out.data<float>();
        for (int64_t i = 0; i < out.size(); ++i) o[i] = v + static_cast<float>(i % 7);
      };
      rec.add(std::move(node));
    }
  }
  void run() {
    for (auto& n : rec.nodes()) n.run();
  }
  uintptr_t begin(std::size_t i) const { return reinterpret_cast<uintptr_t>(buf[i].impl()->storage->data); }
  uintptr_t end(std::size_t i) const { return begin(i) + buf[i].impl()->storage->nbytes; }
};

}  // namespace

TEST_CASE("memory plan: a training-shaped graph fits in the bytes alive at once, with no live overlap") {
  // Forward a0 -> a1 -> a2, backward g2 (a2) -> g1 (g2, a1) -> g0 (g1, a0); g0 is the output.
  // At node 4, a0, a1, g2 and g1 are alive: 13 * 1024 floats, the most at any node.
  // Slots sized by their first users would need 14 * 1024 (g2 cannot take a2's slot, busy at node 3).
  const std::vector<int64_t> sizes{4096, 4096, 1024, 1024, 4096, 4096};
  const std::vector<std::vector<int>> reads{{}, {0}, {1}, {2}, {3, 1}, {4, 0}};
  Graph eager(sizes, reads);
  eager.run();
  const std::vector<float> want(eager.buf[5].data<float>(), eager.buf[5].data<float>() + 4096);

  Graph g(sizes, reads);
  const std::size_t total = (4096 * 3 + 1024 * 2) * 4;  // the five planned buffers (g0 is kept apart)
  const std::size_t saved = k::graph::plan_memory(g.rec, {g.buf[5]});
  CHECK(total - saved == 13 * 1024 * 4);

  const std::vector<std::pair<int, int>> alive{{0, 5}, {1, 4}, {2, 3}, {3, 4}, {4, 5}};  // first and last node
  for (std::size_t a = 0; a < alive.size(); ++a)
    for (std::size_t b = a + 1; b < alive.size(); ++b) {
      const bool together = alive[a].first <= alive[b].second && alive[b].first <= alive[a].second;
      if (together) CHECK_MESSAGE((g.end(a) <= g.begin(b) || g.end(b) <= g.begin(a)), "buffers ", a, " and ", b);
    }
  g.rec.replay();
  for (int64_t i = 0; i < 4096; ++i) REQUIRE(g.buf[5].data<float>()[i] == want[static_cast<std::size_t>(i)]);
}

TEST_CASE("memory plan: buffers never alive together share memory; the output keeps its own") {
  // A chain: each buffer is read only by the next node, so two places serve them all.
  const std::vector<int64_t> sizes{2048, 2048, 2048, 2048, 2048};
  const std::vector<std::vector<int>> reads{{}, {0}, {1}, {2}, {3}};
  Graph g(sizes, reads);
  const std::size_t saved = k::graph::plan_memory(g.rec, {g.buf[4]});
  CHECK(saved == 2 * 2048 * 4);  // four buffers in the space of two
  CHECK(g.begin(0) == g.begin(2));
  CHECK(g.begin(1) == g.begin(3));
  CHECK(g.begin(0) != g.begin(1));
  for (std::size_t i = 0; i < 4; ++i) CHECK((g.end(4) <= g.begin(i) || g.end(i) <= g.begin(4)));
  g.rec.replay();
  CHECK(g.buf[4].data<float>()[0] == doctest::Approx(0 + 1 + 2 + 3 + 4));
}
