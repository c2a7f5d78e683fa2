// Concrete functions: the graph of one trace, printed as a table, as DOT, as
// TensorFlow's GraphDef text, and written for TensorBoard's graph view.
#include <doctest/doctest.h>
#include <kiln/kiln.h>

#include <filesystem>
#include <string>
#include <vector>

namespace k = kiln;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> names_of(const k::ConcreteFunction& cf) {
  std::vector<std::string> out;
  for (const auto& op : cf.operations()) out.push_back(op.name + "=" + op.type);
  return out;
}

const k::GraphOp& op_named(const k::ConcreteFunction& cf, const std::string& name) {
  for (const auto& op : cf.operations())
    if (op.name == name) return op;
  FAIL("no op named " << name);
  throw;
}

}  // namespace

TEST_CASE("concrete function: the ops of x * x + y with their inputs, shapes and dtypes") {
  auto f = k::function([](const k::Tensor& x, const k::Tensor& y) { return x * x + y; }, {.name = "square_plus"});
  auto cf = f.get_concrete_function(k::TensorSpec({2, 3}, k::int32), k::TensorSpec({3}, k::int32));
  CHECK(names_of(cf) == std::vector<std::string>{"args_0=Placeholder", "args_1=Placeholder", "Mul=Mul",
                                                 "AddV2=AddV2", "Identity=Identity"});
  CHECK(op_named(cf, "Mul").inputs == std::vector<std::string>{"args_0", "args_0"});
  CHECK(op_named(cf, "AddV2").inputs == std::vector<std::string>{"Mul", "args_1"});
  CHECK(op_named(cf, "Identity").inputs == std::vector<std::string>{"AddV2"});
  CHECK(op_named(cf, "AddV2").output_shapes.at(0) == k::Shape({2, 3}));
  CHECK(op_named(cf, "AddV2").output_dtypes.at(0) == k::int32);
  CHECK(cf.structured_input_signature() ==
        std::vector<std::string>{"args_0: TensorSpec(shape=(2, 3), dtype=int32, name=None)",
                                 "args_1: TensorSpec(shape=(3,), dtype=int32, name=None)"});
  const std::string table = cf.to_string();
  CHECK(table.find("ConcreteFunction square_plus(") == 0);
  CHECK(table.find("Mul          args_0, args_0") != std::string::npos);
}

TEST_CASE("concrete function: tracing for the graph alone changes nothing, and a later call replays it") {
  k::Variable v(k::Tensor(0.f));
  int bodies = 0;
  auto f = k::function([&](const k::Tensor& x) {
    ++bodies;
    v.assign_add(k::sum(x));
    return v.value() * 2.f;
  });
  auto cf = f.get_concrete_function(k::TensorSpec({2}, k::float32));
  CHECK(bodies == 1);
  CHECK(f.tracing_count() == 1);
  CHECK(v.value().item<float>() == 0.f);  // the trace recorded the assignment without running it
  bool assigns = false;
  for (const auto& op : cf.operations()) assigns |= op.type == "AddV2" && !op.inputs.empty();
  CHECK(assigns);
  CHECK(f(k::Tensor({1.f, 2.f})).item<float>() == 6.f);  // replayed: the body does not run again
  CHECK(f(k::Tensor({1.f, 2.f})).item<float>() == 12.f);
  CHECK(bodies == 1);
  CHECK(f.tracing_count() == 1);
  // A spec with an unknown dimension has no single graph without an input_signature.
  CHECK_THROWS_WITH_AS(f.get_concrete_function(k::TensorSpec({-1}, k::float32)),
                       doctest::Contains("get_concrete_function needs a fully defined shape"), k::ValueError);
}

