// Checkpoint / CheckpointManager (kiln/io/checkpoint.h): one HDF5 file per
// checkpoint, written atomically, with deferred restore for variables that do
// not exist yet.
#include "kiln/io/checkpoint.h"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "io/atomic_file.h"
#include "io/checkpoint_index.h"
#include "io/hdf5_sandbox.h"
#include "io/saving_impl.h"
#include "kiln/core/error.h"

namespace kiln {

namespace {
namespace fs = std::filesystem;

/// The model among the checkpoint's objects (for building an unbuilt optimizer).
Model* model_in(const std::map<std::string, CheckpointItem>& objects) {
  for (const auto& [k, v] : objects)
    if (auto m = dynamic_cast<Model*>(v.layer())) return m;
  return nullptr;
}

}  // namespace

namespace detail {

struct PendingLayer {
  std::string object;  // checkpoint name, for messages
  const Layer* layer;
  std::string store;   // path inside the object's group
  std::vector<Tensor> values;
};
struct PendingOptimizer {
  std::string object;
  OptimizerPtr optimizer;
  std::vector<Tensor> values;
};

struct CheckpointState {
  std::map<std::string, CheckpointItem> objects;
  int64_t save_counter = 0;
  std::string source;  // file of the last restore, for messages
  std::vector<PendingLayer> pending_layers;
  std::vector<PendingOptimizer> pending_optimizers;

  bool applying = false;  // building an optimizer below runs its after-build hook, which calls back here

  /// Assigns what can be assigned now; returns what remains.
  std::size_t apply_pending() {
    if (applying) return pending_layers.size() + pending_optimizers.size();
    applying = true;
    struct Reset {
      bool& flag;
      ~Reset() { flag = false; }
    } reset{applying};
    for (auto it = pending_layers.begin(); it != pending_layers.end();) {
      const auto vars = io::keras_own_variables(*it->layer);
      if (vars.empty()) {
        ++it;
        continue;
      }
      check_and_assign(vars, it->values, source + ": checkpoint object '" + it->object + "', layer '" +
                                             it->layer->name() + "' (" + it->store + ")");
      it = pending_layers.erase(it);
    }
    for (auto it = pending_optimizers.begin(); it != pending_optimizers.end();) {
      // The optimizer's first apply() would build it for the model's trainable
      // variables; doing it now lets the restored slots land before that step.
      if (!it->optimizer->built())
        if (Model* m = model_in(objects); m && m->built() && pending_layers.empty())
          it->optimizer->build(m->trainable_variables());
      if (!it->optimizer->built()) {
        ++it;
        continue;
      }
      check_and_assign(it->optimizer->variables(), it->values,
                       source + ": checkpoint object '" + it->object + "' (optimizer '" + it->optimizer->name() + "')");
      it = pending_optimizers.erase(it);
    }
    return pending_layers.size() + pending_optimizers.size();
  }

