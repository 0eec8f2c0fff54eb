// Opens libmicrohttpd with dlopen on first use (see CMicroHTTPD.h why) and runs its daemon.
#include "CMicroHTTPD.h"

// A build without the header fails here, saying what to install: a binary whose serve could only say
// "built without libmicrohttpd" was a feature lost in silence, and an incremental build kept it lost.
#if !__has_include(<microhttpd.h>)
#error "libmicrohttpd's header is missing (serve needs it): run script/bootstrap, or apt-get install libmicrohttpd-dev (macOS: brew install libmicrohttpd), then build again"
#endif
#include <microhttpd.h>

#include <dlfcn.h>
#include "CShims.h"
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static char aggctl_mhd_error[512];
static int aggctl_mhd_loaded;
static pthread_once_t aggctl_mhd_once = PTHREAD_ONCE_INIT;

static struct {
    struct MHD_Daemon *(*start_daemon)(unsigned int, uint16_t, MHD_AcceptPolicyCallback, void *,
                                       MHD_AccessHandlerCallback, void *, ...);
    void (*stop_daemon)(struct MHD_Daemon *);
    const union MHD_DaemonInfo *(*get_daemon_info)(struct MHD_Daemon *, enum MHD_DaemonInfoType, ...);
    struct MHD_Response *(*create_response_from_buffer)(size_t, void *, enum MHD_ResponseMemoryMode);
    struct MHD_Response *(*create_response_from_callback)(uint64_t, size_t, MHD_ContentReaderCallback, void *,
                                                          MHD_ContentReaderFreeCallback);
    enum MHD_Result (*add_response_header)(struct MHD_Response *, const char *, const char *);
    enum MHD_Result (*queue_response)(struct MHD_Connection *, unsigned int, struct MHD_Response *);
    void (*destroy_response)(struct MHD_Response *);
    const char *(*lookup_connection_value)(struct MHD_Connection *, enum MHD_ValueKind, const char *);
    const union MHD_ConnectionInfo *(*get_connection_info)(struct MHD_Connection *, enum MHD_ConnectionInfoType, ...);
} mhd;

static void aggctl_mhd_open(void) {
    // AGGCTL_LIBMICROHTTPD names the library to load instead (a path or a soname): for systems that keep
    // it elsewhere, and for tests of a machine without it.
    const char *names[] = {"libmicrohttpd.so.12", "libmicrohttpd.so", "libmicrohttpd.12.dylib",
                           "/opt/homebrew/lib/libmicrohttpd.dylib", "/usr/local/lib/libmicrohttpd.dylib", NULL};
    const char *tried = NULL;
    void *library = aggctl_open_library("AGGCTL_LIBMICROHTTPD", names, &tried);
    if (!library) {
        const char *why = dlerror();
        snprintf(aggctl_mhd_error, sizeof aggctl_mhd_error,
                 "libmicrohttpd could not be loaded (%s): %s; serve needs it (Debian and Ubuntu: apt install "
                 "libmicrohttpd12)",
                 tried, why ? why : "not found");
        return;
    }
    const char *missing = NULL;
#define AGGCTL_MHD_FIND(field, symbol)                                                 \
    if (!missing && !(*(void **)(&mhd.field) = dlsym(library, symbol))) missing = symbol;
    AGGCTL_MHD_FIND(start_daemon, "MHD_start_daemon")
    AGGCTL_MHD_FIND(stop_daemon, "MHD_stop_daemon")
    AGGCTL_MHD_FIND(get_daemon_info, "MHD_get_daemon_info")
    AGGCTL_MHD_FIND(create_response_from_buffer, "MHD_create_response_from_buffer")
    AGGCTL_MHD_FIND(create_response_from_callback, "MHD_create_response_from_callback")
    AGGCTL_MHD_FIND(add_response_header, "MHD_add_response_header")
    AGGCTL_MHD_FIND(queue_response, "MHD_queue_response")
    AGGCTL_MHD_FIND(destroy_response, "MHD_destroy_response")
    AGGCTL_MHD_FIND(lookup_connection_value, "MHD_lookup_connection_value")
    AGGCTL_MHD_FIND(get_connection_info, "MHD_get_connection_info")
#undef AGGCTL_MHD_FIND
    if (missing) {
        snprintf(aggctl_mhd_error, sizeof aggctl_mhd_error, "the libmicrohttpd loaded (%s) lacks %s", tried, missing);
        return;
    }
    aggctl_mhd_loaded = 1;
}

const char *aggctl_mhd_load_error(void) {
    pthread_once(&aggctl_mhd_once, aggctl_mhd_open);
    return aggctl_mhd_loaded ? NULL : aggctl_mhd_error;
}

typedef struct {
    aggctl_mhd_handler handler;
    void *context;
} aggctl_mhd_route;

