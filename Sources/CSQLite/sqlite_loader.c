// Opens libsqlite3 with dlopen on first use (see CSQLite.h why) and reads through it.
#include "CSQLite.h"

// A build without the header fails here, saying what to install: a binary whose database sources could
// only say "built without libsqlite3" would be a feature lost in silence.
#if !__has_include(<sqlite3.h>)
#error "libsqlite3's header is missing (the database sources need it): run script/bootstrap, or apt-get install libsqlite3-dev (macOS: it comes with the SDK), then build again"
#endif
#include <sqlite3.h>

#include <dlfcn.h>
#include "CShims.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char aggctl_sqlite_error[512];
static int aggctl_sqlite_loaded;
static pthread_once_t aggctl_sqlite_once = PTHREAD_ONCE_INIT;

static struct {
    int (*open_v2)(const char *, sqlite3 **, int, const char *);
    int (*close_v2)(sqlite3 *);
    int (*busy_timeout)(sqlite3 *, int);
    const char *(*errmsg)(sqlite3 *);
    int (*prepare_v2)(sqlite3 *, const char *, int, sqlite3_stmt **, const char **);
    int (*bind_text)(sqlite3_stmt *, int, const char *, int, void (*)(void *));
    int (*bind_int64)(sqlite3_stmt *, int, sqlite3_int64);
    int (*step)(sqlite3_stmt *);
    int (*finalize)(sqlite3_stmt *);
    int (*column_count)(sqlite3_stmt *);
    int (*column_type)(sqlite3_stmt *, int);
    sqlite3_int64 (*column_int64)(sqlite3_stmt *, int);
    double (*column_double)(sqlite3_stmt *, int);
    const unsigned char *(*column_text)(sqlite3_stmt *, int);
    int (*column_bytes)(sqlite3_stmt *, int);
    sqlite3 *(*db_handle)(sqlite3_stmt *);
} lite;

static void aggctl_sqlite_open_library(void) {
    // AGGCTL_LIBSQLITE3 names the library to load instead (a path or a soname).
    const char *names[] = {"libsqlite3.so.0", "libsqlite3.so", "libsqlite3.dylib", "/usr/lib/libsqlite3.dylib", NULL};
    const char *tried = NULL;
    void *library = aggctl_open_library("AGGCTL_LIBSQLITE3", names, &tried);
    if (!library) {
        const char *why = dlerror();
        snprintf(aggctl_sqlite_error, sizeof aggctl_sqlite_error,
                 "libsqlite3 could not be loaded (%s): %s; the database sources need it (Debian and Ubuntu: apt "
                 "install libsqlite3-0)",
                 tried, why ? why : "not found");
        return;
    }
    const char *missing = NULL;
#define AGGCTL_SQLITE_FIND(field, symbol) \
    if (!missing && !(*(void **)(&lite.field) = dlsym(library, symbol))) missing = symbol;
    AGGCTL_SQLITE_FIND(open_v2, "sqlite3_open_v2")
    AGGCTL_SQLITE_FIND(close_v2, "sqlite3_close_v2")
    AGGCTL_SQLITE_FIND(busy_timeout, "sqlite3_busy_timeout")
    AGGCTL_SQLITE_FIND(errmsg, "sqlite3_errmsg")
    AGGCTL_SQLITE_FIND(prepare_v2, "sqlite3_prepare_v2")
    AGGCTL_SQLITE_FIND(bind_text, "sqlite3_bind_text")
    AGGCTL_SQLITE_FIND(bind_int64, "sqlite3_bind_int64")
    AGGCTL_SQLITE_FIND(step, "sqlite3_step")
    AGGCTL_SQLITE_FIND(finalize, "sqlite3_finalize")
    AGGCTL_SQLITE_FIND(column_count, "sqlite3_column_count")
    AGGCTL_SQLITE_FIND(column_type, "sqlite3_column_type")
    AGGCTL_SQLITE_FIND(column_int64, "sqlite3_column_int64")
    AGGCTL_SQLITE_FIND(column_double, "sqlite3_column_double")
    AGGCTL_SQLITE_FIND(column_text, "sqlite3_column_text")
    AGGCTL_SQLITE_FIND(column_bytes, "sqlite3_column_bytes")
    AGGCTL_SQLITE_FIND(db_handle, "sqlite3_db_handle")
#undef AGGCTL_SQLITE_FIND
    if (missing) {
        snprintf(aggctl_sqlite_error, sizeof aggctl_sqlite_error, "the libsqlite3 loaded (%s) lacks %s", tried,
                 missing);
        return;
    }
    aggctl_sqlite_loaded = 1;
}

