// plot_history: a hand-written SVG line chart, one panel per metric.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include "kiln/core/error.h"
#include "kiln/utils/plot.h"
#include "utils/shell.h"

namespace kiln::utils {

namespace {

using detail::shell_quote;
using detail::has_program;

std::string xml_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      case '\'': o += "&apos;"; break;
      default: o += c;
    }
  }
  return o;
}

std::string num(double v) {
  char b[32];
  std::snprintf(b, sizeof(b), "%.2f", v);
  return b;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  if (s.size() < suffix.size()) return false;
  std::string tail = s.substr(s.size() - suffix.size());
  std::transform(tail.begin(), tail.end(), tail.begin(), [](unsigned char c) { return std::tolower(c); });
  return tail == suffix;
}

/// "Nice" tick positions covering [lo, hi]: steps of 1, 2 or 5 times a power of ten.
std::vector<double> nice_ticks(double lo, double hi, int target, double* step_out) {
  const double raw = (hi - lo) / std::max(target, 1);
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * mag >= raw) {
      step = m * mag;
      break;
    }
  std::vector<double> t;
  for (double v = std::ceil(lo / step - 1e-9) * step; v <= hi + step * 1e-9; v += step)
    t.push_back(std::abs(v) < step * 1e-9 ? 0.0 : v);
  *step_out = step;
  return t;
}

std::string tick_label(double v, double step) {
  char b[32];
  const double a = std::max(std::abs(v), step);
  if (a >= 1e6 || step < 1e-4) {
    std::snprintf(b, sizeof(b), "%.3g", v);
  } else {
    const int decimals = std::max(0, static_cast<int>(-std::floor(std::log10(step) + 1e-9)));
    std::snprintf(b, sizeof(b), "%.*f", decimals, v);
  }
  return b;
}

struct Curve {
  std::string key, label, color;
  const std::vector<double>* values;
};

/// The metrics to draw, one panel each: train keys in first-seen order, a val_
/// key paired with its train key; or exactly options.metrics when given.
std::vector<std::string> panel_metrics(const History& history, const PlotOptions& o) {
  std::vector<std::string> order = history.keys();
  for (const auto& [k, v] : history.history)
    if (std::find(order.begin(), order.end(), k) == order.end()) order.push_back(k);
  std::vector<std::string> panels;
  for (const auto& k : order) {
    const bool is_val = k.rfind("val_", 0) == 0;
    const std::string base = is_val ? k.substr(4) : k;
    if (is_val && history.history.count(base)) continue;  // drawn with its train key
    if (std::find(panels.begin(), panels.end(), base) == panels.end()) panels.push_back(base);
  }
  if (o.metrics.empty()) return panels;
  for (const auto& m : o.metrics)
    if (std::find(panels.begin(), panels.end(), m) == panels.end()) {
      std::string known;
      for (const auto& p : panels) known += (known.empty() ? "" : ", ") + p;
      throw ValueError("plot_history: no metric '" + m + "' in the history; it has: " + known);
    }
  return o.metrics;
}

/// The x value of point i: epochs are 1-based (history.epoch + 1).
double epoch_of(const History& history, std::size_t i) {
  return i < history.epoch.size() ? static_cast<double>(history.epoch[i] + 1) : static_cast<double>(i + 1);
}

/// One panel's data ranges, ticks and plot area, and the data -> pixel mapping.
struct PanelFrame {
  double xlo = 0, xhi = 0, ylo = 0, yhi = 0;
  double xstep = 1, ystep = 1;
  std::vector<double> xt, yt;
  double ox = 0, oy = 0, left = 0, right = 0, top = 0, bottom = 0;
  double X(double x) const { return left + (x - xlo) / (xhi - xlo) * (right - left); }
  double Y(double y) const { return bottom - (y - ylo) / (yhi - ylo) * (bottom - top); }
};

