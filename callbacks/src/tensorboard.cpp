#include "kiln/callbacks/tensorboard.h"

#include <filesystem>
#include <set>

#include "kiln/core/error.h"
#include "kiln/core/profiler.h"
#include "kiln/io/event_file.h"
#include "kiln/training/model.h"

namespace kiln::callbacks {

UpdateFreq::UpdateFreq(int batches) : batches_(batches) {
  if (batches < 1)
    throw ValueError("TensorBoard: update_freq must be \"epoch\", \"batch\" or a positive number of batches, received " +
                     std::to_string(batches));
}

UpdateFreq::UpdateFreq(const std::string& s) {
  if (s == "epoch") batches_ = 0;
  else if (s == "batch") batches_ = 1;
  else
    throw ValueError("TensorBoard: update_freq must be \"epoch\", \"batch\" or a positive number of batches, received \"" +
                     s + "\"");
}

ProfileBatch::ProfileBatch(int start, int stop) : start_(start), stop_(stop) {
  if (start < 0 || stop < start)
    throw ValueError("profile_batch must be a non-negative integer or 2-tuple of positive integers. A pair of "
                     "positive integers signifies a range of batches to profile. Found: " +
                     (start == stop ? std::to_string(start)
                                    : "(" + std::to_string(start) + ", " + std::to_string(stop) + ")"));
}

TensorBoard::TensorBoard(std::string log_dir, TensorBoardOptions options)
    : log_dir_(std::move(log_dir)), options_(options) {
  if (options_.histogram_freq < 0)
    throw ValueError("TensorBoard: histogram_freq must be >= 0, received " + std::to_string(options_.histogram_freq));
}

TensorBoard::TensorBoard(const TensorBoard& other)
    : Callback(other), log_dir_(other.log_dir_), options_(other.options_) {}

TensorBoard::~TensorBoard() = default;

void TensorBoard::set_model(Model* m) {
  Callback::set_model(m);
  // Keras resets its writers here: a new fit() starts new files.
  close();
}

EventFileWriter& TensorBoard::train_writer() {
  if (!train_) train_ = std::make_unique<EventFileWriter>((std::filesystem::path(log_dir_) / "train").string());
  return *train_;
}

EventFileWriter& TensorBoard::val_writer() {
  if (!val_) val_ = std::make_unique<EventFileWriter>((std::filesystem::path(log_dir_) / "validation").string());
  return *val_;
}

std::string TensorBoard::train_file() const { return train_ ? train_->path() : std::string(); }
std::string TensorBoard::validation_file() const { return val_ ? val_->path() : std::string(); }

void TensorBoard::close() {
  train_.reset();
  val_.reset();
}

void TensorBoard::on_train_begin(const Logs&) { global_train_batch_ = 0; }

void TensorBoard::on_train_end(const Logs&) {
  stop_trace();
  if (train_) train_->flush();
  if (val_) val_->flush();
  close();
}

void TensorBoard::on_train_batch_begin(int, const Logs&) {
  ++global_train_batch_;
  // As Keras, leave a profiler someone else started alone.
  if (options_.profile_batch.start() > 0 && global_train_batch_ == options_.profile_batch.start() &&
      !profiler::active()) {
    profiler::start((std::filesystem::path(log_dir_) / "train").string());
    tracing_ = true;
  }
}

void TensorBoard::stop_trace() {
  if (!tracing_) return;
  tracing_ = false;
  profile_path_ = profiler::stop();
}

void TensorBoard::on_train_batch_end(int, const Logs& logs) {
  if (tracing_ && global_train_batch_ >= options_.profile_batch.stop()) stop_trace();
  const int n = options_.update_freq.batches();
  if (n == 0 || global_train_batch_ % n != 0) return;
  auto& w = train_writer();
  for (const auto& [k, v] : logs) w.add_scalar("batch_" + k, v, global_train_batch_);
  w.flush();
}

void TensorBoard::on_test_end(const Logs& logs) {
  if (!model_ || !model_->optimizer() || logs.empty()) return;
  auto& w = val_writer();
  const int64_t it = model_->optimizer()->iterations();
  for (const auto& [k, v] : logs) w.add_scalar("evaluation_" + k + "_vs_iterations", v, it);
  w.flush();
}

void TensorBoard::on_epoch_end(int epoch, Logs& logs) {
  if (!logs.empty()) {
    Logs train, val;
    for (const auto& [k, v] : logs) {
      if (k.rfind("val_", 0) == 0) val.set(k.substr(4), v);
      else train.set(k, v);
    }
    if (model_ && model_->optimizer()) train.set("learning_rate", model_->optimizer()->learning_rate());
    if (!train.empty()) {
      auto& w = train_writer();
      for (const auto& [k, v] : train) w.add_scalar("epoch_" + k, v, epoch);
      w.flush();
    }
    if (!val.empty()) {
      auto& w = val_writer();
      for (const auto& [k, v] : val) w.add_scalar("epoch_" + k, v, epoch);
      w.flush();
    }
  }
  if (options_.histogram_freq > 0 && epoch % options_.histogram_freq == 0) log_weights(epoch);
}

void TensorBoard::log_weights(int epoch) {
  if (!model_) return;
  // Keras walks model.layers and each layer's weights; the model's own
  // variables are added so subclassed models that hold weights directly show up.
  std::vector<Variable> vars;
  std::set<uint64_t> seen;
  auto add = [&](const std::vector<Variable>& vs) {
    for (const auto& v : vs)
      if (v.defined() && seen.insert(v.id()).second) vars.push_back(v);
  };
  for (const auto& layer : model_->layers()) add(layer->weights());
  add(model_->weights());
  auto& w = train_writer();
  for (const auto& v : vars) {
    std::string name = v.path();
    for (auto& c : name)
      if (c == ':') c = '_';
    w.add_histogram(name + "/histogram", v.read_value_untracked().to(Device::cpu()).to_vector<double>(), epoch);
  }
  w.flush();
}

}  // namespace kiln::callbacks