// The time a request may take: libmicrohttpd closes a connection that is silent for `idle_seconds`, but a
// client that sends a byte every second is never silent. Each connection is watched from its start, and
// again from the end of each request, until its next request's headers are in; a watchdog thread shuts
// down the socket of one that takes longer than `request_seconds` (libmicrohttpd then closes it as it
// closes any connection its peer dropped). The list is changed and walked under one lock, and a
// connection leaves it (on libmicrohttpd's close notice) before its socket is closed, so the watchdog
// never touches a descriptor that is no longer this connection's.
typedef struct aggctl_mhd_watch {
    int fd;
    struct timespec since;
    int waiting;
    struct aggctl_mhd_watch *previous, *next;
} aggctl_mhd_watch;

static pthread_mutex_t aggctl_mhd_watch_lock = PTHREAD_MUTEX_INITIALIZER;
static aggctl_mhd_watch *aggctl_mhd_watched;
static unsigned int aggctl_mhd_request_seconds = 10;
// An answer still being sent after this long is cut off: a reader that takes a byte now and then is never
// idle, and would keep an answer (and an older merge's views) in memory for as long as it liked.
static unsigned int aggctl_mhd_answer_seconds = 120;

static void aggctl_mhd_now(struct timespec *now) { clock_gettime(CLOCK_MONOTONIC, now); }

static void aggctl_mhd_notify(void *cls, struct MHD_Connection *connection, void **socket_context,
                              enum MHD_ConnectionNotificationCode code) {
    (void)cls;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        aggctl_mhd_watch *watch = calloc(1, sizeof *watch);
        const union MHD_ConnectionInfo *info = mhd.get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
        if (!watch || !info) {
            free(watch);
            return;
        }
        watch->fd = info->connect_fd;
        watch->waiting = 1;
        aggctl_mhd_now(&watch->since);
        pthread_mutex_lock(&aggctl_mhd_watch_lock);
        watch->next = aggctl_mhd_watched;
        if (aggctl_mhd_watched) aggctl_mhd_watched->previous = watch;
        aggctl_mhd_watched = watch;
        pthread_mutex_unlock(&aggctl_mhd_watch_lock);
        *socket_context = watch;
    } else if (code == MHD_CONNECTION_NOTIFY_CLOSED && *socket_context) {
        aggctl_mhd_watch *watch = *socket_context;
        pthread_mutex_lock(&aggctl_mhd_watch_lock);
        if (watch->previous) watch->previous->next = watch->next;
        else aggctl_mhd_watched = watch->next;
        if (watch->next) watch->next->previous = watch->previous;
        pthread_mutex_unlock(&aggctl_mhd_watch_lock);
        free(watch);
        *socket_context = NULL;
    }
}

// Marks the connection's request as in (`waiting` 0) or its next one as awaited (1, from now).
static void aggctl_mhd_mark(struct MHD_Connection *connection, int waiting) {
    const union MHD_ConnectionInfo *info = mhd.get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    if (!info || !info->socket_context) return;
    aggctl_mhd_watch *watch = info->socket_context;
    pthread_mutex_lock(&aggctl_mhd_watch_lock);
    watch->waiting = waiting;
    aggctl_mhd_now(&watch->since);
    pthread_mutex_unlock(&aggctl_mhd_watch_lock);
}

static void aggctl_mhd_completed(void *cls, struct MHD_Connection *connection, void **request,
                                 enum MHD_RequestTerminationCode code) {
    (void)cls;
    (void)request;
    (void)code;
    aggctl_mhd_mark(connection, 1);
}

static void *aggctl_mhd_watchdog(void *unused);

static void aggctl_mhd_start_watchdog(void) {
    pthread_t thread;
    if (pthread_create(&thread, NULL, aggctl_mhd_watchdog, NULL) == 0) pthread_detach(thread);
}

static void *aggctl_mhd_watchdog(void *unused) {
    (void)unused;
    for (;;) {
        sleep(1);
        struct timespec now;
        aggctl_mhd_now(&now);
        pthread_mutex_lock(&aggctl_mhd_watch_lock);
        for (aggctl_mhd_watch *watch = aggctl_mhd_watched; watch; watch = watch->next) {
            time_t elapsed = now.tv_sec - watch->since.tv_sec;
            if (watch->waiting && elapsed > (time_t)aggctl_mhd_request_seconds) {
                shutdown(watch->fd, SHUT_RDWR);
                watch->waiting = 0;
            } else if (!watch->waiting && elapsed > (time_t)aggctl_mhd_answer_seconds) {
                // Reset, not a graceful end: what the socket's buffer still holds would otherwise go out
                // at the slow reader's pace for minutes more.
                struct linger reset = {1, 0};
                setsockopt(watch->fd, SOL_SOCKET, SO_LINGER, &reset, sizeof reset);
                shutdown(watch->fd, SHUT_RDWR);
                aggctl_mhd_now(&watch->since);
            }
        }
        pthread_mutex_unlock(&aggctl_mhd_watch_lock);
    }
    return NULL;
}

