#include "palette.hpp"

#include <algorithm>
#include <cstdint>

namespace apod::report {

const std::vector<std::string>& palette() {
  static const std::vector<std::string> colours = {"#4e79a7", "#f28e2b", "#e15759",
                                                   "#76b7b2", "#59a14f", "#edc948",
                                                   "#b07aa1", "#ff9da7", "#9c755f"};
  return colours;
}

std::size_t palette_slot(const std::string& name) {
  std::uint32_t hash = 2166136261u;
  for (const unsigned char c : name) {
    hash ^= c;
    hash *= 16777619u;
  }
  return hash % palette().size();
}

std::vector<std::string> stable_colours(const std::vector<std::string>& names) {
  std::vector<std::string> colours;
  std::vector<bool> taken(palette().size(), false);
  for (const auto& name : names) {
    std::size_t slot = palette_slot(name);
    const bool all_taken = std::all_of(taken.begin(), taken.end(), [](bool t) { return t; });
    for (std::size_t tries = 0; !all_taken && taken[slot] && tries < taken.size(); ++tries)
      slot = (slot + 1) % taken.size();
    taken[slot] = true;
    colours.push_back(palette()[slot]);
  }
  return colours;
}

} // namespace apod::report
