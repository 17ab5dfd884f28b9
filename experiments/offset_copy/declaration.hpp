// offset_copy's declaration (declaration.cpp registers it): its params and extra keys as named
// constants, which offset_copy.cu records under.
#pragma once

#include "core/catalog.hpp"

namespace apod::offset_copy {

inline constexpr const char* experiment = "offset_copy";

inline const Param kernel{.key = "kernel", .title = "kernel"};
inline const Param word_bytes{.key = "word_bytes", .title = "word size (bytes)"};
inline const Param offset{.key = "offset", .title = "offset (words)"};
inline const Param variant{.key = "variant", .title = "kernel, word size"};

inline constexpr const char* guide = "guide";
inline constexpr const char* saturating = "saturating";
/// The largest offset of each word size (the guide's 0..32 for 4-byte words; 0..16 for 8).
inline constexpr int max_offset_4 = 32, max_offset_8 = 16;
inline constexpr int saturating_bytes_per_thread = 16;

/// The series a point belongs to: "guide, 4-byte words".
std::string variant_of(const char* kernel_name, int word_bytes);

} // namespace apod::offset_copy
