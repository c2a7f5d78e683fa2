#pragma once
// Private: a traced graph as a serialized tensorflow.GraphDef, for TensorBoard.
#include <string>

#include "kiln/graph/concrete_function.h"

namespace kiln::io {

/// GraphDef{node = 1: NodeDef{name = 1, op = 2, input = 3, attr = 5}, versions = 4: VersionDef{producer = 1}},
/// each node with attr "T" (or "dtype" for sources) and "_output_shapes", which
/// TensorBoard's graph view shows on the edges.
std::string graph_def_proto(const ConcreteFunction& f);

}  // namespace kiln::io
