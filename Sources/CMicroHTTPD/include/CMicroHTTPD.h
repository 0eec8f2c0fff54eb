// libmicrohttpd for Swift (`aggctl serve`), loaded on first use.
//
// Like libcurl, the library is opened with dlopen the first time `serve` starts, not linked: no other
// command needs it, and a machine without it runs them all. Its daemon is started here with every limit
// set in one place; each request is handed to one Swift callback, which answers it with `aggctl_mhd_respond`.
// MHD_start_daemon is a C variadic function, which Swift cannot call: the options are laid out here.
#ifndef AGGCTL_CMICROHTTPD_H
#define AGGCTL_CMICROHTTPD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

/// One request: `connection` is only good within the call, for `aggctl_mhd_header` and one
/// `aggctl_mhd_respond`.
typedef void (*aggctl_mhd_handler)(void *context, void *connection, const char *method, const char *url);

/// What the daemon allows (README: "serve").
typedef struct {
    unsigned int connections;          // open connections in all
    unsigned int connections_per_ip;   // from one address
    unsigned int idle_seconds;         // a connection quiet this long is closed
    unsigned int request_seconds;      // a request whose headers take longer is cut off
    size_t memory_per_connection;      // a request's headers must fit (MHD answers 431 otherwise)
    unsigned int answer_seconds;       // an answer still being sent after this long is cut off (0: 120)
} aggctl_mhd_limits;

/// The bytes of a shared answer handed to libmicrohttpd at a time: what one reader holds of it beyond
/// the shared body (libmicrohttpd's buffer for the response, and the socket's).
#define AGGCTL_MHD_BLOCK 32768

/// Copies at most `max` bytes of the answer from `position` into `buffer`; returns how many (-1: stop).
typedef ssize_t (*aggctl_mhd_reader)(void *source, uint64_t position, char *buffer, size_t max);
/// Called once, when the last connection that sends the answer is done with it.
typedef void (*aggctl_mhd_release)(void *source);

/// Loads libmicrohttpd when it is not loaded yet. NULL when it is usable, else why not (one line).
const char *aggctl_mhd_load_error(void);

/// Starts the daemon on `address` (IPv4 or IPv6) with its own polling thread; NULL when it cannot
/// (the address taken, say: errno tells).
void *aggctl_mhd_start(const struct sockaddr *address, socklen_t length, aggctl_mhd_limits limits,
                       aggctl_mhd_handler handler, void *context);

/// The port the daemon listens on (for a daemon started on port 0).
int aggctl_mhd_port(void *daemon);

/// Stops the daemon: no new request is answered once it returns.
void aggctl_mhd_stop(void *daemon);

/// The value of a request header, or NULL.
const char *aggctl_mhd_header(void *connection, const char *name);

/// The port the connection came in on (the daemon's), or -1.
int aggctl_mhd_connection_port(void *connection);

/// Answers the request: `status`, `count` headers (`names[i]: values[i]`) and the body (copied). 0 when
/// it was queued.
int aggctl_mhd_respond(void *connection, unsigned int status, const void *body, size_t length,
                       const char *const *names, const char *const *values, size_t count);

/// Answers the request with a body of `length` bytes that `reader` copies from `source` as the client
/// takes them, `AGGCTL_MHD_BLOCK` at a time: a large answer read by many is held once, by `source`.
/// `release(source)` is called exactly once, also when the answer could not be queued.
int aggctl_mhd_respond_shared(void *connection, unsigned int status, uint64_t length,
                              const char *const *names, const char *const *values, size_t count,
                              void *source, aggctl_mhd_reader reader, aggctl_mhd_release release);

#endif
