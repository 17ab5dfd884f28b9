// apod's database schema as the migrations that build it (schema.cpp): a file at schema version
// v (PRAGMA user_version) was built by the first v of them.
#pragma once

namespace apod {

/// The SQL that takes an apod database from schema version `version` to `version` + 1, for
/// 0 <= version < Store::schema_version (std::out_of_range otherwise). Tests build a file as an
/// older apod left it from the first ones.
const char* schema_migration(int version);

} // namespace apod