  static void check_and_assign(const std::vector<Variable>& vars, const std::vector<Tensor>& values,
                               const std::string& who) {
    if (vars.size() != values.size())
      throw ValueError(who + ": expects " + std::to_string(vars.size()) + " variables, the checkpoint has " +
                       std::to_string(values.size()));
    for (std::size_t i = 0; i < vars.size(); ++i)
      if (vars[i].shape() != values[i].shape())
        throw ShapeError(who + ": variable " + std::to_string(i) + " ('" + vars[i].path() + "') has shape " +
                         vars[i].shape().to_string() + " but the checkpoint has " + values[i].shape().to_string());
    for (std::size_t i = 0; i < vars.size(); ++i) {
      Variable v = vars[i];  // a handle: assigning through the copy updates the variable
      v.assign(values[i].dtype() == v.dtype() ? values[i] : values[i].cast(v.dtype()));
    }
  }
};

}  // namespace detail

namespace {

std::vector<Tensor> read_vars(const io::H5Group& g) {
  std::vector<Tensor> out;
  for (std::size_t i = 0;; ++i) {
    const std::string k = std::to_string(i);
    if (!g.is_dataset(k)) break;
    out.push_back(g.read(k));
  }
  return out;
}

void write_file(detail::CheckpointState& st, const std::string& path) {
  st.apply_pending();  // never save stale fresh-initialised values over pending restored ones
  io::atomic_write(path, [&](const std::string& tmp) {
    io::H5File f = io::H5File::create(tmp);
    io::H5Group root = f.root();
    root.set_attr("kiln_checkpoint", "1", io::StrEncoding::utf8);
    root.write("save_counter", Tensor(st.save_counter));
    for (const auto& [name, item] : st.objects) {
      if (item.layer()) {
        io::H5Group g = root.require_group(name);
        g.set_attr("kind", "layer", io::StrEncoding::utf8);
        io::save_layer_state(*item.layer(), g);
      } else if (item.optimizer()) {
        io::H5Group g = root.require_group(name);
        g.set_attr("kind", "optimizer", io::StrEncoding::utf8);
        io::H5Group v = g.require_group("vars");
        v.set_attr("name", item.optimizer()->name(), io::StrEncoding::utf8);
        const auto vs = item.optimizer()->variables();
        for (std::size_t i = 0; i < vs.size(); ++i) v.write(std::to_string(i), vs[i].read_value_untracked());
      } else if (item.module()) {
        io::H5Group g = root.require_group(name);
        g.set_attr("kind", "module", io::StrEncoding::utf8);
        io::H5Group v = g.require_group("vars");
        const auto vs = item.module()->variables();
        for (std::size_t i = 0; i < vs.size(); ++i) v.write(std::to_string(i), vs[i].read_value_untracked());
      } else if (item.variable().defined()) {
        // A name with '/' lives in nested groups.
        const auto slash = name.rfind('/');
        io::H5Group parent = slash == std::string::npos ? root : root.require_group(name.substr(0, slash));
        parent.write(name.substr(slash == std::string::npos ? 0 : slash + 1), item.variable().read_value_untracked());
      }
    }
    f.close();
  });
}

}  // namespace

// ---------------------------------------------------------------- status

std::size_t CheckpointStatus::pending() const {
  return state_ ? state_->pending_layers.size() + state_->pending_optimizers.size() : 0;
}
std::size_t CheckpointStatus::run_restore_ops() const { return state_ ? state_->apply_pending() : 0; }
void CheckpointStatus::assert_consumed() const {
  if (!state_ || run_restore_ops() == 0) return;
  std::string what;
  for (const auto& p : state_->pending_layers) what += (what.empty() ? "" : ", ") + p.object + "/" + p.store;
  for (const auto& p : state_->pending_optimizers) what += (what.empty() ? "" : ", ") + p.object;
  throw ValueError(state_->source + ": unresolved restore: values for " + what +
                   " wait for variables that do not exist yet (build the model / optimizer, then run_restore_ops())");
}

// ---------------------------------------------------------------- Checkpoint

Checkpoint::Checkpoint(std::map<std::string, CheckpointItem> objects)
    : state_(std::make_shared<detail::CheckpointState>()) {
  for (const auto& [k, v] : objects) {
    if (k.empty() || k.front() == '/' || k.back() == '/' || k.find("//") != std::string::npos || k == "save_counter")
      throw ValueError("Checkpoint: invalid object name '" + k +
                       "' (empty, starting or ending with '/', with an empty part, or the reserved 'save_counter')");
    for (const auto& [other, w] : objects)
      if (other != k && other.rfind(k + "/", 0) == 0)
        throw ValueError("Checkpoint: object name '" + k + "' is a folder of object '" + other + "'");
    if (!v.layer() && !v.optimizer() && !v.module() && !v.variable().defined())
      throw ValueError("Checkpoint: object '" + k + "' is empty (a null optimizer or undefined variable?)");
  }
  state_->objects = std::move(objects);
}

int64_t Checkpoint::save_counter() const { return state_->save_counter; }

std::string Checkpoint::save(const std::string& file_prefix) {
  // TensorFlow's save("./ckpt/") writes "./ckpt/-1": the prefix's folder, created if needed.
  std::string dir = fs::path(file_prefix).parent_path().string();
  if (dir.empty()) dir = ".";
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (!fs::is_directory(dir)) throw IOError(file_prefix + ": cannot create the checkpoint folder '" + dir + "'");
  ++state_->save_counter;
  const std::string path = file_prefix + "-" + std::to_string(state_->save_counter) + ".h5";
  try {
    write_file(*state_, path);
  } catch (...) {
    --state_->save_counter;
    throw;
  }
  // Record it in the folder's index, so checkpoint::latest_checkpoint(dir) finds it.
  std::vector<std::string> recorded = io::read_checkpoint_index(dir);
  const std::string normal = fs::path(path).lexically_normal().string();
  recorded.erase(std::remove_if(recorded.begin(), recorded.end(),
                                [&](const std::string& p) { return fs::path(p).lexically_normal().string() == normal; }),
                 recorded.end());
  recorded.push_back(path);
  io::write_checkpoint_index(dir, recorded);
  return path;
}

std::string Checkpoint::write(const std::string& path) {
  write_file(*state_, path);
  return path;
}

CheckpointStatus Checkpoint::restore(const std::string& path, RestoreOptions options) {
  detail::CheckpointState& st = *state_;
  if (path.empty()) return CheckpointStatus(state_);
  io::H5File f = io::open_h5(path, options.trusted);
  io::H5Group root = f.root();
  if (!root.has_attr("kiln_checkpoint"))
    throw IOError(path + ": not a Kiln checkpoint (no kiln_checkpoint attribute); use load_model/load_weights for "
                         "model files");
  st.source = path;
  st.pending_layers.clear();
  st.pending_optimizers.clear();
  struct Assign {
    std::vector<Variable> vars;
    std::vector<Tensor> values;
    std::string who;
  };
  std::vector<Assign> now;  // checked first, assigned together at the end
  for (const auto& [name, item] : st.objects) {
    const std::string who = path + ": checkpoint object '" + name + "'";
    if (!root.exists(name)) throw ValueError(who + " is not in the file (it has: " + [&] {
      std::string s;
      for (const auto& k : root.keys()) s += (s.empty() ? "" : ", ") + k;
      return s;
    }() + ")");
    if (item.layer()) {
      io::H5Group g = root.group(name);
      for (const auto& store : io::layer_stores(*item.layer())) {
        const std::string vpath = store.path.empty() ? "vars" : store.path + "/vars";
        std::vector<Tensor> values = g.is_group(vpath) ? read_vars(g.group(vpath)) : std::vector<Tensor>{};
        const auto vars = io::keras_own_variables(*store.layer);
        const std::string lwho = who + ", layer '" + store.layer->name() + "' (" + (store.path.empty() ? "/" : store.path) + ")";
        if (vars.empty() && !values.empty() && !store.layer->built()) {
          st.pending_layers.push_back({name, store.layer, store.path, values});  // deferred to its build
          continue;
        }
        if (vars.size() != values.size())
          throw ValueError(lwho + ": the layer has " + std::to_string(vars.size()) + " variables, the checkpoint " +
                           std::to_string(values.size()));
        now.push_back({vars, values, lwho});
      }
    } else if (item.optimizer()) {
      std::vector<Tensor> values = read_vars(root.group(name + "/vars"));
      Optimizer& opt = *item.optimizer();
      // Deferred slot restore: build the optimizer for the model it trains,
      // exactly as its first apply() would.
      if (!opt.built() && values.size() > 2)
        if (Model* m = model_in(st.objects); m && m->built()) opt.build(m->trainable_variables());
      if (!opt.built() && values.size() > 2) {
        st.pending_optimizers.push_back({name, item.optimizer(), values});  // deferred to its first step
        continue;
      }
      auto vars = opt.variables();
      if (values.size() == 2 && vars.size() > 2) vars.resize(2);  // saved before its first step
      now.push_back({vars, values, who + " (optimizer '" + opt.name() + "')"});
    } else if (item.module()) {
      const std::vector<Tensor> values = read_vars(root.group(name + "/vars"));
      now.push_back({item.module()->variables(), values, who + " (module '" + item.module()->name() + "')"});
    } else {
      Tensor v = root.read(name);
      now.push_back({{item.variable()}, {v}, who});
    }
  }
  for (const auto& a : now) detail::CheckpointState::check_and_assign(a.vars, a.values, a.who);
  // Deferred values land as soon as their variables exist: right after the
  // layer builds, or the optimizer creates its slots.
  const std::weak_ptr<detail::CheckpointState> weak = state_;
  auto apply = [weak] {
    if (auto s = weak.lock()) s->apply_pending();
  };
  // (The stores point into the checkpoint's own layers, which are not const.)
  for (const auto& p : st.pending_layers) const_cast<Layer*>(p.layer)->call_after_build(apply);
  for (const auto& p : st.pending_optimizers) p.optimizer->call_after_build(apply);
  if (root.is_dataset("save_counter")) st.save_counter = root.read("save_counter").item<int64_t>();
  return CheckpointStatus(state_);
}

namespace {
class DeferredRestore : public Callback {
 public:
  explicit DeferredRestore(std::shared_ptr<detail::CheckpointState> s) : state_(std::move(s)) {}
  void on_train_begin(const Logs&) override {
    if (Model* m = model(); m && m->optimizer() && !m->optimizer()->built() && m->built())
      for (auto& p : state_->pending_optimizers)
        if (p.optimizer == m->optimizer()) m->optimizer()->build(m->trainable_variables());
    state_->apply_pending();
  }

 private:
  std::shared_ptr<detail::CheckpointState> state_;
};
}  // namespace

CallbackPtr Checkpoint::restore_callback() const { return std::make_shared<DeferredRestore>(state_); }

}  // namespace kiln
