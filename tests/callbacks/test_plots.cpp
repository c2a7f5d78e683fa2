// plot_history (SVG checked structurally: valid XML, one <path> per curve) and
// plot_model (DOT with every layer and edge; SVG/PNG only when Graphviz is there).
#include <doctest/doctest.h>

#include "test_util.h"

#include <cmath>
#include <limits>

#include "callback_test_utils.h"
#include "kiln/core/error.h"
#include "kiln/nn/input_layer.h"
#include "kiln/training/sequential.h"
#include "kiln/utils/plot.h"

namespace fs = std::filesystem;
namespace ku = kiln::utils;

namespace {
/// Runs `fn` with PATH pointing at an empty directory, so no converter or `dot` is found.
template <class F>
void without_tools(const cbtest::TempDir& dir, F fn) {
  const char* old = std::getenv("PATH");
  const std::string saved = old ? old : "";
  fs::create_directories(dir / "empty_bin");
  setenv("PATH", (dir / "empty_bin").c_str(), 1);
  try {
    fn();
  } catch (...) {
    setenv("PATH", saved.c_str(), 1);
    throw;
  }
  setenv("PATH", saved.c_str(), 1);
}

kiln::History make_history(int epochs, bool with_val = true) {
  kiln::History h;
  h.on_train_begin({});
  for (int e = 0; e < epochs; ++e) {
    kiln::Logs l{{"loss", 1.0 / (e + 1)}, {"accuracy", 0.5 + 0.1 * e}};
    if (with_val) {
      l.set("val_loss", 1.2 / (e + 1));
      l.set("val_accuracy", 0.45 + 0.1 * e);
    }
    l.set("learning_rate", 0.01);
    h.on_epoch_end(e, l);
  }
  return h;
}

std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (auto p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

/// Parses the SVG with Python's XML parser; returns the data-key of every <path>
/// in document order, comma-separated ("" and a failure when it is not valid XML).
std::string xml_path_keys(const std::string& svg_path, const cbtest::TempDir& dir) {
  const std::string out = dir / "paths.txt";
  const std::string code =
      "import sys, xml.dom.minidom as m\n"
      "d = m.parse(sys.argv[1])\n"
      "assert d.documentElement.tagName == 'svg'\n"
      "open(sys.argv[2], 'w').write(','.join(p.getAttribute('data-key') for p in d.getElementsByTagName('path')))\n";
  std::ofstream(dir / "check.py") << code;
  const int rc = cbtest::run_python(cbtest::quote(dir / "check.py") + " " + cbtest::quote(svg_path) + " " +
                                    cbtest::quote(out));
  REQUIRE_MESSAGE(rc == 0, "the SVG is not valid XML");
  return cbtest::read_file(out);
}

class Twice : public kiln::Layer {
 public:
  using kiln::Layer::Layer;
  std::string class_name() const override { return "Twice"; }

 protected:
  kiln::Tensor call(const kiln::Tensor& x, bool) override { return x * 2.0; }
};

class Sum2 : public kiln::Layer {
 public:
  using kiln::Layer::Layer;
  std::string class_name() const override { return "Sum2"; }
  bool takes_list() const override { return true; }

 protected:
  std::vector<kiln::Tensor> call(const std::vector<kiln::Tensor>& xs, bool) override { return {xs.at(0) + xs.at(1)}; }
};
}  // namespace

TEST_CASE("plot_history: one panel per metric, one path per curve, valid XML") {
  cbtest::TempDir dir;
  const auto h = make_history(5);
  const std::string path = dir / "history.svg";
  ku::plot_history(h, path, {.title = "Training & validation"});
  const std::string svg = cbtest::read_file(path);
  CHECK(svg.rfind("<?xml", 0) == 0);
  // loss, accuracy, learning_rate panels; train+val curves for the first two.
  CHECK(count(svg, "<g class=\"panel\"") == 3);
  CHECK(count(svg, "<path") == 5);
  CHECK(count(svg, ">epoch</text>") == 3);
  CHECK(count(svg, "<g class=\"legend\">") == 3);
  CHECK(svg.find("Training &amp; validation") != std::string::npos);
  if (!cbtest::have_python3()) {
    MESSAGE("python3 is not installed: XML validity not checked");
    return;
  }
  CHECK(xml_path_keys(path, dir) == "loss,val_loss,accuracy,val_accuracy,learning_rate");
}

TEST_CASE("plot_history: each curve's points follow the values") {
  kiln::History h;
  const double values[] = {4.0, 2.0, std::numeric_limits<double>::quiet_NaN(), 1.0};
  for (int e = 0; e < 4; ++e) {
    kiln::Logs l{{"loss", values[e]}};
    h.on_epoch_end(e, l);
  }
  const std::string svg = ku::history_svg(h);
  CHECK(count(svg, "<path") == 1);
  const auto d0 = svg.find(" d=\"", svg.find("<path"));
  const std::string d = svg.substr(d0 + 4, svg.find('"', d0 + 4) - d0 - 4);
  // Two sub-paths around the NaN: M e1 L e2, M e4.
  CHECK(count(d, "M") == 2);
  CHECK(count(d, "L") == 1);
  // Larger loss is higher up (smaller y).
  double x1, y1, x2, y2;
  REQUIRE(std::sscanf(d.c_str(), "M%lf %lf L%lf %lf", &x1, &y1, &x2, &y2) == 4);
  CHECK(x2 > x1);
  CHECK(y1 < y2);
}

TEST_CASE("plot_history: metric selection and errors") {
  const auto h = make_history(3);
  const std::string svg = ku::history_svg(h, {.metrics = {"accuracy"}});
  CHECK(count(svg, "<path") == 2);
  CHECK(svg.find("data-key=\"val_accuracy\"") != std::string::npos);
  CHECK_THROWS_AS(ku::history_svg(h, {.metrics = {"precision"}}), kiln::ValueError);
  CHECK_THROWS_AS(ku::history_svg(kiln::History{}), kiln::ValueError);
  // A history without validation: one curve per panel; a single epoch still draws.
  CHECK(count(ku::history_svg(make_history(1, false)), "<path") == 3);
}

TEST_CASE("plot_history: PNG through a converter, or a clear error") {
  cbtest::TempDir dir;
  const std::string png = dir / "history.png";
  try {
    ku::plot_history(make_history(3), png);
    const std::string bytes = cbtest::read_file(png);
    CHECK(bytes.substr(0, 8) == std::string("\x89PNG\r\n\x1a\n", 8));
  } catch (const kiln::RuntimeError& e) {
    MESSAGE("no working SVG->PNG converter here: " << std::string(e.what()));
    CHECK(std::string(e.what()).find("plot_history") != std::string::npos);
    CHECK_FALSE(fs::exists(png + ".tmp.svg"));
  }
}

TEST_CASE("plot_history: PNG without any converter is a clear error") {
  cbtest::TempDir dir;
  const std::string png = dir / "history.png";
  without_tools(dir, [&] {
    try {
      ku::plot_history(make_history(2), png);
      FAIL("expected a RuntimeError");
    } catch (const kiln::RuntimeError& e) {
      const std::string msg = e.what();
      CHECK(msg.find("rsvg-convert") != std::string::npos);
      CHECK(msg.find("convert") != std::string::npos);
    }
  });
  CHECK_FALSE(fs::exists(png));
}

TEST_CASE("plot_model: a functional graph with a branch and a merge") {
  kiln::clear_session();
  auto in = kiln::Input({3}, {.name = "features"});
  auto a = std::make_shared<Twice>(kiln::LayerOptions{.name = "scale_a"});
  auto b = std::make_shared<Twice>(kiln::LayerOptions{.name = "scale_b"});
  auto c = std::make_shared<Twice>(kiln::LayerOptions{.name = "scale_c"});
  auto add = std::make_shared<Sum2>(kiln::LayerOptions{.name = "merge"});
  auto ha = (*a)(in);
  auto out = (*add)(std::vector<kiln::Tensor>{(*b)(ha), (*c)(ha)});
  kiln::Model model(in, out.at(0), {.name = "branchy"});

  const std::string dot = ku::model_to_dot(model);
  CHECK(dot.rfind("digraph \"branchy\" {", 0) == 0);
  for (const char* n : {"features", "scale_a", "scale_b", "scale_c", "merge"})
    CHECK(dot.find("<b>" + std::string(n) + "</b>") != std::string::npos);
  CHECK(dot.find("(InputLayer)") != std::string::npos);
  CHECK(dot.find("(Sum2)") != std::string::npos);
  for (const char* e : {"\"features\" -> \"scale_a\";", "\"scale_a\" -> \"scale_b\";", "\"scale_a\" -> \"scale_c\";",
                        "\"scale_b\" -> \"merge\";", "\"scale_c\" -> \"merge\";"})
    CHECK(dot.find(e) != std::string::npos);
  CHECK(count(dot, " -> ") == 5);
  CHECK(dot.find("Input shape: [(None, 3), (None, 3)]") != std::string::npos);  // merge's two inputs
  CHECK(count(dot, "Output shape: (None, 3)") == 5);

  const std::string no_shapes = ku::model_to_dot(model, {.show_shapes = false, .show_layer_names = false, .rankdir = "LR"});
  CHECK(no_shapes.find("Output shape") == std::string::npos);
  CHECK(no_shapes.find("<b>scale_a</b>") == std::string::npos);
  CHECK(no_shapes.find("rankdir=\"LR\"") != std::string::npos);
}

TEST_CASE("plot_model: Sequential is a chain; .dot always written, .svg only with Graphviz") {
  kiln::clear_session();
  cbtest::TempDir dir;
  kiln::Sequential seq({std::make_shared<kiln::InputLayerImpl>(kiln::Shape{4}, kiln::InputOptions{.name = "in"}),
                        std::make_shared<Twice>(kiln::LayerOptions{.name = "first"}),
                        std::make_shared<Twice>(kiln::LayerOptions{.name = "second"})},
                       {.name = "chain"});
  auto r = ku::plot_model(seq, dir / "model.dot");
  CHECK(r.ok);
  const std::string dot = cbtest::read_file(dir / "model.dot");
  CHECK(dot.find("\"in\" -> \"first\";") != std::string::npos);
  CHECK(dot.find("\"first\" -> \"second\";") != std::string::npos);
  CHECK(count(dot, " -> ") == 2);
  CHECK(count(dot, "Output shape: (None, 4)") == 3);

  auto svg = ku::plot_model(seq, dir / "model.svg");
  CHECK(svg.dot_path == dir / "model.dot");
  CHECK(fs::exists(svg.dot_path));
  const bool have_dot = std::system("command -v dot >/dev/null 2>&1") == 0;
  if (kiln_test::tools_required()) CHECK_MESSAGE(have_dot, "Graphviz's dot is missing (Debian package graphviz)");
  if (have_dot) {
    CHECK(svg.ok);
    CHECK(cbtest::read_file(dir / "model.svg").find("<svg") != std::string::npos);
  } else {
    CHECK_FALSE(svg.ok);
    CHECK(svg.message.find("Graphviz") != std::string::npos);
    CHECK(svg.message.find("model.dot") != std::string::npos);
    CHECK_FALSE(fs::exists(dir / "model.svg"));
  }
  // Without Graphviz: the .dot is written, ok is false and the message says what to install.
  fs::remove(dir / "model.dot");
  without_tools(dir, [&] {
    auto png = ku::plot_model(seq, dir / "model.png");
    CHECK_FALSE(png.ok);
    CHECK_FALSE(static_cast<bool>(png));
    CHECK(png.message.find("Graphviz") != std::string::npos);
    CHECK(png.message.find("graphviz") != std::string::npos);
    CHECK(fs::exists(dir / "model.dot"));
    CHECK_FALSE(fs::exists(dir / "model.png"));
  });
}
