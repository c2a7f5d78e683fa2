#pragma once
// LayerAssets: a layer that keeps state in files beside its weights (Keras's
// load_assets), such as an adapted lookup layer's vocabulary, which Keras writes
// to assets/<layer path>/vocabulary.txt in a .keras archive rather than to the
// config. The archive reader looks for this interface on every layer it loads.
#include <map>
#include <string>

namespace kiln {

/// One layer's asset folder: file name -> bytes.
using AssetFiles = std::map<std::string, std::string>;

/// A layer that reads and writes asset files (Keras's Layer.load_assets and save_assets).
class LayerAssets {
 public:
  virtual ~LayerAssets() = default;
  /// Reads the files an archive holds for this layer, after its weights are loaded;
  /// `folder` names them in errors ("model.keras[assets/layers/string_lookup/]").
  virtual void load_assets(const AssetFiles& files, const std::string& folder) = 0;
  /// The files to write to this layer's asset folder when a .keras archive is saved.
  virtual AssetFiles save_assets() const = 0;
};

}  // namespace kiln
