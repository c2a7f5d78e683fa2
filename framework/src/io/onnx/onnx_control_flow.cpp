// kiln::cond as ONNX ops: both branches are written and each output is a
// Where on the predicate. That is exact for branches without side effects,
// which a branch that assigns a variable is not, so such a branch is refused.
#include "io/onnx/onnx_writer.h"

namespace kiln::io::onnx {

void GraphWriter::emit_if(const Pair& p) {
  for (const auto* n : {&p.a, &p.b})
    for (const auto& branch : n->branches)
      for (const auto& node : branch.rec->nodes())
        for (const auto& o : node.outputs)
          if (!branch.rec->allocated_here(o.impl()->storage))
            fail("a branch writes a buffer it did not make (it assigns a variable), which an exported graph cannot "
                 "do conditionally");
  const backend::Node* self = current_;
  std::string pred = in(p, 0);
  if (p.a.inputs[0].dtype() != DType::bool_) pred = cast(pred, DType::bool_);
  pred = node1("Reshape", {pred, ints({})});
  for (std::size_t k = 0; k < 2; ++k) emit_all(*p.a.branches[k].rec, *p.b.branches[k].rec);
  current_ = self;
  const auto& ta = p.a.branches[0].outputs;
  const auto& fa = p.a.branches[1].outputs;
  const auto& tb = p.b.branches[0].outputs;
  const auto& fb = p.b.branches[1].outputs;
  for (std::size_t j = 0; j < ta.size(); ++j) {
    const std::string t = value_of(ta[j], tb[j], ta[j].shape(), tb[j].shape());
    const std::string f = value_of(fa[j], fb[j], ta[j].shape(), tb[j].shape());
    set(p, j, node1("Where", {pred, t, f}), ta[j].dtype());
  }
  // The If's last output records which branch ran (for its gradient).
  if (p.a.outputs.size() > ta.size()) set(p, ta.size(), pred, DType::bool_);
}

}  // namespace kiln::io::onnx
