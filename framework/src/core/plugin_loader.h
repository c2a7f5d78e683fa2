#pragma once
// Private: finds and opens one of libkiln's optional plugins (the CUDA
// backend, the MPI transport), so that libkiln itself links none of their
// libraries and a program that never needs them never loads them.
#include <string>

namespace kiln::plugins {

/// The address of symbol `entry` in plugin `file`, or null with the reason in
/// `why`. The plugin is looked for, in order: at the path in environment
/// variable `env_var` when set; beside libkiln itself (the build folder, or the
/// install's lib folder); in the dynamic linker's usual search. A plugin that
/// loads stays loaded for the life of the process.
void* load_entry(const char* env_var, const std::string& file, const char* entry, std::string& why);

/// The folder of libkiln itself (of the program, for a static build): where
/// its plugins and helper programs are; "" when it cannot be told.
std::string library_folder();

}  // namespace kiln::plugins