// libmicrohttpd calls this first when a request's headers are in, then again once its body is (none, for
// GET and HEAD). A GET or HEAD is answered on the second call, which lets the connection be kept alive (an
// answer queued on the first call closes it); any other method is answered at once (refused, by the
// handler), its body never read.
static enum MHD_Result aggctl_mhd_access(void *cls, struct MHD_Connection *connection, const char *url,
                                         const char *method, const char *version, const char *upload_data,
                                         size_t *upload_data_size, void **request) {
    (void)version;
    (void)upload_data;
    static int seen;
    int bodiless = strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0;
    if (*request == NULL) aggctl_mhd_mark(connection, 0);
    if (bodiless && *request == NULL) {
        *request = &seen;
        return MHD_YES;
    }
    if (bodiless && *upload_data_size != 0) {
        // A GET with a body: the body is dropped unread.
        *upload_data_size = 0;
        return MHD_YES;
    }
    aggctl_mhd_route *route = cls;
    route->handler(route->context, connection, method, url);
    return MHD_YES;
}

void *aggctl_mhd_start(const struct sockaddr *address, socklen_t length, aggctl_mhd_limits limits,
                       aggctl_mhd_handler handler, void *context) {
    (void)length;
    if (aggctl_mhd_load_error()) return NULL;
    aggctl_mhd_route *route = malloc(sizeof *route);
    if (!route) return NULL;
    route->handler = handler;
    route->context = context;
    unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO;
    if (address->sa_family == AF_INET6) flags |= MHD_USE_IPv6;
    aggctl_mhd_request_seconds = limits.request_seconds;
    if (limits.answer_seconds) aggctl_mhd_answer_seconds = limits.answer_seconds;
    struct MHD_Daemon *daemon = mhd.start_daemon(
        flags, 0, NULL, NULL, aggctl_mhd_access, route,
        MHD_OPTION_SOCK_ADDR, address,
        MHD_OPTION_CONNECTION_LIMIT, limits.connections,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, limits.connections_per_ip,
        MHD_OPTION_CONNECTION_TIMEOUT, limits.idle_seconds,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, limits.memory_per_connection,
        MHD_OPTION_NOTIFY_CONNECTION, aggctl_mhd_notify, NULL,
        MHD_OPTION_NOTIFY_COMPLETED, aggctl_mhd_completed, NULL,
        MHD_OPTION_END);
    // The route lives as long as the process: a daemon is started once per run.
    if (!daemon) {
        free(route);
        return NULL;
    }
    static pthread_once_t watchdog_once = PTHREAD_ONCE_INIT;
    pthread_once(&watchdog_once, aggctl_mhd_start_watchdog);
    return daemon;
}

int aggctl_mhd_port(void *daemon) {
    const union MHD_DaemonInfo *info = mhd.get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info ? info->port : -1;
}

int aggctl_mhd_connection_port(void *connection) {
    const union MHD_ConnectionInfo *info = mhd.get_connection_info(connection, MHD_CONNECTION_INFO_DAEMON);
    return info && info->daemon ? aggctl_mhd_port(info->daemon) : -1;
}

void aggctl_mhd_stop(void *daemon) {
    mhd.stop_daemon(daemon);
}

const char *aggctl_mhd_header(void *connection, const char *name) {
    return mhd.lookup_connection_value(connection, MHD_HEADER_KIND, name);
}

static int aggctl_mhd_queue(void *connection, unsigned int status, struct MHD_Response *response,
                            const char *const *names, const char *const *values, size_t count) {
    if (!response) return -1;
    for (size_t index = 0; index < count; index++) {
        if (mhd.add_response_header(response, names[index], values[index]) != MHD_YES) {
            mhd.destroy_response(response);
            return -1;
        }
    }
    enum MHD_Result queued = mhd.queue_response(connection, status, response);
    // The connection holds the response from here; the last one done with it destroys it.
    mhd.destroy_response(response);
    return queued == MHD_YES ? 0 : -1;
}

int aggctl_mhd_respond(void *connection, unsigned int status, const void *body, size_t length,
                       const char *const *names, const char *const *values, size_t count) {
    struct MHD_Response *response =
        mhd.create_response_from_buffer(length, (void *)(length ? body : ""), MHD_RESPMEM_MUST_COPY);
    return aggctl_mhd_queue(connection, status, response, names, values, count);
}

int aggctl_mhd_respond_shared(void *connection, unsigned int status, uint64_t length,
                              const char *const *names, const char *const *values, size_t count,
                              void *source, aggctl_mhd_reader reader, aggctl_mhd_release release) {
    struct MHD_Response *response = mhd.create_response_from_callback(
        length, AGGCTL_MHD_BLOCK, (MHD_ContentReaderCallback)reader, source, release);
    if (!response) {
        release(source);
        return -1;
    }
    return aggctl_mhd_queue(connection, status, response, names, values, count);
}
