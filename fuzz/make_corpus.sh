#!/bin/sh
# Rebuilds the seed part of fuzz/corpus/<target>/ from the test fixtures and
# from files Kiln writes itself (fuzz_replay --write-seeds). Inputs that once
# crashed live beside them as crash-* files and are kept.
# usage: fuzz/make_corpus.sh BUILD_DIR   (BUILD_DIR has fuzz/fuzz_replay)
set -e
build=${1:?usage: make_corpus.sh BUILD_DIR}
here=$(cd "$(dirname "$0")/.." && pwd)
out=$here/fuzz/corpus
data=$here/tests/saving/data
mkdir -p "$out"
seed() {  # seed TARGET NAME FILE [MODE_BYTE_OCTAL]
  mkdir -p "$out/$1"
  if [ -n "$4" ]; then { printf "\\$4"; cat "$3"; } > "$out/$1/$2"; else cp "$3" "$out/$1/$2"; fi
}
seed keras_archive nested_container.keras "$data/keras-team__keras/pre_pr22362_nested_container.keras"
seed h5_model relu0_model.h5 "$data/KonduitAI__dl4j-test-resources/ReLU_0_model.h5"
seed h5_model batchnorm_error.h5 "$data/KonduitAI__dl4j-test-resources/batchNormError.h5"
seed weights_h5 relu0_weights.h5 "$data/KonduitAI__dl4j-test-resources/ReLU_0_weights.h5"
for f in dense_kernel_external dense_kernel_huge_chunk dense_kernel_unwritten dense_vars_external_link; do
  seed weights_h5 "$f.weights.h5" "$data/hostile/$f.weights.h5"
done
seed json_config relu0_config.json "$data/KonduitAI__dl4j-test-resources/ReLU_0_config.json"
seed json_config jet_tagger.json "$data/fastmachinelearning__example-models/jetTagger_Conv2D_Small.json"
seed json_config keras1_arch.json "$data/pplonski__keras2cpp/my_nn_arch.json"
seed json_config batch_norm_3layer.json "$data/fastmachinelearning__example-models/KERAS_3layer_batch_norm.json"
seed arrays digits.npy "$data/KILNETA__CNN_MNIST/modelTest/DERIVED_digits_0to9_uint8_28x28.npy" 001
"$build/fuzz/fuzz_replay" --write-seeds "$out"
