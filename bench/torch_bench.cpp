// torch_bench: the libtorch peer of bench/kiln_bench.cpp. The same cases, models, data, batch
// sizes and JSON output, with "impl":"libtorch". Built only when libtorch-dev (1.13) is installed.
//
//   torch_bench --case cnn_train|cnn_infer|bigcnn_train|mlp_train|cnn_b16|cnn_b64|cnn_b256|dispatch
//   torch_bench --list
// Options: --samples N, --data DIR (default /usr/share/datasets/fashion-mnist; IDX files, raw or .gz).
//
// Models follow Keras' settings where libtorch allows: Adam(lr 1e-3, eps 1e-7), BatchNorm1d(momentum 0.01,
// eps 1e-3) (= Keras momentum 0.99), Dropout 0.1, cross entropy on logits. Initialisation is libtorch's
// default, not glorot_uniform (as in the peer measurements, shared/peers/RESULTS.md). Images are NCHW
// (N, 1, 28, 28): for one channel that is the same bytes as Kiln's NHWC (N, 28, 28, 1).
// Threads come from the environment: bench/run.sh sets OMP_NUM_THREADS=2 OPENBLAS_NUM_THREADS=1
// OMP_WAIT_POLICY=PASSIVE, libtorch's best settings on this machine.
#include <sys/resource.h>
#include <torch/torch.h>
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace nn = torch::nn;

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

double peak_rss_mb() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_maxrss) / 1024.0;
}

struct Args {
  std::string case_name;
  long samples = -1;
  std::string data_dir = "/usr/share/datasets/fashion-mnist";
};

class JsonLine {
 public:
  explicit JsonLine(const std::string& case_name) {
    str("impl", "libtorch");
    str("case", case_name);
  }
  JsonLine& str(const std::string& key, const std::string& v) {
    add(key, "\"" + v + "\"");
    return *this;
  }
  JsonLine& num(const std::string& key, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    add(key, buf);
    return *this;
  }
  /// rss_mb < 0: the peak so far (see kiln_bench.cpp).
  void print(double rss_mb = -1) {
    num("threads", at::get_num_threads());
    num("peak_rss_mb", rss_mb < 0 ? peak_rss_mb() : rss_mb);
    std::cout << "{" << body_.str() << "}" << std::endl;
  }

 private:
  void add(const std::string& key, const std::string& v) {
    if (!first_) body_ << ",";
    first_ = false;
    body_ << "\"" << key << "\":" << v;
  }
  std::ostringstream body_;
  bool first_ = true;
};

// ---- Fashion-MNIST IDX reader (zlib's gz* functions also read uncompressed files) ----

std::vector<uint8_t> read_file_maybe_gz(const std::string& base) {
  for (const std::string& path : {base + ".gz", base}) {
    gzFile f = gzopen(path.c_str(), "rb");
    if (!f) continue;
    std::vector<uint8_t> out;
    uint8_t buf[1 << 16];
    int n;
    while ((n = gzread(f, buf, sizeof buf)) > 0) out.insert(out.end(), buf, buf + n);
    const bool err = n < 0;
    gzclose(f);
    if (err) throw std::runtime_error("torch_bench: cannot decompress " + path);
    return out;
  }
  throw std::runtime_error("torch_bench: cannot open " + base + "[.gz]");
}

uint32_t be32(const uint8_t* p) { return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | p[3]; }

/// An IDX file of unsigned bytes (magic 0x00000800 | rank) as a uint8 tensor of its shape.
torch::Tensor read_idx(const std::string& base) {
  std::vector<uint8_t> b = read_file_maybe_gz(base);
  if (b.size() < 4 || b[0] != 0 || b[1] != 0 || b[2] != 0x08)
    throw std::runtime_error("torch_bench: " + base + " is not an unsigned-byte IDX file");
  const int rank = b[3];
  std::vector<int64_t> shape;
  size_t off = 4, count = 1;
  for (int i = 0; i < rank; ++i, off += 4) {
    shape.push_back(be32(&b[off]));
    count *= shape.back();
  }
  if (b.size() != off + count) throw std::runtime_error("torch_bench: " + base + " has the wrong size");
  return torch::from_blob(b.data() + off, shape, torch::kUInt8).clone();
}

struct Data {
  torch::Tensor x_train, y_train, x_test, y_test;  // x: float32 (N, 1, 28, 28) in [0, 1]; y: int64 (N,)
};

