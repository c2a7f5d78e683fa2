#pragma once
// Pictures of training: loss/metric curves and the layer graph.
//
//   auto history = model.fit(x, y, {.epochs = 20, .validation_split = 0.2});
//   kiln::utils::plot_history(history, "history.svg");   // self-contained SVG, no dependency
//   kiln::utils::plot_history(history, "history.png");   // via rsvg-convert or ImageMagick's convert
//   auto r = kiln::utils::plot_model(model, "model.svg"); // model.dot always; model.svg via Graphviz `dot`
//   if (!r) std::cerr << r.message << "\n";
#include <string>
#include <vector>

#include "kiln/training/callback.h"

namespace kiln {
class Model;
}

namespace kiln::utils {

/// Options of plot_history().
struct PlotOptions {
  /// Keys to draw (train keys, e.g. {"loss", "accuracy"}); empty = every key in the history.
  std::vector<std::string> metrics;
  std::string title;        ///< drawn above the panels when not empty
  int panel_width = 460;    ///< pixels per panel
  int panel_height = 300;  ///< Pixel height of each panel.
  int columns = 2;          ///< panels per row
};

/// Draws one panel per metric: the train curve ("loss") and, when present, the
/// validation curve ("val_loss") against the epoch (1-based), with axes, ticks,
/// labels and a legend. Each curve is exactly one SVG path element (class "curve",
/// data-key = its history key); nothing else in the picture is a path.
/// Non-finite values leave a gap. Writes SVG, or PNG when `path` ends in ".png"
/// (through `rsvg-convert` or `convert`; throws RuntimeError naming both when
/// neither is installed). Throws ValueError for an empty history or an unknown metric.
void plot_history(const History& history, const std::string& path, const PlotOptions& options = {});
/// The SVG text plot_history writes.
std::string history_svg(const History& history, const PlotOptions& options = {});

/// Options of plot_model() and model_to_dot() (Keras's plot_model arguments).
struct PlotModelOptions {
  bool show_shapes = true;  ///< Shows each layer's input and output shapes.
  bool show_layer_names = true;  ///< Shows layer names.
  std::string rankdir = "TB";  ///< Graphviz rankdir: "TB" (vertical) or "LR" (horizontal)
  bool show_dtype = false;  ///< Shows each layer's dtype.
  int dpi = 96;  ///< Resolution of PNG output.
};

/// What plot_model() did; converts to true when the picture was rendered.
struct PlotModelResult {
  bool ok = false;  ///< Whether rendering succeeded.
  std::string message;      ///< why rendering failed (empty when ok)
  std::string dot_path;     ///< the DOT file, always written
  std::string output_path;  ///< the rendered file (== dot_path for ".dot")
  /// ok.
  explicit operator bool() const { return ok; }
};

/// The Graphviz DOT text of the model's layer graph: one node per layer (its
/// name, class and input/output shapes, as Keras's plot_model draws them),
/// edges from the functional graph (a chain for Sequential; none for a
/// subclassed model, whose wiring is code).
std::string model_to_dot(const Model& model, const PlotModelOptions& options = {});
/// Writes `path` itself when it ends in ".dot", else the DOT next to it
/// (model.svg -> model.dot), then renders ".svg", ".png" or ".pdf" through
/// Graphviz's `dot`. When `dot` is missing or fails, returns ok = false with a
/// message (the .dot is still written). Throws IOError when the .dot cannot be written.
PlotModelResult plot_model(const Model& model, const std::string& path, const PlotModelOptions& options = {});

}  // namespace kiln::utils
