// The state store's schema (internal to state_store*.cpp): the SQL of each schema version's step
// and the tables each version has. state_store.hpp describes the tables.
#pragma once

#include <sqlite3.h>

#include <string>

namespace ibsdn::state_store_schema {

/// Takes the database from schema version `from` to StateStore::kSchemaVersion, one transaction
/// per step. Throws StateError (the failed step is rolled back).
void migrate(sqlite3* db, const std::string& path, long from);

/// The tables of schema `version` the database lacks, space-separated; empty when none.
std::string missing_tables(sqlite3* db, const std::string& path, long version);

}  // namespace ibsdn::state_store_schema
