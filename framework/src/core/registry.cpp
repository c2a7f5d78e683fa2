// Name lookup helpers shared by every registry: close matches for error
// messages and Keras's class-name -> snake_case rule.
#include "kiln/core/registry.h"

#include <algorithm>
#include <cctype>
#include <regex>

#include "kiln/core/error.h"

namespace kiln {
namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Classic two-row Levenshtein distance (insert, delete, substitute all cost 1).
std::size_t levenshtein(const std::string& a, const std::string& b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string quoted_list(const std::vector<std::string>& names, const std::string& last_sep) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += (i + 1 == names.size()) ? last_sep : ", ";
    out += "'" + names[i] + "'";
  }
  return out;
}

/// The `n` candidates nearest to `name` by case-insensitive edit distance, however far.
std::vector<std::string> nearest_names(const std::string& name, const std::vector<std::string>& candidates,
                                       std::size_t n) {
  const std::string key = lower(name);
  std::vector<std::pair<std::size_t, std::size_t>> scored;
  for (std::size_t i = 0; i < candidates.size(); ++i) scored.emplace_back(levenshtein(key, lower(candidates[i])), i);
  std::stable_sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> out;
  for (std::size_t i = 0; i < scored.size() && out.size() < n; ++i) out.push_back(candidates[scored[i].second]);
  return out;
}

}  // namespace

std::vector<std::string> close_matches(const std::string& name, const std::vector<std::string>& candidates,
                                       std::size_t n) {
  const std::string key = lower(name);
  // Allow roughly one typo per three characters, and at least two, so that
  // "rleu" -> "relu" (a transposition costs 2) still matches.
  const std::size_t max_dist = std::max<std::size_t>(2, key.size() / 3);
  std::vector<std::pair<std::size_t, std::size_t>> scored;  // (distance, candidate index)
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    std::size_t d = levenshtein(key, lower(candidates[i]));
    if (d <= max_dist) scored.emplace_back(d, i);
  }
  // Closest first; ties keep the candidates' order.
  std::stable_sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> out;
  for (std::size_t i = 0; i < scored.size() && out.size() < n; ++i) out.push_back(candidates[scored[i].second]);
  return out;
}

void throw_unknown(const std::string& kind, const std::string& name, const std::vector<std::string>& candidates,
                   const std::string& hint) {
  // A long list of every name hides the one line that helps; past a dozen,
  // only the nearest few are named.
  constexpr std::size_t kListAll = 12, kNearest = 3;
  std::string msg = "Unknown " + kind + ": '" + name + "'.";
  auto matches = close_matches(name, candidates);
  if (!matches.empty()) {
    msg += " Did you mean " + quoted_list(matches, " or ") + "?";
  } else if (candidates.size() > kListAll) {
    msg += " The closest known names are " + quoted_list(nearest_names(name, candidates, kNearest), " and ") + ".";
  } else if (!candidates.empty()) {
    msg += " Known names: " + quoted_list(candidates, ", ") + ".";
  }
  if (!hint.empty()) msg += " " + hint;
  throw NotFoundError(msg);
}

std::string to_snake_case(const std::string& s) {
  // The three substitutions of keras/src/utils/naming.py, in order:
  //   1. drop non-word characters;
  //   2. "_" before an upper-case letter that starts a lower-case run
  //      ("BatchNormalization" -> "Batch_Normalization");
  //   3. "_" between a lower-case and an upper-case letter ("ReLU" -> "Re_LU").
  // Digits are not split ("Conv2D" -> "conv2d"), as in Keras 3.
  static const std::regex non_word(R"(\W+)");
  static const std::regex word_start("(.)([A-Z][a-z]+)");
  static const std::regex lower_upper("([a-z])([A-Z])");
  std::string out = std::regex_replace(s, non_word, "");
  out = std::regex_replace(out, word_start, "$1_$2");
  out = std::regex_replace(out, lower_upper, "$1_$2");
  return lower(out);
}

}  // namespace kiln
