#include "oracle_io.h"

#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

#include "kiln/core/error.h"
#include "kiln/datasets/npy.h"
#include "kiln/ops/ops.h"

namespace oracle {

Group::Group(fs::path dir) : dir_(std::move(dir)) {
  std::ifstream in(dir_ / "cases.json");
  if (!in) throw std::runtime_error("cannot read " + (dir_ / "cases.json").string());
  cases_ = json::parse(in).at("cases");
  fs::create_directories(dir_ / "out");
}

kiln::Tensor Group::array(const json& file_name) const {
  // a00012.bfloat16.npy holds a 16-bit array as its exact float32 values (oracle.py's arr).
  const std::string name = file_name.get<std::string>();
  kiln::Tensor t = kiln::datasets::load_npy((dir_ / name).string());
  for (kiln::DType d : {kiln::DType::float16, kiln::DType::bfloat16}) {
    const std::string suffix = "." + kiln::dtype_name(d) + ".npy";
    if (name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
      return kiln::cast(t, d);
  }
  return t;
}

kiln::Tensor Group::optional_array(const json& c, const char* key) const {
  if (!c.contains(key) || c[key].is_null()) return kiln::Tensor();
  return array(c[key]);
}

std::vector<kiln::Tensor> Group::arrays(const json& file_names) const {
  std::vector<kiln::Tensor> out;
  for (const auto& f : file_names) out.push_back(array(f));
  return out;
}

void Group::save(const json& c, const std::string& name, const kiln::Tensor& t) const {
  const fs::path d = dir_ / "out" / c.at("id").get<std::string>();
  fs::create_directories(d);
  write_npy(d / (name + ".npy"), t);
}

void Group::for_each_case(const std::function<void(const json&)>& body) const {
  json errors = json::object();
  for (const auto& c : cases_) {
    try {
      body(c);
    } catch (const std::exception& e) {
      errors[c.at("id").get<std::string>()] = e.what();
    }
  }
  std::ofstream(dir_ / "out" / "errors.json") << errors.dump(1);
}

void write_npy(const fs::path& path, const kiln::Tensor& t) {
  kiln::Tensor v = t;
  const char* descr = "<f4";
  std::size_t item = 4;
  if (kiln::is_half_float(v.dtype())) {
    v = kiln::cast(v, kiln::DType::float32);  // exact: oracle.py compares it with the 16-bit values
  } else if (v.dtype() == kiln::DType::float64) {
    descr = "<f8";
    item = 8;
  } else if (v.dtype() != kiln::DType::float32) {
    v = kiln::cast(v, kiln::DType::int64);
    descr = "<i8";
    item = 8;
  }
  std::ostringstream shape;
  shape << "(";
  for (int64_t d : v.shape()) shape << d << ",";
  shape << ")";
  std::string header = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': " + shape.str() + ", }";
  // Magic (6) + version (2) + length (2) + header + '\n', padded to 64 bytes.
  const std::size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::ofstream out(path, std::ios::binary);
  out.write("\x93NUMPY\x01\x00", 8);
  const uint16_t len = static_cast<uint16_t>(header.size());
  const char len_bytes[2] = {static_cast<char>(len & 0xff), static_cast<char>(len >> 8)};
  out.write(len_bytes, 2);
  out << header;
  kiln::Tensor c = v.clone();  // contiguous host copy
  out.write(static_cast<const char*>(c.raw_data()), static_cast<std::streamsize>(c.size() * item));
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

}  // namespace oracle
