#include "kiln/callbacks/model_checkpoint.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <limits>

#include "callback_utils.h"
#include "kiln/core/error.h"
#include "kiln/training/model.h"

namespace kiln::callbacks {

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

struct Spec {
  char fill = ' ';
  char align = 0;  // '<', '>', '^', '=' or 0 (default)
  char sign = '-';
  bool alt = false;
  int width = 0;
  bool comma = false;
  int precision = -1;
  char type = 0;
};

Spec parse_spec(const std::string& s, const std::string& field) {
  Spec sp;
  std::size_t i = 0;
  auto is_align = [](char c) { return c == '<' || c == '>' || c == '^' || c == '='; };
  if (s.size() >= 2 && is_align(s[1])) {
    sp.fill = s[0];
    sp.align = s[1];
    i = 2;
  } else if (!s.empty() && is_align(s[0])) {
    sp.align = s[0];
    i = 1;
  }
  if (i < s.size() && (s[i] == '+' || s[i] == '-' || s[i] == ' ')) sp.sign = s[i++];
  if (i < s.size() && s[i] == '#') sp.alt = true, ++i;
  if (i < s.size() && s[i] == '0') {
    if (!sp.align) sp.fill = '0', sp.align = '=';
    ++i;
  }
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) sp.width = sp.width * 10 + (s[i++] - '0');
  if (i < s.size() && (s[i] == ',' || s[i] == '_')) sp.comma = true, ++i;
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (i >= s.size() || !std::isdigit(static_cast<unsigned char>(s[i])))
      throw ValueError("format_filepath: format specifier missing precision in '{" + field + ":" + s + "}'");
    sp.precision = 0;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) sp.precision = sp.precision * 10 + (s[i++] - '0');
  }
  if (i < s.size()) sp.type = s[i++];
  if (i != s.size()) throw ValueError("format_filepath: invalid format specifier '" + s + "' in field '" + field + "'");
  return sp;
}

std::string printf_double(const char* fmt, int precision, double v) {
  char buf[512];
  std::snprintf(buf, sizeof buf, fmt, precision, v);
  return buf;
}

