// libsqlite3 for Swift (the agents' own databases: OpenCode, goose, Cursor's state.vscdb), loaded on first
// use.
//
// Like libcurl, the library is opened with dlopen the first time a source reads a database, not linked: no
// other command needs it, and a machine without it runs them all. Only what reading needs is here.
#ifndef AGGCTL_CSQLITE_H
#define AGGCTL_CSQLITE_H

#include <stddef.h>
#include <stdint.h>

/// Loads libsqlite3 when it is not loaded yet. NULL when it is usable, else why not (one line).
const char *aggctl_sqlite_load_error(void);

/// Opens `uri` (a `file:` URI) read-only, waiting at most `busy_ms` for another process's lock. Returns
/// the handle, or NULL with why in `error` (which then must be freed with `aggctl_sqlite_free_error`).
void *aggctl_sqlite_open(const char *uri, int busy_ms, char **error);
void aggctl_sqlite_close(void *db);
void aggctl_sqlite_free_error(char *error);

/// Prepares one statement; NULL with why in `error` (freed with `aggctl_sqlite_free_error`).
void *aggctl_sqlite_prepare(void *db, const char *sql, char **error);
/// Binds text to the statement's parameter `index` (from 1); 0 when bound.
int aggctl_sqlite_bind_text(void *statement, int index, const char *text);
int aggctl_sqlite_bind_int64(void *statement, int index, int64_t value);
/// 1: a row is ready; 0: done; 2: the database is locked past the wait; -1: an error (`aggctl_sqlite_errmsg`).
int aggctl_sqlite_step(void *statement);
void aggctl_sqlite_finalize(void *statement);
const char *aggctl_sqlite_errmsg(void *db);

int aggctl_sqlite_column_count(void *statement);
/// 1 integer, 2 float, 3 text, 4 blob, 5 null (SQLite's own numbering).
int aggctl_sqlite_column_type(void *statement, int column);
int64_t aggctl_sqlite_column_int64(void *statement, int column);
double aggctl_sqlite_column_double(void *statement, int column);
/// The column's text (UTF-8, not NUL-terminated for the caller) and its length in bytes.
const unsigned char *aggctl_sqlite_column_text(void *statement, int column, int *length);

#endif
