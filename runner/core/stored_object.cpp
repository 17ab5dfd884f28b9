#include "core/stored_object.hpp"

namespace apod {

namespace {

const json* find(const json& object, const std::string& key) {
  const auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

} // namespace

json over_stored(const json& stored, const json& as_read, const json& now) {
  // What the type writes for a key compared before and after: equal means the program did not
  // change that field, so the stored value (its form included) stands.
  const auto unchanged = [&](const std::string& key, const json& value) {
    const json* before = find(as_read, key);
    return before && *before == value;
  };
  if (!stored.is_object() || !now.is_object()) // read from something else than an object
    return now == as_read ? stored : now;
  json out = json::object();
  for (const auto& [key, value] : stored.items()) {
    const json* current = find(now, key);
    if (!current) {
      if (!find(as_read, key)) // a key this apod does not read: kept
        out[key] = value;
      continue;
    }
    out[key] = unchanged(key, *current) ? value : *current;
  }
  for (const auto& [key, value] : now.items())
    if (!find(stored, key) && !unchanged(key, value))
      out[key] = value;
  return out;
}

const json* object_field(const json& object, const char* key) {
  if (!object.is_object())
    return nullptr;
  const json* value = find(object, key);
  return value && value->is_object() ? value : nullptr;
}

} // namespace apod