std::string format_value(const FormatValue& v, const Spec& sp, const std::string& field) {
  std::string body;
  bool negative = false;
  if (std::holds_alternative<int64_t>(v)) {
    int64_t x = std::get<int64_t>(v);
    if (sp.type == 0 || sp.type == 'd' || sp.type == 's') {
      if (sp.type == 's') throw ValueError("format_filepath: Unknown format code 's' for object of type 'int' ('" + field + "')");
      if (sp.precision >= 0) throw ValueError("format_filepath: Precision not allowed in integer format specifier ('" + field + "')");
      negative = x < 0;
      body = std::to_string(negative ? -static_cast<uint64_t>(x) : static_cast<uint64_t>(x));
    } else {
      return format_value(FormatValue(static_cast<double>(x)), sp, field);  // int with f/e/g/%: as Python
    }
  } else {
    double x = std::get<double>(v);
    if (sp.type == 'd') throw ValueError("format_filepath: Unknown format code 'd' for object of type 'float' ('" + field + "')");
    negative = std::signbit(x) && !std::isnan(x);
    const double a = std::fabs(x);
    const int p = sp.precision < 0 ? 6 : sp.precision;
    if (std::isnan(x) || std::isinf(x)) {
      body = std::isnan(x) ? "nan" : "inf";
      if (sp.type == 'F' || sp.type == 'E' || sp.type == 'G') body = std::isnan(x) ? "NAN" : "INF";
      if (sp.type == '%') body += "%";
    } else {
      switch (sp.type) {
        case 'f': body = printf_double("%.*f", p, a); break;
        case 'F': body = printf_double("%.*F", p, a); break;
        case 'e': body = printf_double("%.*e", p, a); break;
        case 'E': body = printf_double("%.*E", p, a); break;
        case 'g': body = printf_double(sp.alt ? "%#.*g" : "%.*g", p == 0 ? 1 : p, a); break;
        case 'G': body = printf_double(sp.alt ? "%#.*G" : "%.*G", p == 0 ? 1 : p, a); break;
        case '%': body = printf_double("%.*f", p, a * 100.0) + "%"; break;
        case 0:
        case 's':
          if (sp.precision < 0) {
            body = detail::python_float_repr(a);
          } else {  // like 'g' but always with a digit after the point when it has one
            body = printf_double("%.*g", p == 0 ? 1 : p, a);
            if (body.find_first_of(".einf") == std::string::npos) body += ".0";
          }
          break;
        default:
          throw ValueError(std::string("format_filepath: Unknown format code '") + sp.type +
                           "' for object of type 'float' ('" + field + "')");
      }
    }
  }
  if (sp.comma) {
    std::size_t end = body.find_first_of(".e%");
    if (end == std::string::npos) end = body.size();
    for (std::ptrdiff_t k = static_cast<std::ptrdiff_t>(end) - 3; k > 0; k -= 3) body.insert(static_cast<std::size_t>(k), ",");
  }
  std::string sign = negative ? "-" : (sp.sign == '+' ? "+" : sp.sign == ' ' ? " " : "");
  const std::size_t len = sign.size() + body.size();
  if (static_cast<std::size_t>(sp.width) <= len) return sign + body;
  const std::size_t pad = static_cast<std::size_t>(sp.width) - len;
  const char align = sp.align ? sp.align : '>';  // numbers align right
  switch (align) {
    case '<': return sign + body + std::string(pad, sp.fill);
    case '^': return std::string(pad / 2, sp.fill) + sign + body + std::string(pad - pad / 2, sp.fill);
    case '=': return sign + std::string(pad, sp.fill) + body;
    default: return std::string(pad, sp.fill) + sign + body;
  }
}

}  // namespace

std::string format_filepath(const std::string& pattern, const std::map<std::string, FormatValue>& values) {
  std::string out;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == '{' && i + 1 < pattern.size() && pattern[i + 1] == '{') {
      out += '{';
      ++i;
    } else if (c == '}' && i + 1 < pattern.size() && pattern[i + 1] == '}') {
      out += '}';
      ++i;
    } else if (c == '{') {
      const std::size_t close = pattern.find('}', i);
      if (close == std::string::npos) throw ValueError("format_filepath: unmatched '{' in '" + pattern + "'");
      const std::string field = pattern.substr(i + 1, close - i - 1);
      const std::size_t colon = field.find(':');
      const std::string name = field.substr(0, colon);
      const std::string spec = colon == std::string::npos ? "" : field.substr(colon + 1);
      auto it = values.find(name);
      if (it == values.end()) {
        std::string known;
        for (const auto& [k, v] : values) known += (known.empty() ? "" : ", ") + k;
        throw ValueError("format_filepath: '" + pattern + "' uses {" + name + "}, which is not available (available: " +
                         known + ")");
      }
      out += format_value(it->second, parse_spec(spec, name), name);
      i = close;
    } else if (c == '}') {
      throw ValueError("format_filepath: single '}' encountered in '" + pattern + "'");
    } else {
      out += c;
    }
  }
  return out;
}

ModelCheckpointOptions ModelCheckpoint::with_path(std::string path, ModelCheckpointOptions options) {
  return detail::with_positional("ModelCheckpoint", "filepath", std::move(path), std::move(options),
                                 &ModelCheckpointOptions::filepath);
}