Data load_fashion(const Args& a, long n_train) {
  auto images = [](const torch::Tensor& u8) { return u8.to(torch::kFloat32).div_(255.0f).unsqueeze(1).contiguous(); };
  Data d;
  torch::Tensor xtr = read_idx(a.data_dir + "/train-images-idx3-ubyte");
  torch::Tensor ytr = read_idx(a.data_dir + "/train-labels-idx1-ubyte");
  if (n_train >= 0 && n_train < xtr.size(0)) {
    xtr = xtr.slice(0, 0, n_train);
    ytr = ytr.slice(0, 0, n_train);
  }
  d.x_train = images(xtr);
  d.y_train = ytr.to(torch::kInt64).contiguous();
  d.x_test = images(read_idx(a.data_dir + "/t10k-images-idx3-ubyte"));
  d.y_test = read_idx(a.data_dir + "/t10k-labels-idx1-ubyte").to(torch::kInt64);
  return d;
}

// ---- the models (the same as kiln_bench.cpp) ----

nn::Sequential guide_cnn() {
  return nn::Sequential(
      nn::Conv2d(nn::Conv2dOptions(1, 32, 3)), nn::ReLU(), nn::MaxPool2d(nn::MaxPool2dOptions(2)), nn::Flatten(),
      nn::Dropout(0.1), nn::Linear(13 * 13 * 32, 64), nn::ReLU(),
      nn::BatchNorm1d(nn::BatchNormOptions(64).momentum(0.01).eps(1e-3)), nn::Linear(64, 10));
}

nn::Sequential big_cnn() {
  return nn::Sequential(nn::Conv2d(nn::Conv2dOptions(1, 32, 3)), nn::ReLU(), nn::MaxPool2d(nn::MaxPool2dOptions(2)),
                        nn::Conv2d(nn::Conv2dOptions(32, 64, 3)), nn::ReLU(), nn::MaxPool2d(nn::MaxPool2dOptions(2)),
                        nn::Conv2d(nn::Conv2dOptions(64, 64, 3)), nn::ReLU(), nn::Flatten(),
                        nn::Linear(3 * 3 * 64, 64), nn::ReLU(), nn::Linear(64, 10));
}

nn::Sequential mlp() {
  return nn::Sequential(nn::Flatten(), nn::Linear(784, 512), nn::ReLU(), nn::Linear(512, 512), nn::ReLU(),
                        nn::Linear(512, 10));
}

double accuracy(nn::Sequential& model, const torch::Tensor& x, const torch::Tensor& y, int batch) {
  torch::InferenceMode guard;
  model->eval();
  int64_t correct = 0;
  const int64_t n = x.size(0);
  for (int64_t s = 0; s < n; s += batch) {
    const int64_t e = std::min(n, s + batch);
    torch::Tensor logits = model->forward(x.slice(0, s, e));
    correct += logits.argmax(1).eq(y.slice(0, s, e)).sum().item<int64_t>();
  }
  return static_cast<double>(correct) / static_cast<double>(n);
}

/// One shuffled epoch; returns the mean training loss (as Keras's loss tracker reports it).
double train_epoch(nn::Sequential& model, torch::optim::Optimizer& opt, const Data& d, int batch) {
  model->train();
  const int64_t n = d.x_train.size(0);
  torch::Tensor perm = torch::randperm(n, torch::kInt64);
  double loss_sum = 0;
  for (int64_t s = 0; s < n; s += batch) {
    const int64_t e = std::min(n, s + batch);
    torch::Tensor idx = perm.slice(0, s, e);
    torch::Tensor xb = d.x_train.index_select(0, idx), yb = d.y_train.index_select(0, idx);
    opt.zero_grad();
    torch::Tensor loss = torch::nn::functional::cross_entropy(model->forward(xb), yb);
    loss.backward();
    opt.step();
    loss_sum += loss.item<double>() * static_cast<double>(e - s);
  }
  return loss_sum / static_cast<double>(n);
}

void train_case(const std::string& name, const Args& a, const std::function<nn::Sequential()>& make, int batch,
                long default_samples, bool with_test_acc) {
  torch::manual_seed(0);
  Data d = load_fashion(a, a.samples >= 0 ? a.samples : default_samples);
  const int64_t n = d.x_train.size(0);
  auto t0 = Clock::now();  // a fresh model: construction and first-step warm-up are timed, as for Kiln
  nn::Sequential model = make();
  torch::optim::Adam opt(model->parameters(), torch::optim::AdamOptions(1e-3).eps(1e-7));
  const double loss = train_epoch(model, opt, d, batch);
  const double s = seconds_since(t0);
  const double rss = peak_rss_mb();
  JsonLine j(name);
  j.num("batch", batch).num("samples", static_cast<double>(n)).num("seconds", s).num("samples_per_s", n / s);
  j.num("final_loss", loss);
  if (with_test_acc) j.num("test_acc", accuracy(model, d.x_test, d.y_test, 1000));
  j.print(rss);
}

