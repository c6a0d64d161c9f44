/* The few pieces of libmicrohttpd that Swift cannot call directly: the variadic
 * start and info functions, and macros whose values involve casts. Nothing else. */
#ifndef PARLOR_CMICROHTTPD_SHIM_H
#define PARLOR_CMICROHTTPD_SHIM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/socket.h>
#include <microhttpd.h>

_Static_assert(MHD_VERSION >= 0x00097300, "Parlor needs libmicrohttpd 0.9.73 or newer");

static const uint64_t parlor_mhd_size_unknown = MHD_SIZE_UNKNOWN;
static const ssize_t parlor_mhd_reader_end_of_stream = MHD_CONTENT_READER_END_OF_STREAM;
static const ssize_t parlor_mhd_reader_end_with_error = MHD_CONTENT_READER_END_WITH_ERROR;

/* MHD_start_daemon is C-variadic; every option travels through one MHD_OPTION_ARRAY. */
static inline struct MHD_Daemon *
parlor_mhd_start_daemon(unsigned int flags, uint16_t port,
                        MHD_AcceptPolicyCallback accept_policy, void *accept_policy_cls,
                        MHD_AccessHandlerCallback handler, void *handler_cls,
                        const struct MHD_OptionItem *options)
{
    return MHD_start_daemon(flags, port, accept_policy, accept_policy_cls, handler, handler_cls,
                            MHD_OPTION_ARRAY, options, MHD_OPTION_END);
}

/* The port the daemon listens on (useful when it was asked for port 0). */
static inline uint16_t
parlor_mhd_bound_port(struct MHD_Daemon *daemon)
{
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

/* The peer's socket address, or NULL. Valid while the connection lives. */
static inline const struct sockaddr *
parlor_mhd_client_address(struct MHD_Connection *connection)
{
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info == NULL ? NULL : info->client_addr;
}

/* The length of the request head as received (request line, fields, the empty line), or 0. */
static inline size_t
parlor_mhd_request_head_size(struct MHD_Connection *connection)
{
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
    return info == NULL ? 0 : info->header_size;
}

/* Percent-decoding of the path and query, in place. libmicrohttpd's own decoder turns %00
 * into a NUL that silently cuts the C string short ("/a.css%00.png" would become "/a.css").
 * Here a decoded NUL becomes 0xFF instead: invalid UTF-8, which Parlor refuses with 400. */
static int
parlor_hex_digit(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static size_t
parlor_mhd_unescape(void *cls, struct MHD_Connection *connection, char *text)
{
    (void) cls;
    (void) connection;
    char *read = text, *write = text;
    while (*read != '\0') {
        int high, low;
        if (read[0] == '%' && (high = parlor_hex_digit(read[1])) >= 0 && (low = parlor_hex_digit(read[2])) >= 0) {
            int value = high * 16 + low;
            *write++ = (char) (value == 0 ? 0xFF : value);
            read += 3;
        } else {
            *write++ = *read++;
        }
    }
    *write = '\0';
    return (size_t) (write - text);
}

static inline intptr_t
parlor_mhd_unescape_function(void)
{
    return (intptr_t) &parlor_mhd_unescape;
}

/* The raw request target, before it is split and decoded (libmicrohttpd's URI log callback, whose answer
 * becomes the request's context): a slash written as %2F in the path would be decoded into a slash that
 * cannot be told from a real one, so such a path is marked here with a value that is no pointer, and
 * answered 404. The query is not looked at: %2F is ordinary there. */
static const uintptr_t parlor_mhd_encoded_slash_mark = 1;

static void *
parlor_mhd_raw_target(void *cls, const char *uri, struct MHD_Connection *connection)
{
    (void) cls;
    (void) connection;
    for (const char *c = uri; c != NULL && *c != '\0' && *c != '?'; c++) {
        if (c[0] == '%' && c[1] == '2' && (c[2] == 'f' || c[2] == 'F'))
            return (void *) parlor_mhd_encoded_slash_mark;
    }
    return NULL;
}

static inline intptr_t
parlor_mhd_raw_target_function(void)
{
    return (intptr_t) &parlor_mhd_raw_target;
}

/* libmicrohttpd's error log takes a va_list, which Swift cannot receive: format here, then
 * hand the finished line to Swift (parlor_mhd_log_line is defined with @_cdecl in MicroHTTP). */
extern void parlor_mhd_log_line(void *cls, const char *line);

static void
parlor_mhd_log(void *cls, const char *format, va_list arguments)
{
    char line[512];
    vsnprintf(line, sizeof line, format, arguments);
    parlor_mhd_log_line(cls, line);
}

static inline intptr_t
parlor_mhd_log_function(void)
{
    return (intptr_t) &parlor_mhd_log;
}

#endif
