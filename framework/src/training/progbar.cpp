// The tf.keras 2 progress bar (keras.utils.Progbar), its ProgbarLogger and History.
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <sstream>

#include "kiln/training/callback.h"
#include "kiln/core/error.h"

namespace kiln {


void History::on_train_begin(const Logs&) {}

void History::on_epoch_end(int e, Logs& logs) {
  epoch.push_back(e);
  for (const auto& [k, v] : logs) {
    if (!history.count(k)) keys_.push_back(k);
    history[k].push_back(v);
  }
}

const std::vector<double>& History::operator[](const std::string& key) const {
  auto it = history.find(key);
  if (it == history.end()) {
    std::string known;
    for (const auto& k : keys_) known += (known.empty() ? "" : ", ") + k;
    throw ValueError("History has no key '" + key + "'; keys are: " + known);
  }
  return it->second;
}

std::string format_log_value(double v) {
  char buf[64];
  if (std::abs(v) > 1e-3) std::snprintf(buf, sizeof buf, "%.4f", v);
  else std::snprintf(buf, sizeof buf, "%.4e", v);
  return buf;
}

namespace {
double now_s() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}
std::string format_time(double t, const char* unit) {
  char buf[64];
  if (t >= 1 || t == 0) std::snprintf(buf, sizeof buf, " %.0fs/%s", t, unit);
  else if (t >= 1e-3) std::snprintf(buf, sizeof buf, " %.0fms/%s", t * 1e3, unit);
  else std::snprintf(buf, sizeof buf, " %.0fus/%s", t * 1e6, unit);
  return buf;
}
int num_digits(int n) { return n <= 0 ? 1 : static_cast<int>(std::log10(n)) + 1; }
}  // namespace

void ProgbarLogger::start(int target) {
  if (!stream_set_) {
    os_ = &std::cout;
    tty_ = force_tty_ || isatty(STDOUT_FILENO);
  }
  target_ = target;
  seen_ = 0;
  start_time_ = now_s();
  last_update_ = 0;
  prev_width_ = 0;
  first_step_time_ = -1;
}

void ProgbarLogger::update(int current, const Logs& logs, bool finalize) {
  const int verbose = params_.verbose;
  if (verbose == 0) return;
  const double now = now_s();
  if (current == 1 && first_step_time_ < 0) first_step_time_ = now;
  std::string info;
  {
    char b[64];
    std::snprintf(b, sizeof b, " - %.0fs", now - start_time_);
    info = b;
  }
  // Time per step excludes the first step (warm-up), as Keras does.
  double per_step = current > 1 && first_step_time_ > 0 ? (now - first_step_time_) / (current - 1)
                                                      : (now - start_time_) / std::max(current, 1);
  std::string values;
  for (const auto& [k, v] : logs) values += " - " + k + ": " + format_log_value(v);

  if (verbose == 1) {
    if (!finalize && (!tty_ || now - last_update_ < 0.05)) return;
    last_update_ = now;
    std::ostringstream msg;
    std::string bar;
    if (target_ > 0) {
      char b[64];
      std::snprintf(b, sizeof b, "%*d/%d [", num_digits(target_), current, target_);
      bar = b;
      const int width = 30;
      int prog_width = static_cast<int>(width * (static_cast<double>(current) / target_));
      if (prog_width > 0) {
        bar += std::string(static_cast<std::size_t>(prog_width - 1), '=');
        bar += current < target_ ? ">" : "=";
      }
      bar += std::string(static_cast<std::size_t>(std::max(0, width - prog_width)), '.');
      bar += "]";
    } else {
      char b[64];
      std::snprintf(b, sizeof b, "%7d/Unknown", current);
      bar = b;
    }
    if (target_ <= 0 || finalize) {
      info += format_time(per_step, "step");
    } else {
      double eta = per_step * (target_ - current);
      char b[64];
      if (eta > 3600) std::snprintf(b, sizeof b, "%d:%02d:%02d", (int)eta / 3600, ((int)eta % 3600) / 60, (int)eta % 60);
      else if (eta > 60) std::snprintf(b, sizeof b, "%d:%02d", (int)eta / 60, (int)eta % 60);
      else std::snprintf(b, sizeof b, "%ds", (int)eta);
      info = std::string(" - ETA: ") + b;
    }
    info += values;
    std::string line = bar + info;
    if (tty_) {
      std::string pad = prev_width_ > line.size() ? std::string(prev_width_ - line.size(), ' ') : "";
      *os_ << "\r" << line << pad;
      prev_width_ = line.size();
      if (finalize) *os_ << "\n";
    } else {
      // Not a terminal: only the final line of each epoch.
      *os_ << line << "\n";
    }
    os_->flush();
  } else if (verbose == 2 && finalize) {
    char b[64];
    std::snprintf(b, sizeof b, "%*d/%d", num_digits(target_), current, target_);
    double per_epoch = now - start_time_;
    *os_ << b << info << values << " -" << format_time(per_epoch, "epoch") << " -"
         << format_time(per_epoch / std::max(target_, 1), "step") << "\n";
    os_->flush();
  }
}

void ProgbarLogger::on_train_begin(const Logs&) { in_fit_ = true; }
void ProgbarLogger::on_epoch_begin(int epoch, const Logs&) {
  start(params_.steps);
  // Flushed, as Keras's print_msg does: through a pipe the line then comes when the epoch begins.
  if (params_.verbose && params_.epochs > 1) *os_ << "Epoch " << epoch + 1 << "/" << params_.epochs << std::endl;
}
void ProgbarLogger::on_train_batch_end(int batch, const Logs& logs) {
  seen_ = batch + 1;
  last_logs_ = logs;
  update(seen_, logs, target_ > 0 && seen_ >= target_ && false);
}
void ProgbarLogger::on_epoch_end(int, Logs& logs) {
  if (target_ <= 0) target_ = seen_;
  update(seen_, logs, true);
}
void ProgbarLogger::on_test_begin(const Logs&) {
  if (!in_fit_) start(params_.steps);
}
void ProgbarLogger::on_test_batch_end(int batch, const Logs& logs) {
  if (in_fit_) return;
  seen_ = batch + 1;
  update(seen_, logs, false);
}
void ProgbarLogger::on_test_end(const Logs& logs) {
  if (in_fit_) return;
  if (target_ <= 0) target_ = seen_;
  update(seen_, logs, true);
}
void ProgbarLogger::on_predict_begin(const Logs&) { start(params_.steps); }
void ProgbarLogger::on_predict_batch_end(int batch, const Logs&) {
  seen_ = batch + 1;
  update(seen_, Logs(), false);
}
void ProgbarLogger::on_predict_end(const Logs&) {
  if (target_ <= 0) target_ = seen_;
  update(seen_, Logs(), true);
}

}  // namespace kiln