/// Sets the frame's x and y ranges from the curves, padded so that no point
/// sits on the frame.
void fit_ranges(PanelFrame& f, const History& history, const std::vector<Curve>& curves) {
  std::size_t npts = 0;
  for (const auto& c : curves) npts = std::max(npts, c.values->size());
  f.xlo = epoch_of(history, 0);
  f.xhi = epoch_of(history, npts ? npts - 1 : 0);
  if (f.xhi <= f.xlo) {
    f.xlo -= 1;
    f.xhi += 1;
  }
  f.ylo = std::numeric_limits<double>::infinity();
  f.yhi = -f.ylo;
  for (const auto& c : curves)
    for (double v : *c.values)
      if (std::isfinite(v)) {
        f.ylo = std::min(f.ylo, v);
        f.yhi = std::max(f.yhi, v);
      }
  if (!std::isfinite(f.ylo)) {
    f.ylo = 0;
    f.yhi = 1;
  }
  const double ypad = f.yhi - f.ylo < 1e-12 * std::max(1.0, std::abs(f.yhi))
                          ? (std::abs(f.yhi) > 0 ? std::abs(f.yhi) * 0.1 : 0.5)
                          : (f.yhi - f.ylo) * 0.05;
  f.ylo -= ypad;
  f.yhi += ypad;
  const double xpad = (f.xhi - f.xlo) * 0.03;  // keep the end points off the frame
  f.xlo -= xpad;
  f.xhi += xpad;
}

/// Chooses the ticks, then the plot area: the widest y label decides the left margin.
void place_frame(PanelFrame& f, double ox, double oy, int W, int H) {
  f.xt = nice_ticks(f.xlo, f.xhi, 6, &f.xstep);
  if (f.xstep < 1) f.xt = nice_ticks(f.xlo, f.xhi, std::max(1, static_cast<int>(f.xhi - f.xlo)), &f.xstep);  // whole epochs only
  f.yt = nice_ticks(f.ylo, f.yhi, 6, &f.ystep);
  std::size_t label_chars = 1;
  for (double t : f.yt) label_chars = std::max(label_chars, tick_label(t, f.ystep).size());
  f.ox = ox;
  f.oy = oy;
  f.left = ox + 34 + 6.5 * static_cast<double>(label_chars);
  f.right = ox + W - 16;
  f.top = oy + 30;
  f.bottom = oy + H - 46;
}

/// The panel title, grid, ticks, frame and axis labels.
void write_axes(std::ostringstream& s, const PanelFrame& f, const std::string& base, int H) {
  const double left = f.left, right = f.right, top = f.top, bottom = f.bottom;
  s << "<text x=\"" << num((left + right) / 2) << "\" y=\"" << num(f.oy + 20)
    << "\" text-anchor=\"middle\" font-size=\"13\" font-weight=\"bold\">" << xml_escape(base) << "</text>\n";
  for (double t : f.xt) {
    s << "<line x1=\"" << num(f.X(t)) << "\" y1=\"" << num(top) << "\" x2=\"" << num(f.X(t)) << "\" y2=\""
      << num(bottom) << "\" stroke=\"#e6e6e6\" stroke-width=\"1\"/>\n";
    s << "<line x1=\"" << num(f.X(t)) << "\" y1=\"" << num(bottom) << "\" x2=\"" << num(f.X(t)) << "\" y2=\""
      << num(bottom + 5) << "\" stroke=\"black\" stroke-width=\"1\"/>\n";
    s << "<text x=\"" << num(f.X(t)) << "\" y=\"" << num(bottom + 18) << "\" text-anchor=\"middle\" font-size=\"11\">"
      << tick_label(t, f.xstep) << "</text>\n";
  }
  for (double t : f.yt) {
    s << "<line x1=\"" << num(left) << "\" y1=\"" << num(f.Y(t)) << "\" x2=\"" << num(right) << "\" y2=\""
      << num(f.Y(t)) << "\" stroke=\"#e6e6e6\" stroke-width=\"1\"/>\n";
    s << "<line x1=\"" << num(left - 5) << "\" y1=\"" << num(f.Y(t)) << "\" x2=\"" << num(left) << "\" y2=\""
      << num(f.Y(t)) << "\" stroke=\"black\" stroke-width=\"1\"/>\n";
    s << "<text x=\"" << num(left - 8) << "\" y=\"" << num(f.Y(t) + 4) << "\" text-anchor=\"end\" font-size=\"11\">"
      << tick_label(t, f.ystep) << "</text>\n";
  }
  s << "<rect x=\"" << num(left) << "\" y=\"" << num(top) << "\" width=\"" << num(right - left) << "\" height=\""
    << num(bottom - top) << "\" fill=\"none\" stroke=\"black\" stroke-width=\"1\"/>\n";
  s << "<text x=\"" << num((left + right) / 2) << "\" y=\"" << num(f.oy + H - 10)
    << "\" text-anchor=\"middle\" font-size=\"12\">epoch</text>\n";
  s << "<text x=\"" << num(f.ox + 14) << "\" y=\"" << num((top + bottom) / 2) << "\" text-anchor=\"middle\" font-size=\"12\""
    << " transform=\"rotate(-90 " << num(f.ox + 14) << " " << num((top + bottom) / 2) << ")\">" << xml_escape(base)
    << "</text>\n";
}

