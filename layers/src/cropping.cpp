// Cropping1D/2D/3D and ZeroPadding1D/3D: slices to crop, concatenated zero blocks to pad
// (both differentiable: the gradient of one is the other).
#include "kiln/layers/cropping.h"

#include "kiln/ops/array_ops.h"
#include "config_fields.h"

namespace kiln::layers {

using namespace detail;

PadCropBase::PadCropBase(std::string cls, bool crop, std::vector<Size2> amounts, LayerOptions base,
                         const std::string& data_format)
    : Layer(std::move(base)), cls_(std::move(cls)), crop_(crop), amounts_(std::move(amounts)) {
  for (const Size2& a : amounts_)
    if (a.first < 0 || a.second < 0)
      throw ValueError(cls_ + ": " + (crop_ ? "cropping" : "padding") + " amounts must be non-negative");
  channels_first_ = check_data_format(cls_, data_format) == "channels_first";
  set_input_spec({InputSpec{.ndim = static_cast<int64_t>(amounts_.size()) + 2}});
}

Shape PadCropBase::compute_output_shape(const Shape& s) {
  const int64_t rank = static_cast<int64_t>(amounts_.size()) + 2;
  if (s.rank() != rank)
    throw ShapeError("Layer '" + name() + "' (" + cls_ + ") expects inputs of rank " + std::to_string(rank) +
                     ", but received shape " + s.to_string());
  Shape out = s;
  for (std::size_t i = 0; i < amounts_.size(); ++i) {
    const int64_t axis = static_cast<int64_t>(i) + (channels_first_ ? 2 : 1);
    if (out[axis] < 0) continue;
    const int64_t total = amounts_[i].first + amounts_[i].second;
    out[axis] += crop_ ? -total : total;
    if (out[axis] < 0 || (crop_ && out[axis] == 0))
      throw ValueError("Layer '" + name() + "' (" + cls_ + "): cropping " + std::to_string(total) + " from axis " +
                       std::to_string(axis) + " of an input of shape " + s.to_string() + " leaves nothing");
  }
  return out;
}

Tensor PadCropBase::call(const Tensor& x, bool) {
  compute_output_shape(x.shape());  // checks that the crops fit
  Tensor y = x;
  for (std::size_t i = 0; i < amounts_.size(); ++i) {
    const int axis = static_cast<int>(i) + (channels_first_ ? 2 : 1);
    const int64_t before = amounts_[i].first, after = amounts_[i].second;
    if (crop_) {
      std::vector<Index> idx(static_cast<std::size_t>(axis), Index(Slice()));
      idx.push_back(Slice(before, y.shape()[axis] - after));
      y = slice(y, idx);
      continue;
    }
    std::vector<Tensor> parts;
    Shape zs = y.shape();
    if (before > 0) {
      zs[axis] = before;
      parts.push_back(zeros(zs, y.dtype()));
    }
    parts.push_back(y);
    if (after > 0) {
      zs[axis] = after;
      parts.push_back(zeros(zs, y.dtype()));
    }
    if (parts.size() > 1) y = concat(parts, axis);
  }
  return y;
}

Config PadCropBase::amounts_config() const {
  if (amounts_.size() == 1) return size2_json(amounts_[0]);  // 1D: (before, after)
  Config c = Config::array();
  for (const Size2& a : amounts_) c.push_back(size2_json(a));
  return c;
}

namespace {

// Keras's argument forms: an int (every side), one int per axis, or one
// (before, after) pair per axis; for one axis, a pair is (before, after).
std::vector<Size2> read_amounts(const ConfigReader& r, const char* key, std::size_t rank, std::vector<Size2> dflt) {
  if (!r.has(key)) return dflt;
  const Config& p = r.raw()[key];
  if (p.is_number_integer()) return std::vector<Size2>(rank, Size2(p.get<int>()));
  if (!p.is_array()) r.fail(key, "an int, or a tuple of ints or of (before, after) pairs");
  if (rank == 1 && p.size() == 2 && p[0].is_number_integer() && p[1].is_number_integer())
    return {Size2(p[0].get<int>(), p[1].get<int>())};
  if (p.size() != rank) r.fail(key, std::to_string(rank) + " entries, one per spatial axis");
  std::vector<Size2> out;
  for (const Config& e : p) {
    if (e.is_number_integer()) out.push_back(Size2(e.get<int>()));
    else if (e.is_array() && e.size() == 2 && e[0].is_number_integer() && e[1].is_number_integer())
      out.push_back(Size2(e[0].get<int>(), e[1].get<int>()));
    else r.fail(key, "ints or (before, after) pairs");
  }
  return out;
}

template <class Impl>
Config pad_crop_config(const Impl& l, const char* key, Config amounts) {
  Config c = l.base_config();
  c[key] = std::move(amounts);
  write_fields(c, l.options());
  add_declared_shape(l, c);
  return c;
}

template <class Impl, std::size_t Rank>
std::shared_ptr<Impl> pad_crop_from_config(const char* cls, const Config& config, const char* key,
                                           std::vector<Size2> dflt) {
  ConfigReader r(cls, config);
  typename Impl::Options o;
  r.base(o);
  read_fields(r, o);
  std::vector<Size2> a = read_amounts(r, key, Rank, std::move(dflt));
  if constexpr (Rank == 1) return std::make_shared<Impl>(a[0], std::move(o));
  else if constexpr (Rank == 2) return std::make_shared<Impl>(a[0], a[1], std::move(o));
  else return std::make_shared<Impl>(a[0], a[1], a[2], std::move(o));
}

}  // namespace

Cropping1DImpl::Cropping1DImpl(Size2 c, Cropping1DOptions o)
    : PadCropBase("Cropping1D", true, {c}, base_options(o), "channels_last"), o_(std::move(o)) {
  apply_input_shape(*this, o_);
}
Config Cropping1DImpl::get_config() const { return pad_crop_config(*this, "cropping", amounts_config()); }
std::shared_ptr<Cropping1DImpl> Cropping1DImpl::from_config(const Config& c) {
  return pad_crop_from_config<Cropping1DImpl, 1>("Cropping1D", c, "cropping", {Size2(1, 1)});
}
KILN_REGISTER_LAYER(Cropping1DImpl, "Cropping1D")

Cropping2DImpl::Cropping2DImpl(Size2 h, Size2 w, PadCropOptions o)
    : PadCropBase("Cropping2D", true, {h, w}, base_options(o), o.data_format), o_(std::move(o)) {
  o_.data_format = check_data_format("Cropping2D", o_.data_format);
  apply_input_shape(*this, o_);
}
Config Cropping2DImpl::get_config() const { return pad_crop_config(*this, "cropping", amounts_config()); }
std::shared_ptr<Cropping2DImpl> Cropping2DImpl::from_config(const Config& c) {
  return pad_crop_from_config<Cropping2DImpl, 2>("Cropping2D", c, "cropping", {Size2(0), Size2(0)});
}
KILN_REGISTER_LAYER(Cropping2DImpl, "Cropping2D")

Cropping3DImpl::Cropping3DImpl(Size2 d, Size2 h, Size2 w, PadCropOptions o)
    : PadCropBase("Cropping3D", true, {d, h, w}, base_options(o), o.data_format), o_(std::move(o)) {
  o_.data_format = check_data_format("Cropping3D", o_.data_format);
  apply_input_shape(*this, o_);
}
Config Cropping3DImpl::get_config() const { return pad_crop_config(*this, "cropping", amounts_config()); }
std::shared_ptr<Cropping3DImpl> Cropping3DImpl::from_config(const Config& c) {
  return pad_crop_from_config<Cropping3DImpl, 3>("Cropping3D", c, "cropping", {Size2(1), Size2(1), Size2(1)});
}
KILN_REGISTER_LAYER(Cropping3DImpl, "Cropping3D")

ZeroPadding1DImpl::ZeroPadding1DImpl(Size2 p, PadCropOptions o)
    : PadCropBase("ZeroPadding1D", false, {p}, base_options(o), o.data_format), o_(std::move(o)) {
  o_.data_format = check_data_format("ZeroPadding1D", o_.data_format);
  apply_input_shape(*this, o_);
}
Config ZeroPadding1DImpl::get_config() const { return pad_crop_config(*this, "padding", amounts_config()); }
std::shared_ptr<ZeroPadding1DImpl> ZeroPadding1DImpl::from_config(const Config& c) {
  return pad_crop_from_config<ZeroPadding1DImpl, 1>("ZeroPadding1D", c, "padding", {Size2(1)});
}
KILN_REGISTER_LAYER(ZeroPadding1DImpl, "ZeroPadding1D")

ZeroPadding3DImpl::ZeroPadding3DImpl(Size2 d, Size2 h, Size2 w, PadCropOptions o)
    : PadCropBase("ZeroPadding3D", false, {d, h, w}, base_options(o), o.data_format), o_(std::move(o)) {
  o_.data_format = check_data_format("ZeroPadding3D", o_.data_format);
  apply_input_shape(*this, o_);
}
Config ZeroPadding3DImpl::get_config() const { return pad_crop_config(*this, "padding", amounts_config()); }
std::shared_ptr<ZeroPadding3DImpl> ZeroPadding3DImpl::from_config(const Config& c) {
  return pad_crop_from_config<ZeroPadding3DImpl, 3>("ZeroPadding3D", c, "padding", {Size2(1), Size2(1), Size2(1)});
}
KILN_REGISTER_LAYER(ZeroPadding3DImpl, "ZeroPadding3D")

}  // namespace kiln::layers
