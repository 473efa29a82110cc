// Package sqlbook holds the test that runs every query of docs/sql.md against a real
// DuckDB over a Parquet file exported from a synthetic trace. It has no API: the test is
// kept out of package format so that format's own test binary does not link DuckDB's C++
// library.
package sqlbook
