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

SeriesColours::SeriesColours(const std::vector<std::string>& device_models)
    : held_(palette().size(), false) {
  const std::vector<std::string> colours = stable_colours(device_models);
  for (std::size_t i = 0; i < device_models.size(); ++i) {
    const auto slot =
        std::size_t(std::find(palette().begin(), palette().end(), colours[i]) - palette().begin());
    slot_of_.emplace(device_models[i], slot);
    held_[slot] = true;
  }
}

std::vector<std::string> SeriesColours::colours_of(const std::vector<std::string>& names) {
  const std::size_t size = palette().size();
  std::vector<bool> in_chart(size, false);
  std::vector<std::string> colours;
  for (const auto& name : names) {
    auto found = slot_of_.find(name);
    if (found == slot_of_.end()) {
      std::size_t slot = palette_slot(name);
      for (std::size_t tries = 0; held_[slot] && tries < size; ++tries)
        slot = (slot + 1) % size;
      held_[slot] = true;
      found = slot_of_.emplace(name, slot).first;
    }
    std::size_t slot = found->second;
    for (std::size_t tries = 0; in_chart[slot] && tries < size; ++tries)
      slot = (slot + 1) % size;
    in_chart[slot] = true;
    colours.push_back(palette()[slot]);
  }
  return colours;
}

namespace {
thread_local SeriesColours* current = nullptr;
} // namespace

SeriesColours* current_series_colours() {
  return current;
}

SeriesColoursScope::SeriesColoursScope(SeriesColours& colours) : previous_(current) {
  current = &colours;
}

SeriesColoursScope::~SeriesColoursScope() {
  current = previous_;
}

} // namespace apod::report