ModelCheckpoint::ModelCheckpoint(ModelCheckpointOptions o) : options_(std::move(o)) {
  if (options_.filepath.empty()) throw ValueError("ModelCheckpoint: filepath is empty");
  if (options_.save_weights_only) {
    if (!ends_with(options_.filepath, ".weights.h5") && !ends_with(options_.filepath, ".h5"))
      throw ValueError("ModelCheckpoint: when using `save_weights_only=True`, the filepath provided must end in "
                       "`.weights.h5` (Keras weights format). Received: filepath=" + options_.filepath);
  } else if ((!ends_with(options_.filepath, ".keras") && !ends_with(options_.filepath, ".h5")) ||
             ends_with(options_.filepath, ".weights.h5")) {
    throw ValueError("ModelCheckpoint: the filepath provided must end in `.keras` (Keras model format) or `.h5`. "
                     "Received: filepath=" + options_.filepath);
  }
  if (options_.save_freq < 0) throw ValueError("ModelCheckpoint: save_freq must be 0 (\"epoch\") or positive, got " +
                                               std::to_string(options_.save_freq));
  if (options_.mode != "auto" && options_.mode != "min" && options_.mode != "max") {
    std::cerr << "WARNING: ModelCheckpoint mode " << options_.mode << " is unknown, fallback to auto mode.\n";
    options_.mode = "auto";
  }
  maximize_ = options_.mode == "max" ||
              (options_.mode == "auto" && (options_.monitor.find("acc") != std::string::npos ||
                                           options_.monitor.rfind("fmeasure", 0) == 0));
  best = options_.initial_value_threshold.value_or(maximize_ ? -std::numeric_limits<double>::infinity()
                                                             : std::numeric_limits<double>::infinity());
}

bool ModelCheckpoint::better(double current) const { return maximize_ ? current > best : current < best; }

void ModelCheckpoint::on_epoch_begin(int epoch, const Logs&) { current_epoch_ = epoch; }

void ModelCheckpoint::on_epoch_end(int epoch, Logs& logs) {
  if (options_.save_freq == 0) save_model(epoch, std::nullopt, logs);
}

void ModelCheckpoint::on_train_batch_end(int batch, const Logs& logs) {
  if (options_.save_freq == 0) return;
  // Keras's _should_save_on_batch: batches counted across epochs.
  const int add = batch <= last_batch_seen_ ? batch + 1 : batch - last_batch_seen_;
  batches_since_save_ += add;
  last_batch_seen_ = batch;
  if (batches_since_save_ >= options_.save_freq) {
    batches_since_save_ = 0;
    save_model(current_epoch_, batch, logs);
  }
}

void ModelCheckpoint::save_model(int epoch, std::optional<int> batch, const Logs& logs) {
  std::map<std::string, FormatValue> values;
  for (const auto& [k, v] : logs) values[k] = v;
  values["epoch"] = static_cast<int64_t>(epoch + 1);
  if (batch && !logs.contains("batch")) values["batch"] = static_cast<int64_t>(*batch + 1);
  const std::string path = format_filepath(options_.filepath, values);
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();
  if (!dir.empty()) std::filesystem::create_directories(dir);
  if (options_.save_best_only) {
    auto current = logs.get(options_.monitor);
    if (!current) {
      std::cerr << "WARNING: Can save best model only with " << options_.monitor << " available, skipping.\n";
      return;
    }
    if (!better(*current)) {
      if (options_.verbose > 0)
        std::printf("\nEpoch %d: %s did not improve from %.5f\n", epoch + 1, options_.monitor.c_str(), best);
      return;
    }
    if (options_.verbose > 0)
      std::printf("\nEpoch %d: %s improved from %.5f to %.5f, saving model to %s\n", epoch + 1,
                  options_.monitor.c_str(), best, *current, path.c_str());
    best = *current;
  } else if (options_.verbose > 0) {
    std::printf("\nEpoch %d: saving model to %s\n", epoch + 1, path.c_str());
  }
  if (!model()) throw ValueError("ModelCheckpoint: no model set (use it through fit())");
  if (options_.save_weights_only) model()->save_weights(path);
  else model()->save(path);
  saved.push_back(path);
}

}  // namespace kiln::callbacks