const char *aggctl_sqlite_load_error(void) {
    pthread_once(&aggctl_sqlite_once, aggctl_sqlite_open_library);
    return aggctl_sqlite_loaded ? NULL : aggctl_sqlite_error;
}

void aggctl_sqlite_free_error(char *error) { free(error); }

static char *aggctl_sqlite_copy(const char *text) {
    char *copy = strdup(text ? text : "unknown error");
    return copy;
}

void *aggctl_sqlite_open(const char *uri, int busy_ms, char **error) {
    *error = NULL;
    if (aggctl_sqlite_load_error()) {
        *error = aggctl_sqlite_copy(aggctl_sqlite_error);
        return NULL;
    }
    sqlite3 *db = NULL;
    // Read-only, a URI (for `immutable=1`), one thread per connection: nothing is ever written.
    int flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX;
    int code = lite.open_v2(uri, &db, flags, NULL);
    if (code != SQLITE_OK) {
        *error = aggctl_sqlite_copy(db ? lite.errmsg(db) : "out of memory");
        if (db) lite.close_v2(db);
        return NULL;
    }
    lite.busy_timeout(db, busy_ms);
    return db;
}

void aggctl_sqlite_close(void *db) {
    if (db) lite.close_v2((sqlite3 *)db);
}

void *aggctl_sqlite_prepare(void *db, const char *sql, char **error) {
    *error = NULL;
    sqlite3_stmt *statement = NULL;
    if (lite.prepare_v2((sqlite3 *)db, sql, -1, &statement, NULL) != SQLITE_OK) {
        *error = aggctl_sqlite_copy(lite.errmsg((sqlite3 *)db));
        if (statement) lite.finalize(statement);
        return NULL;
    }
    return statement;
}

int aggctl_sqlite_bind_text(void *statement, int index, const char *text) {
    return lite.bind_text((sqlite3_stmt *)statement, index, text, -1, SQLITE_TRANSIENT) == SQLITE_OK ? 0 : -1;
}

int aggctl_sqlite_bind_int64(void *statement, int index, int64_t value) {
    return lite.bind_int64((sqlite3_stmt *)statement, index, value) == SQLITE_OK ? 0 : -1;
}

int aggctl_sqlite_step(void *statement) {
    switch (lite.step((sqlite3_stmt *)statement)) {
    case SQLITE_ROW: return 1;
    case SQLITE_DONE: return 0;
    case SQLITE_BUSY:
    case SQLITE_LOCKED: return 2;
    default: return -1;
    }
}

void aggctl_sqlite_finalize(void *statement) {
    if (statement) lite.finalize((sqlite3_stmt *)statement);
}

const char *aggctl_sqlite_errmsg(void *db) { return lite.errmsg((sqlite3 *)db); }

int aggctl_sqlite_column_count(void *statement) { return lite.column_count((sqlite3_stmt *)statement); }
int aggctl_sqlite_column_type(void *statement, int column) {
    return lite.column_type((sqlite3_stmt *)statement, column);
}
int64_t aggctl_sqlite_column_int64(void *statement, int column) {
    return lite.column_int64((sqlite3_stmt *)statement, column);
}
double aggctl_sqlite_column_double(void *statement, int column) {
    return lite.column_double((sqlite3_stmt *)statement, column);
}
const unsigned char *aggctl_sqlite_column_text(void *statement, int column, int *length) {
    const unsigned char *text = lite.column_text((sqlite3_stmt *)statement, column);
    *length = lite.column_bytes((sqlite3_stmt *)statement, column);
    return text;
}