void infer_case(const Args& a) {
  torch::manual_seed(0);
  Data d = load_fashion(a, 0);
  nn::Sequential model = guide_cnn();
  (void)accuracy(model, d.x_test, d.y_test, 1000);  // warm-up
  auto t0 = Clock::now();
  const double acc = accuracy(model, d.x_test, d.y_test, 1000);
  const double s = seconds_since(t0);
  const double n = static_cast<double>(d.x_test.size(0));
  JsonLine j("cnn_infer");
  j.num("batch", 1000).num("samples", n).num("seconds", s).num("samples_per_s", n / s).num("accuracy", acc);
  j.print();
}

/// power(x, 100) from the TF guide: 100 chained 10x10 matmuls. Plain eager libtorch (the tensors do not
/// require grad), as Kiln runs with no tape; InferenceMode is reported beside it for reference.
double power_us_per_op(const torch::Tensor& x, const torch::Tensor& id, int calls) {
  auto power = [&] {
    torch::Tensor r = id;
    for (int i = 0; i < 100; ++i) r = torch::matmul(x, r);
    return r;
  };
  for (int i = 0; i < 50; ++i) (void)power();
  std::vector<double> us(calls);
  for (int c = 0; c < calls; ++c) {
    auto t0 = Clock::now();
    torch::Tensor r = power();
    us[c] = seconds_since(t0) * 1e6 / 100.0;
  }
  std::sort(us.begin(), us.end());
  return us[calls / 2];
}

void dispatch_case() {
  torch::manual_seed(0);
  const torch::Tensor x = torch::eye(10) + torch::empty({10, 10}).uniform_(-1e-3, 1e-3);
  const torch::Tensor id = torch::eye(10);
  const int calls = 2000;
  const double plain = power_us_per_op(x, id, calls);
  double inference_mode;
  {
    torch::InferenceMode guard;
    inference_mode = power_us_per_op(x.clone(), id.clone(), calls);
  }
  JsonLine j("dispatch");
  j.num("ops", calls * 100.0).num("us_per_op", plain).num("us_per_op_inference_mode", inference_mode);
  j.print();
}

const std::vector<std::string>& case_names() {
  static const std::vector<std::string> names = {"cnn_train", "cnn_infer", "bigcnn_train", "mlp_train",
                                                 "cnn_b16",   "cnn_b64",   "cnn_b256",     "dispatch"};
  return names;
}

void run_case(const Args& a) {
  const std::string& c = a.case_name;
  if (c == "cnn_train") train_case(c, a, guide_cnn, 64, -1, true);
  else if (c == "cnn_infer") infer_case(a);
  else if (c == "bigcnn_train") train_case(c, a, big_cnn, 128, 10000, false);
  else if (c == "mlp_train") train_case(c, a, mlp, 128, -1, false);
  else if (c == "cnn_b16") train_case(c, a, guide_cnn, 16, 12800, false);
  else if (c == "cnn_b64") train_case(c, a, guide_cnn, 64, 12800, false);
  else if (c == "cnn_b256") train_case(c, a, guide_cnn, 256, 12800, false);
  else if (c == "dispatch") dispatch_case();
  else throw std::runtime_error("torch_bench: unknown --case '" + c + "'; run with --list");
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string s = argv[i];
    if (s == "--case" && i + 1 < argc) a.case_name = argv[++i];
    else if (s == "--samples" && i + 1 < argc) a.samples = std::atol(argv[++i]);
    else if (s == "--data" && i + 1 < argc) a.data_dir = argv[++i];
    else if (s == "--list") {
      for (const auto& n : case_names()) std::cout << n << "\n";
      return 0;
    } else {
      std::cerr << "usage: torch_bench --case NAME [--samples N] [--data DIR] | --list\n";
      return 2;
    }
  }
  if (a.case_name.empty()) {
    std::cerr << "torch_bench: --case NAME is required (--list shows the names)\n";
    return 2;
  }
  try {
    run_case(a);
  } catch (const std::exception& e) {
    std::cerr << "torch_bench --case " << a.case_name << ": " << e.what() << "\n";
    return 1;
  }
  return 0;
}