/// One <path> per curve (a non-finite value starts a new sub-path), with dots
/// when there are few points. Returns every drawn point, for the legend.
std::vector<std::pair<double, double>> write_curves(std::ostringstream& s, const PanelFrame& f, const History& history,
                                                    const std::vector<Curve>& curves) {
  std::vector<std::pair<double, double>> all_points;
  for (const auto& c : curves) {
    std::string d;
    bool pen_down = false;
    std::vector<std::pair<double, double>> pts;
    for (std::size_t i = 0; i < c.values->size(); ++i) {
      const double v = (*c.values)[i];
      if (!std::isfinite(v)) {
        pen_down = false;
        continue;
      }
      const double px = f.X(epoch_of(history, i)), py = f.Y(v);
      d += (d.empty() ? "" : " ") + std::string(pen_down ? "L" : "M") + num(px) + " " + num(py);
      pen_down = true;
      pts.emplace_back(px, py);
    }
    s << "<path class=\"curve\" data-key=\"" << xml_escape(c.key) << "\" d=\"" << d << "\" fill=\"none\" stroke=\""
      << c.color << "\" stroke-width=\"2\" stroke-linejoin=\"round\"/>\n";
    all_points.insert(all_points.end(), pts.begin(), pts.end());
    if (pts.size() <= 60)
      for (const auto& [px, py] : pts)
        s << "<circle cx=\"" << num(px) << "\" cy=\"" << num(py) << "\" r=\"2.5\" fill=\"" << c.color << "\"/>\n";
  }
  return all_points;
}

/// The legend, in the inside corner that covers the fewest data points (top
/// right on ties).
void write_legend(std::ostringstream& s, const PanelFrame& f, const std::vector<Curve>& curves,
                  const std::vector<std::pair<double, double>>& all_points) {
  const double lw = 112, lh = 8 + 18.0 * curves.size();
  const double left = f.left, right = f.right, top = f.top, bottom = f.bottom;
  double lx = right - lw - 6, ly = top + 6;
  std::size_t best_hits = std::numeric_limits<std::size_t>::max();
  for (const auto& [cx, cy] : {std::pair{right - lw - 6, top + 6}, std::pair{left + 6, top + 6},
                               std::pair{right - lw - 6, bottom - lh - 6}, std::pair{left + 6, bottom - lh - 6}}) {
    std::size_t hits = 0;
    for (const auto& [px, py] : all_points)
      if (px >= cx - 4 && px <= cx + lw + 4 && py >= cy - 4 && py <= cy + lh + 4) ++hits;
    if (hits < best_hits) {
      best_hits = hits;
      lx = cx;
      ly = cy;
    }
  }
  s << "<g class=\"legend\">\n<rect x=\"" << num(lx) << "\" y=\"" << num(ly) << "\" width=\"" << num(lw)
    << "\" height=\"" << num(lh) << "\" fill=\"white\" fill-opacity=\"0.85\" stroke=\"#999999\"/>\n";
  for (std::size_t i = 0; i < curves.size(); ++i) {
    const double yy = ly + 14 + 18.0 * i;
    s << "<line x1=\"" << num(lx + 8) << "\" y1=\"" << num(yy) << "\" x2=\"" << num(lx + 30) << "\" y2=\"" << num(yy)
      << "\" stroke=\"" << curves[i].color << "\" stroke-width=\"2\"/>\n";
    s << "<text x=\"" << num(lx + 36) << "\" y=\"" << num(yy + 4) << "\" font-size=\"11\">"
      << xml_escape(curves[i].label) << "</text>\n";
  }
  s << "</g>\n";
}