TEST_CASE("concrete function: variables read inside are named by their path") {
  k::Variable w(k::Tensor({{1.f}, {2.f}}), {.name = "kernel"});
  auto f = k::function([&](const k::Tensor& x) { return k::matmul(x, w.value()); });
  auto cf = f.get_concrete_function(k::TensorSpec({4, 2}, k::float32));
  CHECK(op_named(cf, "kernel").type == "VarHandleOp");
  CHECK(op_named(cf, "kernel/Read").type == "ReadVariableOp");
  CHECK(op_named(cf, "kernel/Read").inputs == std::vector<std::string>{"kernel"});
  CHECK(op_named(cf, "MatMul").inputs == std::vector<std::string>{"args_0", "kernel/Read"});
  // The backend's view of the product: a batch of one.
  CHECK(op_named(cf, "MatMul").output_shapes.at(0) == k::Shape({1, 4, 1}));
}

TEST_CASE("concrete function: DOT and GraphDef text") {
  auto f = k::function([](const k::Tensor& x) { return k::relu(x); }, {.name = "simple_relu"});
  auto cf = f.get_concrete_function(k::Tensor(1));
  const std::string dot = cf.to_dot();
  CHECK(dot.find("digraph \"simple_relu\" {") == 0);
  CHECK(dot.find("\"args_0\" -> \"Relu\" [label=\"()\"];") != std::string::npos);
  CHECK(dot.find("\"Relu\" -> \"Identity\"") != std::string::npos);
  const std::string gd = cf.as_graph_def();
  CHECK(gd.find("node {\n  name: \"args_0\"\n  op: \"Placeholder\"\n  attr {\n    key: \"dtype\"\n    value {\n"
                "      type: DT_INT32\n") == 0);
  CHECK(gd.find("  name: \"Relu\"\n  op: \"Relu\"\n  input: \"args_0\"\n  attr {\n    key: \"T\"") != std::string::npos);
}

TEST_CASE("concrete function: summary::graph and trace_on / trace_export write GraphDef events") {
  const fs::path dir = fs::temp_directory_path() / "kiln_test_graph_summary";
  fs::remove_all(dir);
  auto f = k::function([](const k::Tensor& x) { return x * 3.f; }, {.name = "triple"});
  auto writer = k::summary::create_file_writer(dir.string());
  {
    auto scope = writer.as_default();
    CHECK_FALSE(k::summary::trace_export("nothing", 0));  // trace_on was not called
    k::summary::trace_on();
    CHECK(f(k::Tensor({1.f, 2.f})).to_vector<float>() == std::vector<float>{3.f, 6.f});
    CHECK(k::summary::trace_export("triple_trace", 7));
    CHECK(k::summary::graph(f.get_concrete_function(k::Tensor({1.f, 2.f}))));
  }
  writer.close();
  const auto records = k::io::read_tfrecords(writer.path());
  REQUIRE(records.size() == 3);  // file version, then two graphs
  for (std::size_t i : {1u, 2u}) {
    const std::string& e = records[i];
    // Event.graph_def (field 4, length-delimited) holding NodeDefs for the placeholder and the Mul.
    CHECK(e.find(std::string("\x22", 1)) != std::string::npos);
    CHECK(e.find("args_0") != std::string::npos);
    CHECK(e.find("Placeholder") != std::string::npos);
    CHECK(e.find("_output_shapes") != std::string::npos);
  }
  CHECK(records[1].find(std::string("\x10\x07", 2)) != std::string::npos);  // step 7
  fs::remove_all(dir);
}

TEST_CASE("function: before_trace runs before each trace that runs the body, not on replays or graph-only traces") {
  int hooks = 0;
  std::vector<int> hooks_seen_by_body;
  auto f = k::function([&](const k::Tensor& x) {
    hooks_seen_by_body.push_back(hooks);
    return x + 1.f;
  }, {.name = "hooked", .before_trace = [&] { ++hooks; }});
  f(k::Tensor({1.f}));
  f(k::Tensor({2.f}));                                      // replay
  f(k::Tensor({1.f, 2.f}));                                 // new shape: a trace
  f.get_concrete_function(k::TensorSpec({3}, k::float32));  // records without running its device work: no hook
  CHECK(hooks == 2);
  CHECK(hooks_seen_by_body == std::vector<int>{1, 2, 2});  // each trace that runs saw its hook first
  CHECK(f.tracing_count() == 3);
}
