// A typed record that gives back the JSON it was read from. A run's device, environment and
// telemetry come from documents that several apod versions wrote: some hold keys this apod no
// longer reads, write a number in another form (2 for 2.0) or leave keys out. Their types read the
// fields apod uses and keep the object they were read from; writing a record lays its fields over
// that object, so that export -> import -> export stays byte-identical and nothing a document
// holds is lost on the way (docs/results-format.md).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>

namespace apod {

using json = nlohmann::ordered_json;

/// The JSON object a record was read from; nothing for a record apod made itself.
using StoredObject = std::optional<json>;

/// `now` (a record's fields as its type writes them) laid over `stored` (the object it was read
/// from), where `as_read` is what the type writes for the record as it was read. A key whose value
/// has not changed since keeps its stored value, form and place, and a key the stored object
/// lacked stays absent; a changed key takes its new value in place, or at the end when the stored
/// object lacked it; a key the type does not write is kept as stored, one it no longer writes is
/// dropped.
json over_stored(const json& stored, const json& as_read, const json& now);

/// A record's JSON: `fields(record)`, laid over the object it was read from if there is one
/// (over_stored); `read` is the type's from_json, which gives the fields as read.
template <class Record, class Fields, class Read>
json written_over_stored(const Record& record, Fields fields, Read read) {
  json now = fields(record);
  if (!record.stored)
    return now;
  return over_stored(*record.stored, fields(read(*record.stored)), now);
}

/// The value at `key` of `object` when it has the JSON type T is written as (a string, a boolean,
/// a number; an integer for an integral T, within its range), else nothing: absent, null or of
/// another type. The readers of stored records never throw on what an older or a hand-made
/// document holds; what they cannot read is still written back as it was (over_stored).
template <class T> std::optional<T> field(const json& object, const char* key) {
  if (!object.is_object())
    return std::nullopt;
  const auto it = object.find(key);
  if (it == object.end())
    return std::nullopt;
  const json& v = *it;
  if constexpr (std::is_same_v<T, std::string>) {
    if (v.is_string())
      return v.get<std::string>();
  } else if constexpr (std::is_same_v<T, bool>) {
    if (v.is_boolean())
      return v.get<bool>();
  } else if constexpr (std::is_floating_point_v<T>) {
    if (v.is_number())
      return v.get<T>();
  } else {
    static_assert(std::is_integral_v<T>, "field<T>: a string, a boolean, a number or an integer");
    if (v.is_number_unsigned()) {
      const auto u = v.get<std::uint64_t>();
      if (u <= static_cast<std::uint64_t>(std::numeric_limits<T>::max()))
        return static_cast<T>(u);
    } else if (v.is_number_integer()) {
      const auto i = v.get<std::int64_t>();
      if (std::is_signed_v<T> && i >= static_cast<std::int64_t>(std::numeric_limits<T>::min()) &&
          i <= static_cast<std::int64_t>(std::numeric_limits<T>::max()))
        return static_cast<T>(i);
    }
  }
  return std::nullopt;
}

/// The object at `key` of `object`, or nullptr when there is none.
const json* object_field(const json& object, const char* key);

/// `value` as JSON, or null when there is none: how an unknown reading or setting is written.
template <class T> json or_null(const std::optional<T>& value) {
  return value ? json(*value) : json(nullptr);
}

} // namespace apod