/// One metric's panel (its train and validation curves) with its top-left corner at (ox, oy).
void write_panel(std::ostringstream& s, const History& history, const std::string& base, double ox, double oy, int W,
                 int H) {
  std::vector<Curve> curves;
  auto it = history.history.find(base);
  if (it != history.history.end()) curves.push_back({base, "train", "#1f77b4", &it->second});
  auto vit = history.history.find("val_" + base);
  if (vit != history.history.end()) curves.push_back({"val_" + base, "validation", "#ff7f0e", &vit->second});
  PanelFrame f;
  fit_ranges(f, history, curves);
  place_frame(f, ox, oy, W, H);
  s << "<g class=\"panel\" data-metric=\"" << xml_escape(base) << "\">\n";
  write_axes(s, f, base, H);
  write_legend(s, f, curves, write_curves(s, f, history, curves));
  s << "</g>\n";
}

}  // namespace

std::string history_svg(const History& history, const PlotOptions& o) {
  if (history.history.empty()) throw ValueError("plot_history: the history is empty (was fit() run for any epoch?)");
  const std::vector<std::string> panels = panel_metrics(history, o);
  if (o.panel_width < 160 || o.panel_height < 120)
    throw ValueError("plot_history: panels must be at least 160x120 pixels, received " + std::to_string(o.panel_width) +
                     "x" + std::to_string(o.panel_height));

  const int n = static_cast<int>(panels.size());
  const int cols = std::max(1, std::min(o.columns, n));
  const int rows = (n + cols - 1) / cols;
  const int title_h = o.title.empty() ? 0 : 32;
  const int W = o.panel_width, H = o.panel_height;
  const int width = cols * W, height = title_h + rows * H;

  std::ostringstream s;
  s << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    << "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"" << width << "\" height=\"" << height
    << "\" viewBox=\"0 0 " << width << " " << height << "\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n"
    << "<rect x=\"0\" y=\"0\" width=\"" << width << "\" height=\"" << height << "\" fill=\"white\"/>\n";
  if (!o.title.empty())
    s << "<text x=\"" << width / 2 << "\" y=\"22\" text-anchor=\"middle\" font-size=\"16\" font-weight=\"bold\">"
      << xml_escape(o.title) << "</text>\n";
  for (int p = 0; p < n; ++p) write_panel(s, history, panels[p], (p % cols) * W, title_h + (p / cols) * H, W, H);
  s << "</svg>\n";
  return s.str();
}

void plot_history(const History& history, const std::string& path, const PlotOptions& options) {
  const std::string svg = history_svg(history, options);
  auto write = [&](const std::string& p) {
    std::ofstream f(p, std::ios::binary);
    f << svg;
    f.close();
    if (!f) throw IOError("plot_history: cannot write '" + p + "'");
  };
  if (!ends_with(path, ".png")) {
    write(path);
    return;
  }
  std::string tool;
  if (has_program("rsvg-convert")) tool = "rsvg-convert";
  else if (has_program("convert")) tool = "convert";
  else
    throw RuntimeError("plot_history: writing '" + path +
                       "' needs an SVG-to-PNG converter, but neither rsvg-convert (Debian package librsvg2-bin) nor "
                       "convert (imagemagick) is installed; write an .svg instead");
  const std::string tmp = path + ".tmp.svg";
  write(tmp);
  const std::string cmd = tool == "rsvg-convert"
                              ? "rsvg-convert -f png -o " + shell_quote(path) + " " + shell_quote(tmp)
                              : "convert " + shell_quote(tmp) + " " + shell_quote(path);
  const int rc = std::system((cmd + " >/dev/null 2>&1").c_str());
  std::error_code ec;
  std::filesystem::remove(tmp, ec);
  if (rc != 0 || !std::filesystem::exists(path))
    throw RuntimeError("plot_history: '" + cmd + "' failed (exit status " + std::to_string(rc) + ")");
}

}  // namespace kiln::utils
